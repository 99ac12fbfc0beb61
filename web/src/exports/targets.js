// web/src/exports/targets.js: the list of training-config exports, in menu order. In Node each
// target is its own module; in the page (one scope) they are the EXPORT_* constants.
const EXPORT_TARGETS = typeof module === 'object' && module.exports
  ? ['accelerate', 'deepspeed', 'trl', 'axolotl', 'torchtune', 'measure'].map((n) => require(`./${n}.js`))
  : [EXPORT_ACCELERATE, EXPORT_DEEPSPEED, EXPORT_TRL, EXPORT_AXOLOTL, EXPORT_TORCHTUNE, EXPORT_MEASURE];

// renderExport(id, report, {options, configText, modelId}) → {name(stem), type, text}.
function renderExport(id, report, ctx) {
  const target = EXPORT_TARGETS.find((t) => t.id === id);
  if (!target) throw new Error(`Unknown export "${id}"; one of ${EXPORT_TARGETS.map((t) => t.id).join(', ')}.`);
  const helpers = typeof module === 'object' && module.exports ? require('./settings.js') : { exportSettings, EXPORT_HELPERS };
  const s = helpers.exportSettings(report, ctx);
  if (s.unsupported && !target.anyLayout) throw new Error(s.unsupported);
  return { target, text: target.render(s, helpers.EXPORT_HELPERS) };
}

if (typeof module === 'object' && module.exports) module.exports = { EXPORT_TARGETS, renderExport };

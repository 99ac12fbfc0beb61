// web/src/exports/targets.js: the list of training-config exports, in menu order, and the one
// function that renders one of them from a report (the page's export menu and the CLI's --export).
import { exportSettings, EXPORT_HELPERS } from './settings.js';
import { EXPORT_ACCELERATE } from './accelerate.js';
import { EXPORT_DEEPSPEED } from './deepspeed.js';
import { EXPORT_TRL } from './trl.js';
import { EXPORT_AXOLOTL } from './axolotl.js';
import { EXPORT_TORCHTUNE } from './torchtune.js';
import { EXPORT_MEASURE } from './measure.js';

export const EXPORT_TARGETS = [EXPORT_ACCELERATE, EXPORT_DEEPSPEED, EXPORT_TRL, EXPORT_AXOLOTL, EXPORT_TORCHTUNE, EXPORT_MEASURE];

// renderExport(id, report, {options, configText, modelId}) → {target, text}.
export function renderExport(id, report, ctx) {
  const target = EXPORT_TARGETS.find((t) => t.id === id);
  if (!target) throw new Error(`Unknown export "${id}"; one of ${EXPORT_TARGETS.map((t) => t.id).join(', ')}.`);
  const s = exportSettings(report, ctx);
  if (s.unsupported && !target.anyLayout) throw new Error(s.unsupported);
  return { target, text: target.render(s, EXPORT_HELPERS) };
}

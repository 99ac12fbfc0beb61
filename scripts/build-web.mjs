// scripts/build-web.mjs: writes the browser files of dist/ from web/ and dist/cardfit.js:
//   dist/index.html          the whole app in one self-contained file (CSS, examples, the wasm
//                            module as inert text for the planner's worker, the page script)
//   dist/cardfit-widget.js   the <cardfit-plan> embed widget, self-contained (wasm inlined)
//   dist/widget-demo.html    a plain page that uses the widget
//   dist/cardfit.mjs         the npm package's ESM entry over dist/cardfit.js
// Not a bundler and not the wasm build (that is wasm/CMakeLists.txt): plain text substitution of
// the explicit file lists below, each script wrapped in one function scope (no globals).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const root = fileURLToPath(new URL('..', import.meta.url));
const web = (f) => join(root, 'web', f);
const dist = (f) => join(root, 'dist', f);
const read = (f) => readFileSync(f, 'utf8');
const moduleFile = dist('cardfit.js');
if (!existsSync(moduleFile)) {
  console.error('build-web: dist/cardfit.js is missing; build the wasm first (./scripts/build).');
  process.exit(1);
}

// The page's and the widget's sources, in order: later files use what earlier ones define.
const PAGE_SOURCES = ['format.js', 'charts.js', 'batch.js', 'render.js', 'fit.js', 'serving-view.js', 'parallel-view.js', 'state.js', 'hub.js', 'sources.js', 'planner.js', 'exports.js', 'changes.js', 'compare.js',
  'hub-panel.js', 'history-panel.js', 'exports/settings.js', 'exports/accelerate.js', 'exports/deepspeed.js', 'exports/trl.js', 'exports/axolotl.js',
  'exports/torchtune.js', 'exports/measure.js', 'exports/targets.js', 'app.js', 'export-menu.js'];
const WIDGET_SOURCES = ['format.js', 'charts.js', 'state.js', 'hub.js', 'sources.js', 'fit.js', 'widget.js'];

// Inline script text must not close its own <script> element.
function script(body, attributes = '') {
  if (/<\/script/i.test(body)) throw new Error('build-web: inlined script contains "</script"');
  return `<script${attributes}>\n${body}\n</script>`;
}
// The core's option schema, as the module exports it, is the first thing of both scripts: the
// share link, the widget's attributes and the form's typing read OPTION_SCHEMA (web/src/state.js).
const { describe } = await createRequire(import.meta.url)(moduleFile).createCardfit();
const schemaScript = `// ---- the core's option schema (cardfit.describe)\nconst OPTION_SCHEMA = ${JSON.stringify({ options: describe.options, groups: describe.groups }).replace(/</g, '\\u003c')};`;
// The measured accuracy the page states next to its estimates: read from the section of
// docs/accuracy.md that scripts/accuracy --update-docs generates (the one place those numbers
// live), never copied by hand. A change of that section's format fails the build here.
function accuracyData() {
  const doc = read(join(root, 'docs', 'accuracy.md'));
  const a = doc.indexOf('<!-- accuracy:begin -->'), b = doc.indexOf('<!-- accuracy:end -->');
  if (a < 0 || b < a) throw new Error('build-web: docs/accuracy.md lacks its accuracy:begin/end section');
  const section = doc.slice(a, b);
  const s0 = section.indexOf('### Summary'), s1 = section.indexOf('\n###', s0 + 1);
  const summary = s0 < 0 ? '' : section.slice(s0, s1 < 0 ? undefined : s1);  // the by-task table only
  const tasks = {};
  for (const m of summary.matchAll(/^\| (\w+) \| (\d+) \| ([\d.]+) % \| ([\d.]+) % \| ([\d.]+) % \|$/gm)) {
    tasks[m[1]] = { points: Number(m[2]), median: Number(m[3]), p90: Number(m[4]), max: Number(m[5]) };
  }
  const oom = section.match(/Out-of-memory reports flagged[^:]*: (\d+) of (\d+)/);
  if (!tasks.all || !oom) throw new Error('build-web: docs/accuracy.md\'s generated summary has no "all" row or no out-of-memory line');
  return { tasks, oom_flagged: Number(oom[1]), oom_reports: Number(oom[2]) };
}
const accuracyScript = `// ---- docs/accuracy.md's generated summary (scripts/build-web.mjs)\nconst ACCURACY = ${JSON.stringify(accuracyData())};`;
const sources = (files, extra = []) => [schemaScript, ...extra, ...files.map((f) => `// ---- web/src/${f}\n${read(web(`src/${f}`))}`)].join('\n');

const manifest = JSON.parse(read(web('examples/examples.json')));
const examples = manifest.map(({ id, file, checkpoint_total: ck }) => ({ id, text: read(web(`examples/${file}`)), ...(ck ? { checkpoint_total: ck } : {}) }));
const moduleText = read(moduleFile);

// ---- dist/index.html
const parts = {
  'style.css': () => `<style>\n${read(web('style.css'))}</style>`,
  // JSON in HTML: escaping "<" keeps any "</script>" or "<!--" in a config inert.
  examples: () => script(JSON.stringify(examples).replace(/</g, '\\u003c'), ' type="application/json" id="examples"'),
  // Not executed by the page: the planner starts a worker from this text (web/src/planner.js).
  'cardfit-module': () => script(moduleText, ' type="text/plain" id="cardfit-module"'),
  'app.js': () => script(`(function () {\n'use strict';\n${sources(PAGE_SOURCES, [accuracyScript])}\n})();`),
};
// Content-Security-Policy: scripts run only if their hash is listed (the page script, and the
// module text the planner inserts as a script when no worker can start), so inline handlers
// (onclick=...), injected <script> and eval are refused; 'wasm-unsafe-eval' lets WebAssembly compile.
const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const executable = [];
const html = read(web('index.html')).replace(/<!-- inline: ([\w.-]+) -->/g, (_, name) => {
  if (!parts[name]) throw new Error(`build-web: unknown inline marker "${name}"`);
  const out = parts[name]();
  if (name === 'app.js') executable.push(out.slice(out.indexOf('>') + 1, out.lastIndexOf('</script>')));
  return out;
}).replace("script-src 'self'", () => `script-src ${[...executable, moduleText].map(sha256).join(' ')}`);
if (/script-src[^;]*'unsafe-(inline|eval)'/.test(html)) throw new Error('build-web: the page CSP must not allow unsafe-inline or unsafe-eval scripts');
writeFileSync(dist('index.html'), html);

// ---- dist/cardfit-widget.js: the module and the widget in one function scope; the only thing
// it leaves behind is the custom element registration.
const widgetCss = read(web('widget.css'));
const widget = `/*! cardfit-widget.js: <cardfit-plan> — GPU memory and cost of a transformer, computed in the browser. docs/web.md */
(function () {
${moduleText}
;(function () {
'use strict';
const WIDGET_CSS = ${JSON.stringify(widgetCss)};
${sources(WIDGET_SOURCES)}
})();
})();
`;
writeFileSync(dist('cardfit-widget.js'), widget);

// ---- dist/widget-demo.html: the demo page, with example configs inlined where marked.
const demo = read(web('widget-demo.html')).replace(/<!-- inline-json: ([\w.-]+) -->/g, (_, file) => {
  const compact = JSON.stringify(JSON.parse(read(web(`examples/${file}`))));
  return compact.replace(/</g, '\\u003c');
});
writeFileSync(dist('widget-demo.html'), demo);

// ---- dist/cardfit.mjs: the npm package's ESM entry (package.json "exports" import), over the
// CommonJS dist/cardfit.js, which Node (and bundlers) import as its module.exports.
writeFileSync(dist('cardfit.mjs'), `// dist/cardfit.mjs: ESM entry of the cardfit package (scripts/build-web.mjs); types: cardfit.d.ts.
import cardfit from './cardfit.js';
export const createCardfit = cardfit.createCardfit;
export const createCardfitModule = cardfit.createCardfitModule;
export default cardfit;
`);

console.log(`build-web: dist/index.html (${examples.length} examples), dist/cardfit-widget.js, dist/widget-demo.html written`);

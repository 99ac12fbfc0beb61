// scripts/build-web.mjs: writes the browser files of dist/ from web/ and dist/cardfit.js:
//   dist/index.html          the whole app in one self-contained file (CSS, examples, the wasm
//                            module as inert text for the planner's worker, the page script)
//   dist/cardfit-widget.js   the <cardfit-plan> embed widget, self-contained (wasm inlined)
//   dist/widget-demo.html    a plain page that uses the widget
//   dist/cardfit.mjs         the npm package's ESM entry over dist/cardfit.js
// The page and the widget are ES modules (web/src/app.js, web/src/widget.js and what they import);
// esbuild follows their imports and inlines them as one function scope each (no globals, nothing
// fetched: Chromium runs no module script from file://). What the build knows and the sources do
// not comes in as `cardfit:` modules (virtualModules below). Not the wasm build (wasm/CMakeLists.txt).
import { bundleWeb } from './web-bundle.mjs';
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

// Inline script text must not close its own <script> element.
function script(body, attributes = '') {
  if (/<\/script/i.test(body)) throw new Error('build-web: inlined script contains "</script"');
  return `<script${attributes}>\n${body}\n</script>`;
}
// The core's option schema, as the module exports it (cardfit.describe): the share link, the
// widget's attributes and the form's typing read it (import { OPTION_SCHEMA } from 'cardfit:option-schema').
const { describe } = await createRequire(import.meta.url)(moduleFile).createCardfit();
const asJs = (value) => JSON.stringify(value).replace(/</g, '\\u003c');
const schemaModule = `export const OPTION_SCHEMA = ${asJs({ options: describe.options, groups: describe.groups })};`;
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

// The `cardfit:` modules of each bundle: values the build injects (tests/js/web-loader.mjs gives
// Node's unit tests the same names). `cardfit:core` is the module's createCardfit, which the widget
// file defines just outside the bundle (below); the page's planner runs the module in a worker.
const virtualModules = {
  page: {
    'cardfit:option-schema': schemaModule,
    'cardfit:accuracy': `export const ACCURACY = ${asJs(accuracyData())};`,
  },
  widget: {
    'cardfit:option-schema': schemaModule,
    'cardfit:accuracy': 'export const ACCURACY = null;',
    'cardfit:widget-css': `export default ${asJs(read(web('widget.css')))};`,
    'cardfit:core': 'export default createCardfit;',
  },
};

const pageScript = (await bundleWeb('app.js', virtualModules.page)).text;
const widgetScript = (await bundleWeb('widget.js', virtualModules.widget)).text;

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
  'app.js': () => script(`'use strict';\n${pageScript}`),
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
const widget = `/*! cardfit-widget.js: <cardfit-plan> — GPU memory and cost of a transformer, computed in the browser. docs/web.md */
(function () {
${moduleText}
;(function () {
'use strict';
${widgetScript}
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

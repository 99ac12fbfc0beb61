// tests/js/web-modules.test.mjs: the front end's module graph as scripts/build-web.mjs bundles it
// (scripts/web-bundle.mjs): every web/src file is an ES module the page or the widget imports (none
// left out, none CommonJS), the bundles import nothing at run time (file:// runs no module
// script), and the widget's bundle leaves out the page's report sections.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { bundleWeb } from '../../scripts/web-bundle.mjs';

const src = new URL('../../web/src/', import.meta.url);
const files = readdirSync(src, { recursive: true }).filter((f) => f.endsWith('.js')).sort();
const stub = { 'cardfit:option-schema': 'export const OPTION_SCHEMA = { options: [], groups: [] };', 'cardfit:accuracy': 'export const ACCURACY = null;',
  'cardfit:widget-css': 'export default "";', 'cardfit:core': 'export default null;' };
const page = await bundleWeb('app.js', stub);
const widget = await bundleWeb('widget.js', stub);

test('every web/src file is in the page\'s or the widget\'s graph', () => {
  assert.ok(files.length >= 25, files.join(' '));
  const reached = new Set([...page.inputs, ...widget.inputs]);
  assert.deepEqual(files.filter((f) => !reached.has(f)), []);
  assert.ok(page.inputs.includes('exports/targets.js') && page.inputs.includes('store.js'));
});

test('the sources are ES modules: no CommonJS, no script-order globals', () => {
  for (const f of files) {
    const text = readFileSync(new URL(f, src), 'utf8');
    const code = text.replace(/^\s*\/\/.*$/gm, '');
    assert.doesNotMatch(code, /\bmodule\.exports\b|\brequire\(/, f);
    if (f !== 'app.js' && f !== 'widget.js') assert.match(text, /^export /m, `${f} exports nothing`);  // the two entries
    // What the build injects is imported, never assumed in scope.
    for (const name of ['OPTION_SCHEMA', 'ACCURACY', 'WIDGET_CSS', 'createCardfit']) {
      if (new RegExp(`\\b${name}\\b`).test(code) && !/globalThis\.createCardfit/.test(code)) {
        assert.match(text, new RegExp(`^import (\\{ ${name} \\}|${name}) from 'cardfit:`, 'm'), `${f} uses ${name} without importing it`);
      }
    }
  }
});

test('the bundles import nothing at run time and define no global', () => {
  for (const [name, b] of [['page', page], ['widget', widget]]) {
    assert.doesNotThrow(() => new Function(b.text), `${name}: compiles as a classic script (no import or export statement)`);
    assert.doesNotMatch(b.text, /\bimport\(/, name);
    assert.match(b.text.trimStart(), /^\(\(\)\s*=>\s*\{/, `${name}: one function scope`);
  }
});

test('the widget carries the card-table cell and the bars, not the page\'s report sections', () => {
  assert.match(widget.text, /function fitCell\(/);
  assert.match(widget.text, /function memoryBars\(/);
  for (const section of ['heroSection', 'countSection', 'structureSection', 'renderCompare', 'createStore']) {
    assert.doesNotMatch(widget.text, new RegExp(`function ${section}\\(`), section);
    assert.match(page.text, new RegExp(`function ${section}\\(`), section);
  }
});

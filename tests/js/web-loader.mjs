// tests/js/web-loader.mjs: lets Node import the page's ES modules (web/src/*.js) as the build
// bundles them: the `cardfit:` modules that scripts/build-web.mjs injects get the same names here
// (the option schema from dist/cardfit.js's describe, no accuracy summary, the widget's CSS text).
// Use: `import { importWeb } from './web-loader.mjs'; const m = await importWeb('state.js');`.
// Needs the build (dist/cardfit.js).
import { register, createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);
const { describe } = await createRequire(import.meta.url)(new URL('dist/cardfit.js', root).pathname).createCardfit();
export const OPTION_SCHEMA = { options: describe.options, groups: describe.groups };
const modules = {
  'cardfit:option-schema': `export const OPTION_SCHEMA = ${JSON.stringify(OPTION_SCHEMA)};`,
  'cardfit:accuracy': 'export const ACCURACY = null;',
  'cardfit:widget-css': `export default ${JSON.stringify(readFileSync(new URL('web/widget.css', root), 'utf8'))};`,
  'cardfit:core': `import { createRequire } from 'node:module'; export default createRequire(${JSON.stringify(root.href)})('./dist/cardfit.js').createCardfit;`,
};

// The hooks run in their own thread: they get the module texts as data.
const hooks = `
const modules = ${JSON.stringify(modules)};
export async function resolve(specifier, context, next) {
  if (specifier in modules) return { url: 'cardfit-virtual:' + specifier, shortCircuit: true };
  return next(specifier, context);
}
export async function load(url, context, next) {
  if (url.startsWith('cardfit-virtual:')) return { format: 'module', source: modules[url.slice(16)], shortCircuit: true };
  return next(url, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);

export const importWeb = (file) => import(new URL(`web/src/${file}`, root).href);

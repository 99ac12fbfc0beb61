// scripts/build-web.mjs: writes dist/index.html, the whole app in one self-contained file, by
// inlining into web/index.html the CSS, the examples, dist/cardfit.js and the page script.
// Not a bundler and not the wasm build (that is wasm/CMakeLists.txt): plain text substitution.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const root = fileURLToPath(new URL('..', import.meta.url));
const web = (f) => join(root, 'web', f);
const read = (f) => readFileSync(f, 'utf8');
const moduleFile = join(root, 'dist', 'cardfit.js');
if (!existsSync(moduleFile)) {
  console.error('build-web: dist/cardfit.js is missing; build the wasm first (./scripts/build).');
  process.exit(1);
}

// Inline script text must not close its own <script> element.
function script(body, attributes = '') {
  if (/<\/script/i.test(body)) throw new Error('build-web: inlined script contains "</script"');
  return `<script${attributes}>\n${body}\n</script>`;
}

const manifest = JSON.parse(read(web('examples/examples.json')));
const examples = manifest.map(({ id, file }) => ({ id, text: read(web(`examples/${file}`)) }));

const parts = {
  'style.css': () => `<style>\n${read(web('style.css'))}</style>`,
  // JSON in HTML: escaping "<" keeps any "</script>" or "<!--" in a config inert.
  examples: () => script(JSON.stringify(examples).replace(/</g, '\\u003c'), ' type="application/json" id="examples"'),
  'cardfit.js': () => script(read(moduleFile)),
  'app.js': () => script(read(web('app.js'))),
};

const html = read(web('index.html')).replace(/<!-- inline: ([\w.]+) -->/g, (_, name) => {
  if (!parts[name]) throw new Error(`build-web: unknown inline marker "${name}"`);
  return parts[name]();
});
writeFileSync(join(root, 'dist', 'index.html'), html);
console.log(`build-web: dist/index.html written (${examples.length} examples)`);

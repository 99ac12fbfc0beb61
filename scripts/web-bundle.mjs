// scripts/web-bundle.mjs: one entry module of web/src and everything it imports → the text of one
// script, an IIFE that defines nothing global, by esbuild. Used by scripts/build-web.mjs (the page
// and the widget) and tests/js/web-modules.test.mjs (which files each graph holds). `modules`
// gives the text of each `cardfit:` module the graph may import; any other one fails the build.
// Unused exports are dropped; whitespace and comments are stripped (index.html 5.3 kB smaller gzipped,
// 2026-12-04) but names and syntax are kept, so a stack trace still reads.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

// → {text, inputs: the web/src files in the graph, relative to web/src}
export async function bundleWeb(entry, modules) {
  const result = await build({
    entryPoints: [`web/src/${entry}`], bundle: true, write: false, metafile: true, format: 'iife', platform: 'browser',
    charset: 'utf8', legalComments: 'none', logLevel: 'silent', absWorkingDir: root, minifyWhitespace: true,
    plugins: [{
      name: 'cardfit-virtual',
      setup(b) {
        b.onResolve({ filter: /^cardfit:/ }, (args) => ({ path: args.path, namespace: 'cardfit' }));
        b.onLoad({ filter: /.*/, namespace: 'cardfit' }, (args) => (args.path in modules ? { contents: modules[args.path], loader: 'js' }
          : { errors: [{ text: `web-bundle: no module "${args.path}" in this bundle (${entry})` }] }));
      },
    }],
  });
  const inputs = Object.keys(result.metafile.inputs).filter((p) => p.startsWith('web/src/')).map((p) => p.slice(8)).sort();
  return { text: result.outputFiles[0].text, inputs };
}

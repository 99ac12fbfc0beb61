// tests/js/package.test.mjs: the npm package as a user gets it. `npm pack` makes the tarball; it
// is installed with no network (--offline) into an empty folder; there `npx cardfit` plans a
// config, `import { createCardfit } from 'cardfit'` and require('cardfit') work from Node, the
// types and the widget are where "exports" says, and the CLI's hub and export code came along.
// Needs the build (dist/).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const work = mkdtempSync(join(tmpdir(), 'cardfit-pkg-'));
const app = join(work, 'app');
const env = { ...process.env, npm_config_cache: join(work, 'npm-cache'), npm_config_update_notifier: 'false', HF_ENDPOINT: '', HF_TOKEN: '' };
let packed;

function run(cmd, args, cwd, input) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 120_000, input });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

before(() => {
  const r = run('npm', ['pack', '--json', '--pack-destination', work], root);
  assert.equal(r.code, 0, r.err);
  [packed] = JSON.parse(r.out);
  spawnSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'empty-app', version: '1.0.0', private: true }));
  const inst = run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, packed.filename)], app);
  assert.equal(inst.code, 0, inst.err);
});

test('the tarball holds what the package needs, and only that', () => {
  assert.equal(packed.name, 'cardfit');
  assert.equal(packed.version, pkg.version);
  const files = packed.files.map((f) => f.path).sort();
  assert.deepEqual(files, ['CHANGELOG.md', 'README.md', 'dist/cardfit-widget.js', 'dist/cardfit.d.ts', 'dist/cardfit.js', 'dist/cardfit.mjs', 'docs/api.md',
    'package.json', 'scripts/cardfit', 'scripts/cardfit-hub.js', 'web/src/changes.js', 'web/src/exports/accelerate.js', 'web/src/exports/axolotl.js',
    'web/src/exports/deepspeed.js', 'web/src/exports/measure.js', 'web/src/exports/settings.js', 'web/src/exports/targets.js', 'web/src/exports/torchtune.js',
    'web/src/exports/trl.js', 'web/src/hub.js', 'web/src/package.json']);
  assert.match(readFileSync(join(root, 'CHANGELOG.md'), 'utf8'), new RegExp(`^## ${pkg.version.replace(/\./g, '\\.')} — \\d{4}-\\d\\d-\\d\\d$`, 'm'), 'the CHANGELOG names this version');
  assert.match(pkg.version, /^\d+\.\d+\.\d+$/);
});

test('npx cardfit plans a config in the empty folder', () => {
  writeFileSync(join(app, 'config.json'), readFileSync(join(root, 'web/examples/gpt2.json')));
  const r = run('npx', ['--offline', 'cardfit', '--json', 'config.json'], app);
  assert.equal(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out).params.total, 124439808);
  const md = run('npx', ['--offline', 'cardfit', 'config.json'], app);
  assert.match(md.out, /124,439,808/);
});

test('import { createCardfit } from "cardfit" (ESM) and require("cardfit") (CommonJS)', () => {
  const esm = run(process.execPath, ['--input-type=module', '-e', `
    import { createCardfit } from 'cardfit';
    import whole from 'cardfit';
    import { readFileSync } from 'node:fs';
    const api = await createCardfit();
    const r = api.plan(readFileSync('config.json', 'utf8'), { mode: 'lora' });
    console.log(JSON.stringify([api.schema, r.params.total, r.plan.mode, typeof whole.createCardfit]));`], app);
  assert.equal(esm.code, 0, esm.err);
  assert.deepEqual(JSON.parse(esm.out), ['cardfit.report/2', 124439808, 'lora', 'function']);
  const cjs = run(process.execPath, ['-e', "require('cardfit').createCardfit().then((a) => console.log(a.schema))"], app);
  assert.equal(cjs.code, 0, cjs.err);
  assert.equal(cjs.out.trim(), 'cardfit.report/2');
});

test('"exports" resolves the types, the widget and the hub client inside the installed package', () => {
  const r = run(process.execPath, ['--input-type=module', '-e', `
    import { createRequire } from 'node:module';
    const require = createRequire(process.cwd() + '/');
    const hub = await import('cardfit/hub');
    console.log(JSON.stringify([require.resolve('cardfit/widget'), typeof hub.default.makeHubClient]));`], app);
  assert.equal(r.code, 0, r.err);
  const [widget, hubClient] = JSON.parse(r.out);
  assert.equal(widget, join(app, 'node_modules/cardfit/dist/cardfit-widget.js'));
  assert.equal(hubClient, 'function');
  const types = readFileSync(join(app, 'node_modules/cardfit', pkg.exports['.'].types), 'utf8');
  assert.match(types, /export function createCardfit\(\): Promise<Cardfit>;/);
  assert.ok(existsSync(join(app, 'node_modules/.bin/cardfit')));
});

test('the installed CLI has its hub and export code: a hub id offline fails in one line, exit 2; --export works', () => {
  const r = run('npx', ['--offline', 'cardfit', '--hub-endpoint', 'http://127.0.0.1:9', 'Qwen/Qwen3-8B'], app);
  assert.equal(r.code, 2);
  assert.equal(r.err.trim().split('\n').length, 1);
  assert.equal(JSON.parse(r.err).error.code, 'hub.unreachable');
  const x = run('npx', ['--offline', 'cardfit', '--export', 'deepspeed', '--batch', '3', 'config.json'], app);
  assert.equal(x.code, 0, x.err);
  assert.equal(JSON.parse(x.out).train_micro_batch_size_per_gpu, 3);
});

// tests/browser/docs-site.test.mjs: the widget on a docs site, from the npm package's single file.
// `npm pack` makes the tarball, the widget file is taken out of it as shipped, the mkdocs site of
// docs/examples/mkdocs/ is built with it (Debian's mkdocs, installed by scripts/deps) and served
// from 127.0.0.1; Chromium opens the built page and both widgets plan (one with its config inline,
// one by config-url from the site), with no other request and no error.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, cpSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launch, context, startServer, T } from './helpers.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'cardfit-docs-'));
let browser, server;

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, npm_config_cache: join(work, 'npm-cache'), npm_config_update_notifier: 'false' } });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}: ${r.error || r.stderr}`);
  return r.stdout;
}

before(async () => {
  const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], root));
  run('tar', ['-xzf', join(work, packed.filename), '-C', work]);
  const site = join(work, 'mkdocs');
  cpSync(join(root, 'docs/examples/mkdocs'), site, { recursive: true });
  cpSync(join(work, 'package/dist/cardfit-widget.js'), join(site, 'docs/cardfit-widget.js'));
  assert.ok(spawnSync('mkdocs', ['--version']).status === 0, 'mkdocs is missing: run ./scripts/deps (Debian package mkdocs)');
  run('mkdocs', ['build', '--strict', '--quiet', '-f', join(site, 'mkdocs.yml'), '-d', join(site, 'site')], site);
  server = await startServer({ dir: pathToFileURL(join(site, 'site') + '/') });
  browser = await launch();
}, T);

after(async () => {
  await browser?.close();
  await server?.close();
});

const shadowText = (page, id, selector) => page.evaluate(([i, s]) => document.getElementById(i)?.shadowRoot?.querySelector(s)?.textContent || '', [id, selector]);

test('the built mkdocs page loads the shipped widget file and both widgets plan', T, async () => {
  const built = readFileSync(join(work, 'mkdocs/site/index.html'), 'utf8');
  assert.match(built, /<script src="cardfit-widget\.js"/, 'mkdocs added the widget script');
  assert.equal(statSync(join(work, 'mkdocs/site/cardfit-widget.js')).size, statSync(join(work, 'package/dist/cardfit-widget.js')).size);
  const ctx = await context(browser, { allow: [server.base] });
  const page = await ctx.newPage();
  await page.goto(`${server.base}/static/index.html`);
  await page.waitForFunction(() => document.getElementById('gpt2-lora')?.shadowRoot?.querySelector('.count')?.textContent === '124,439,808', null, { timeout: 30_000 });
  await page.waitForFunction(() => document.getElementById('qwen-full')?.shadowRoot?.querySelector('.count')?.textContent === '3,085,938,688', null, { timeout: 30_000 });
  assert.match(await shadowText(page, 'gpt2-lora', '.headline'), /LoRA/);
  assert.ok(server.log.some((r) => r.path === '/static/configs/Qwen2.5-3B.json'), 'config-url read from the site');
  assert.deepEqual(ctx.refused, []);
  assert.deepEqual(ctx.errors, []);
  await ctx.close();
});

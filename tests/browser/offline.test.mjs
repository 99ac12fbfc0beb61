// tests/browser/offline.test.mjs: dist/index.html with the network off (the browser context offline
// and every non-file request refused, loopback included): it loads, plans a pasted config with its
// exact count, and does so again from a copy saved elsewhere on disk, both as the file itself and as
// the DOM a browser's "Save page as…" writes (the rendered page, scripts included). No request is
// even attempted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, copyFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, context, openPage, waitForText, readText, root, T, examples } from './helpers.mjs';

const qwen3b = readText('web/examples/Qwen2.5-3B.json');
let browser, ctx, dir;

before(async () => {
  browser = await launch();
  ctx = await context(browser, { offline: true });
  dir = mkdtempSync(join(tmpdir(), 'cardfit-offline-'));
}, T);

after(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function pasteAndCount(page) {
  await page.locator('#config').fill(qwen3b);
  await waitForText(page, '#params-total', '3,085,938,688');
}

test('dist/index.html offline: plans a pasted Qwen2.5-3B config and shows 3,085,938,688', T, async () => {
  const page = await openPage(ctx);
  assert.equal(await page.evaluate(() => navigator.onLine), false);
  await pasteAndCount(page);
  await page.close();
});

test('a copy of the file elsewhere on disk works the same', T, async () => {
  const copy = join(dir, 'cardfit saved.html');
  copyFileSync(new URL('dist/index.html', root), copy);
  const page = await openPage(ctx, pathToFileURL(copy).href);
  await waitForText(page, '#params-total', '124,439,808');
  await pasteAndCount(page);
  await page.close();
});

test('the DOM as "Save page as…" writes it (after a plan, in compare view) starts clean and plans', T, async () => {
  const page = await openPage(ctx);
  await waitForText(page, '#params-total', '124,439,808');
  await page.locator('input[name=view][value=compare]').check();
  await page.locator('#compare-metrics').waitFor();
  const saved = join(dir, 'saved-dom.html');
  writeFileSync(saved, await page.content());
  await page.close();
  const again = await openPage(ctx, pathToFileURL(saved).href);
  await waitForText(again, '#params-total', '124,439,808');
  // One option per example in web/examples/examples.json, plus the picker's own first entry.
  assert.equal(await again.locator('#example option').count(), examples.length + 1, 'the picker is not doubled');
  assert.equal(await again.locator('#opt-card option').count(), 28, 'the card list is not doubled');  // 27 cards + default
  assert.equal(await again.locator('#opt-fit_card option').count(), 28, 'the fit card list is not doubled');  // 27 + none
  assert.equal(await again.locator('#source-a .source').count(), 1);
  await pasteAndCount(again);
  await again.close();
});

test('no request was attempted and no script error was logged', () => {
  assert.deepEqual(ctx.refused, []);
  assert.deepEqual(ctx.errors, []);
});

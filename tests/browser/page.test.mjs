// tests/browser/page.test.mjs: opens dist/index.html from file:// in the system Chromium with every
// non-file request refused, and checks what a user sees. Not a test of the core's arithmetic (that
// is tests/cpp) beyond the exact counts a user reads. Writes docs/img/page.png (the page as it opens).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

const root = new URL('../../', import.meta.url);
const pageUrl = new URL('dist/index.html', root).href;
const screenshot = new URL('docs/img/page.png', root);
const qwen3b = readFileSync(new URL('web/examples/Qwen2.5-3B.json', root), 'utf8');
const T = { timeout: 30_000 };

let browser;
let page;
const refused = [];
const pageErrors = [];

before(async () => {
  browser = await chromium.launch({
    executablePath: process.env.CARDFIT_CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
    timeout: 30_000,
  });
  const context = await browser.newContext({ viewport: { width: 1200, height: 820 }, colorScheme: 'light' });
  context.setDefaultTimeout(10_000);
  await context.route('**', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    refused.push(url);
    return route.abort();
  });
  page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(m.text()); });
  await page.goto(pageUrl, { waitUntil: 'load' });
}, T);

after(async () => { await browser?.close(); });

const paramsText = () => page.locator('#params-total').textContent();
const waitForParams = (expected) => page.waitForFunction(
  (want) => document.querySelector('#params-total')?.textContent === want, expected);

test('preloads gpt2 and shows its exact parameter count with separators', T, async () => {
  await waitForParams('124,439,808');
  assert.equal(await page.locator('#example option:checked').textContent(), 'openai-community/gpt2');
  assert.match(await page.locator('#config').inputValue(), /"model_type": "gpt2"/);
  // The README's picture: the page as it opens.
  mkdirSync(new URL('.', screenshot), { recursive: true });
  await page.screenshot({ path: screenshot.pathname });
  assert.ok(statSync(screenshot).size < 300_000, 'docs/img/page.png stays under 300 KB');
});

test('a pasted config re-plans at once: Qwen2.5-3B has 3,085,938,688 parameters', T, async () => {
  await page.locator('#config').fill(qwen3b);
  await waitForParams('3,085,938,688');
  assert.equal(await page.locator('#error').isHidden(), true);
});

test('malformed JSON shows a coded error next to the input and keeps the text', T, async () => {
  const broken = qwen3b.replace('"hidden_size": 2048,', '"hidden_size": 2048');
  await page.locator('#config').fill(broken);
  const error = page.locator('#error');
  await error.waitFor({ state: 'visible' });
  assert.match(await error.locator('code').textContent(), /^[a-z_]+\.[a-z_.]+$/, 'a stable error code is shown');
  assert.equal(await page.locator('#config').inputValue(), broken);
  assert.equal(await page.locator('#report.stale').count(), 1, 'the last good report is kept, marked stale');
  await page.locator('#config').fill(qwen3b);
  await error.waitFor({ state: 'hidden' });
  assert.equal(await page.locator('#report.stale').count(), 0);
  assert.equal(await paramsText(), '3,085,938,688');
});

test('choosing an example and then "your own config" restores the pasted text', T, async () => {
  await page.locator('#example').selectOption({ label: 'meta-llama/Meta-Llama-3-8B' });
  await waitForParams('8,030,261,248');
  await page.locator('#example').selectOption({ label: 'your own config' });
  assert.equal(await page.locator('#config').inputValue(), qwen3b);
  assert.equal(await paramsText(), '3,085,938,688');
});

test('no request left the page and no script error was logged', () => {
  assert.deepEqual(refused, []);
  assert.deepEqual(pageErrors, []);
});

// tests/browser/hub.test.mjs: a hub id typed into the page. A static server on 127.0.0.1 mimics the
// Hugging Face hub's URL layout ({org}/{name}/resolve/{revision}/{file}) with real Range support and
// a CDN-style redirect for the weights; the page's hub base is pointed at it through the share-link
// state (#v1&hub=...). Checked: config + safetensors header by two Range requests (206), a sharded
// model's index, a revision, a gated repo (401), a missing one (404), the hub unreachable. Every
// other request is refused; the server's log shows what the browser asked for.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, context, openPage, rerendered, waitForText, readText, safetensorsFixture, indexFixture, startServer, pageUrl, T } from './helpers.mjs';

let browser, ctx, page, hub, fixture;

before(async () => {
  fixture = await safetensorsFixture({ weightBytes: 256 * 1024 });
  hub = await startServer({
    repos: {
      'openai-community/gpt2': { files: { 'config.json': readText('web/examples/gpt2.json'), 'model.safetensors': fixture.file }, redirect: true },
      'Qwen/Qwen2.5-7B': { files: { 'config.json': readText('web/examples/Qwen2.5-7B.json'), 'model.safetensors.index.json': indexFixture(fixture.headerText) } },
      'meta-llama/Meta-Llama-3-8B': { status: 401 },
      'org/no-weights': { files: { 'config.json': readText('web/examples/Qwen2.5-3B.json') } },
    },
  });
  browser = await launch();
  ctx = await context(browser, { allow: [hub.base] });
  page = await openPage(ctx, `${pageUrl}#v1&hub=${encodeURIComponent(hub.base)}`);
}, T);

after(async () => {
  await browser?.close();
  await hub?.close();
});

async function fetchId(id) {
  hub.log.length = 0;
  await page.locator('#hub-id').fill(id);
  await page.locator('#hub-form button[type=submit]').click();
}

test('org/name: config.json, then the safetensors header with two Range requests (206), never the weights', T, async () => {
  await rerendered(page, () => fetchId('openai-community/gpt2'));
  await waitForText(page, '#checkpoint-scalars', '137,022,720');
  assert.equal(await page.locator('#params-total').textContent(), '124,439,808');
  assert.match(await page.locator('#hub-status').textContent(), /Fetched openai-community\/gpt2: config\.json and the safetensors header/);
  const gets = hub.log.filter((r) => r.method === 'GET');
  assert.equal(gets[0].path, '/openai-community/gpt2/resolve/main/config.json');
  assert.equal(gets[1].path, '/openai-community/gpt2/resolve/main/model.safetensors.index.json');
  const ranges = gets.filter((r) => r.range).map((r) => [r.path.replace(/^\/cdn\/[^/]+/, '/cdn'), r.range]);
  const n = fixture.headerLength;
  assert.deepEqual(ranges, [
    ['/openai-community/gpt2/resolve/main/model.safetensors', 'bytes=0-7'],
    ['/cdn/model.safetensors', 'bytes=0-7'],
    ['/openai-community/gpt2/resolve/main/model.safetensors', `bytes=8-${8 + n - 1}`],
    ['/cdn/model.safetensors', `bytes=8-${8 + n - 1}`],
  ], 'the redirect to the CDN keeps the Range header');
  assert.ok(gets.every((r) => !/safetensors$/.test(r.path) || r.range), 'no request for the whole file');
  // The share link keeps the fetched config (it works offline later) and names its hub id.
  await page.waitForFunction(() => /&ax=openai-community%2Fgpt2/.test(location.hash));
});

test('a sharded model: the index is used, and a revision is honoured', T, async () => {
  await rerendered(page, () => fetchId('Qwen/Qwen2.5-7B@main'));
  await waitForText(page, '#params-total', '7,615,616,512');
  assert.match(await page.locator('#count').textContent(), /read from model\.safetensors\.index\.json/);
  assert.ok(!hub.log.some((r) => /model\.safetensors$/.test(r.path)), 'no header request when the index exists');
  await fetchId('https://huggingface.co/Qwen/Qwen2.5-7B/tree/v1.0');
  await page.waitForFunction(() => /Fetched Qwen\/Qwen2\.5-7B@v1\.0/.test(document.querySelector('#hub-status').textContent));
  assert.equal(hub.log[0].path, '/Qwen/Qwen2.5-7B/resolve/v1.0/config.json');
});

test('a model without weights on the hub is planned, and says it is not reconciled', T, async () => {
  await rerendered(page, () => fetchId('org/no-weights'));
  await waitForText(page, '#params-total', '3,085,938,688');
  assert.match(await page.locator('#hub-status').textContent(), /not reconciled with a checkpoint/);
});

test('a gated repo (401) says so and suggests pasting; a missing one says 404; a bad id is caught', T, async () => {
  await fetchId('meta-llama/Meta-Llama-3-8B');
  await page.waitForFunction(() => /gated/.test(document.querySelector('#hub-status').textContent));
  assert.match(await page.locator('#hub-status').textContent(), /meta-llama\/Meta-Llama-3-8B is gated or private.*Paste its config\.json instead/);
  assert.equal(await page.locator('#params-total').textContent(), '3,085,938,688', 'the last plan stays');
  await fetchId('nobody/nothing');
  await page.waitForFunction(() => /HTTP 404/.test(document.querySelector('#hub-status').textContent));
  await fetchId('not a hub id');
  await page.waitForFunction(() => /is not a hub id/.test(document.querySelector('#hub-status').textContent));
});

test('the hub unreachable: a clear message, and the page keeps working', T, async () => {
  const offline = await context(browser);  // loopback refused too
  const p = await openPage(offline, `${pageUrl}#v1&hub=${encodeURIComponent(hub.base)}`);
  await p.locator('#hub-id').fill('openai-community/gpt2');
  await p.locator('#hub-form button[type=submit]').click();
  await p.waitForFunction(() => /could not be reached|offline/.test(document.querySelector('#hub-status').textContent));
  assert.match(await p.locator('#hub-status').textContent(), /Paste the config/);
  assert.equal(await p.locator('#params-total').textContent(), '124,439,808');
  assert.equal(offline.refused.length, 1);
  await offline.close();
  assert.deepEqual(ctx.refused, []);
  assert.deepEqual(ctx.errors, []);
});

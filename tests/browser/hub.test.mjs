// tests/browser/hub.test.mjs: a hub id typed into the page. The mock hub (tests/mock-hub.mjs) on
// 127.0.0.1 answers as the Hugging Face hub does (resolve URLs with Range and a CDN redirect, the
// model API, commits with Link pagination, X-Error-Code errors); the page's hub base is pointed at
// it through the share-link state (#v1&hub=...). Checked: config + safetensors header by two Range
// requests (206), a sharded model's index with the hub's safetensors.total reconciled, the
// metadata shown, the revision history with each field's effect, a token kept out of the link and
// storage, a revision, gated (401), missing (401 RepoNotFound), rate-limited (429), offline and
// unreachable. Every other request is refused; the server's log shows what the browser asked for.
import { test, before, after } from 'node:test';
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { launch, context, openPage, rerendered, waitForText, readText, safetensorsFixture, indexFixture, startServer, pageUrl, T } from './helpers.mjs';
import { historyRepo, historyCommits, HISTORY_ID } from '../hub-fixtures.mjs';

let browser, ctx, page, hub, fixture;

before(async () => {
  fixture = await safetensorsFixture({ weightBytes: 256 * 1024 });
  hub = await startServer({
    repos: {
      'openai-community/gpt2': { files: { 'config.json': readText('web/examples/gpt2.json'), 'model.safetensors': fixture.file }, redirect: true,
        info: { downloads: 14612345, likes: 2950, lastModified: '2024-02-19T10:57:45.000Z', library_name: 'transformers', pipeline_tag: 'text-generation', safetensors: { parameters: { F32: 137022720 }, total: 137022720 } } },
      [HISTORY_ID]: await historyRepo(),
      'acme/gated': { files: { 'config.json': readText('web/examples/Qwen2.5-3B.json') }, token: 'hf_page_test_token', info: { gated: 'manual' } },
      'acme/busy': { status: 429 },
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
  const gets = hub.log.filter((r) => r.method === 'GET' && !r.path.startsWith('/api/'));
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

test('a gated repo (401) says so and suggests pasting; a missing one says so; 429; a bad id is caught', T, async () => {
  await fetchId('meta-llama/Meta-Llama-3-8B');
  await page.waitForFunction(() => /gated/.test(document.querySelector('#hub-status').textContent));
  assert.match(await page.locator('#hub-status').textContent(), /meta-llama\/Meta-Llama-3-8B is gated or private \(HTTP 401\).*token.*Paste the config\.json instead/);
  // Nothing of the model before stays: its config and plan would read as this id's.
  assert.equal(await page.locator('#config').inputValue(), '');
  assert.equal(await page.locator('#params-total').count(), 0);
  assert.match(await page.locator('#no-plan').textContent(), /meta-llama\/Meta-Llama-3-8B could not be fetched/);
  await fetchId('nobody/nothing');
  await page.waitForFunction(() => /not found on the hub \(HTTP 401 RepoNotFound\)/.test(document.querySelector('#hub-status').textContent));
  await fetchId('acme/busy');
  await page.waitForFunction(() => /rate-limiting.*HTTP 429.*wait 60 s/.test(document.querySelector('#hub-status').textContent));
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

test('the hub metadata: downloads, likes, last modified, gated, library, pipeline, hub total', T, async () => {
  await rerendered(page, () => fetchId('openai-community/gpt2'));
  await page.locator('#hub-meta').waitFor();
  const meta = await page.locator('#hub-meta dd').evaluateAll((dds) => Object.fromEntries(dds.map((d) => [d.dataset.field, d.textContent])));
  assert.deepEqual(meta, { downloads: '14.6M', likes: '3.0K', 'last-modified': '2024-02-19', gated: 'no', library: 'transformers', pipeline: 'text-generation', 'hub-parameter-total': '137,022,720' });
  assert.equal(await page.locator('#hub-meta dd[data-field=downloads]').getAttribute('title'), '14,612,345');
  assert.deepEqual(hub.log, [], 'fetched in the first test: served from the cache per id and revision');
});

test('a sharded model: the hub\'s safetensors.total is reconciled by the index\'s names', T, async () => {
  await rerendered(page, () => fetchId(HISTORY_ID));
  await waitForText(page, '#checkpoint-scalars', '3,085,938,688');
  assert.equal(await page.locator('#reconciliation').textContent(), '3,085,938,688 = 3,085,938,688 parameters + 0 buffers + 0 unexplained');
  assert.match(await page.locator('#count').textContent(), /the stated total \(checkpoint_total: the hub's safetensors\.total for a hub id\), tensor names from model\.safetensors\.index\.json/);
  assert.equal(await page.locator('#hub-meta dd[data-field=downloads]').textContent(), '711.2K');
});

test('the revision history: commits over two pages, config.json per commit, each field\'s effect', T, async () => {
  hub.log.length = 0;
  await page.locator('#history-open').click();
  await page.locator('#history-changes[data-done=true]').waitFor({ timeout: 45_000 });
  assert.deepEqual(hub.log.filter((r) => r.path.includes('/commits/')).map((r) => r.query), ['?limit=100', '?limit=2&p=1'], 'the Link header was followed');
  for (const file of ['config.json', 'model.safetensors.index.json']) {
    const at = hub.log.filter((r) => r.path.endsWith(`/${file}`)).map((r) => r.path.split('/')[4]);
    assert.deepEqual(at.sort(), historyCommits.map((c) => c.id).sort(), `${file} read at each commit`);
  }
  assert.equal(await page.locator('#history-commits li').count(), 3);
  assert.equal(await page.locator('.history-change').count(), 1, 'the README commit changed nothing');
  const change = page.locator('.history-change');
  assert.equal(await change.getAttribute('data-from'), historyCommits[1].id);
  assert.equal(await change.getAttribute('data-to'), historyCommits[0].id);
  const tie = change.locator('tr[data-path="$.tie_word_embeddings"]');
  assert.equal(await tie.getAttribute('class'), 'changes');
  assert.match(await tie.locator('td.effect').textContent(), /^parameters −311,164,928; Full fine-tune memory −[\d.]+ GB; LoRA memory −[\d.]+ (GB|MB)/);
  assert.equal(await change.locator('tr[data-path="$.max_position_embeddings"] td.effect').textContent(), 'no effect on memory or cost');
  assert.match(await change.locator('.whole').textContent(), /^The whole change: parameters −311,164,928; /);
  assert.match(await change.locator('.index-change').textContent(), /^Checkpoint index: total_size [\d,]+ → [\d,]+ bytes; removed lm_head\.weight\.$/);
  assert.match(await page.locator('#history-status').textContent(), /3 revisions checked, config\.json read at 3; 1 change/);
  // Unchecking the newest commit leaves no change to show.
  await page.locator('#history-commits input').first().uncheck();
  await page.locator('#history-analyse').click();
  await page.waitForFunction(() => /2 revisions checked.*0 changes/.test(document.querySelector('#history-status').textContent));
  assert.equal(await page.locator('.history-change').count(), 0);
});

test('a gated model with a pasted token: fetched, and the token is in no link and no storage', T, async () => {
  await page.locator('.hub-token summary').click();
  await page.locator('#hub-token').fill('hf_page_test_token');
  hub.log.length = 0;
  await rerendered(page, () => fetchId('acme/gated'));
  await waitForText(page, '#params-total', '3,085,938,688');
  assert.equal(await page.locator('#hub-meta dd[data-field=gated]').textContent(), 'yes (manual)');
  assert.ok(hub.log.length && hub.log.every((r) => r.auth === 'Bearer hf_page_test_token'));
  await page.waitForFunction(() => /acme%2Fgated/.test(location.hash));
  const where = await page.evaluate(() => [location.href, JSON.stringify({ ...localStorage }), JSON.stringify({ ...sessionStorage }), document.querySelector('#embed-snippet').value].join(' '));
  assert.ok(!where.includes('hf_page_test_token'), 'the token stays in memory');
  await page.locator('#copy-link').click();
  assert.ok(!(await page.evaluate(() => location.href)).includes('hf_page_test_token'));
});

test('offline: the panel says so, and a fetch says so', T, async () => {
  const off = await context(browser, { allow: [hub.base] });
  const p = await openPage(off, `${pageUrl}#v1&hub=${encodeURIComponent(hub.base)}`);
  assert.equal(await p.locator('#hub-offline').isVisible(), false);
  await off.setOffline(true);
  await p.locator('#hub-offline').waitFor();
  await p.locator('#hub-id').fill('openai-community/gpt2');
  await p.locator('#hub-form button[type=submit]').click();
  await p.waitForFunction(() => /^You are offline/.test(document.querySelector('#hub-status').textContent));
  assert.equal(await p.locator('#params-total').textContent(), '124,439,808', 'the page keeps planning');
  await off.close();
  assert.deepEqual(ctx.errors, []);
});

test('the export menu writes the training configs from the current plan', T, async () => {
  await rerendered(page, () => fetchId(HISTORY_ID));
  await rerendered(page, async () => {
    await page.locator('#opt-batch').fill('3');
    await page.locator('#opt-grad_accum').fill('5');
  });
  await page.locator('#exports summary').click();
  const get = async (id) => {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(`[data-train-export=${id}]`).click()]);
    return { name: dl.suggestedFilename(), text: readFileSync(await dl.path(), 'utf8') };
  };
  const ds = await get('deepspeed');
  assert.equal(ds.name, 'qwen-history.ds_config.json');
  assert.deepEqual([JSON.parse(ds.text).train_micro_batch_size_per_gpu, JSON.parse(ds.text).gradient_accumulation_steps], [3, 5]);
  const measure = await get('measure');
  assert.equal(measure.name, 'qwen-history.measure.py');
  assert.match(measure.text, /PLAN = json\.loads\(".*\\"micro_batch\\": ?3, ?\\"grad_accum\\": ?5/);
  const axolotl = await get('axolotl');
  assert.match(axolotl.text, /^base_model: "acme\/qwen-history"$/m);
  assert.match(await page.locator('#plan-status').textContent(), /Axolotl config \(\.yaml\): downloaded/);
  assert.deepEqual(ctx.errors, []);
});

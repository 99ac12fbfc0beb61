// tests/browser/page.test.mjs: dist/index.html opened from file:// in Debian's Chromium with every
// non-file request refused, driven as a user would: the preloaded example, paste → plan, errors that
// point at the line and field, live re-planning on every option change, the share link round trip,
// the exports, the compare view, text-only rendering of config strings, labels and keyboard, phone
// width in dark mode. Takes the README's screenshots (see helpers.mjs screenshotDir). Not a test of the core's
// arithmetic (tests/cpp) beyond the exact counts a user reads.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, mkdirSync } from 'node:fs';
import { launch, context, openPage, rerendered, waitForText, readText, contrasts, pageUrl, root, T, screenshotDir, screenshotPath } from './helpers.mjs';

const img = screenshotPath;
const qwen3b = readText('web/examples/Qwen2.5-3B.json');
const llama = readText('web/examples/Meta-Llama-3-8B.json');
let browser, ctx, page;
const timings = {};
// Text that must stay readable (WCAG AA, 4.5:1) in both themes.
const CONTRAST = ['body', '.tagline', '.hero .muted', '.stat h3', '#cards td.fit.borderline', '#cards td.fit small', '#cards td.fit.split',
  '#assumptions a.option-link', '.chart .tick', 'caption', '.sev.info', '#plan-status', '.chip', 'tr.cheapest th'];
async function readable(p) {
  const low = (await contrasts(p, CONTRAST)).filter((c) => c.ratio !== null && c.ratio < 4.5);
  assert.deepEqual(low, [], 'contrast below 4.5:1');
}

async function shot(target, name) {
  mkdirSync(screenshotDir, { recursive: true });
  await target.screenshot({ path: img(name) });
  const size = statSync(img(name)).size;
  assert.ok(size < 300_000, `${name} is ${size} bytes: keep it under 300 KB`);
}

before(async () => {
  browser = await launch();
  ctx = await context(browser);
  const t0 = Date.now();
  page = await openPage(ctx);
  timings.firstPlanWallMs = Date.now() - t0;
}, T);

after(async () => { await browser?.close(); });

test('opens on gpt2 with its exact count, the checkpoint reconciled, charts and the card table', T, async (t) => {
  await waitForText(page, '#params-total', '124,439,808');
  timings.firstPlanMs = await page.evaluate(() => performance.getEntriesByName('cardfit:first-plan')[0].startTime);
  t.diagnostic(`navigation → first plan: ${timings.firstPlanMs.toFixed(0)} ms (performance mark); ${timings.firstPlanWallMs} ms wall clock including the browser's own start of the page`);
  assert.equal(await page.locator('#example option:checked').textContent(), 'openai-community/gpt2');
  assert.match(await page.locator('#config').inputValue(), /"model_type": "gpt2"/);
  assert.match(await page.locator('#headline').textContent(), /^A full fine-tune of openai-community\/gpt2 at batch 1 and 512 tokens in bf16-mixed takes about [\d.]+ GB/);
  assert.equal(await page.locator('#checkpoint-scalars').textContent(), '137,022,720');
  assert.equal(await page.locator('#reconciliation').textContent(), '137,022,720 = 124,439,808 parameters + 12,582,912 buffers + 0 unexplained');
  assert.equal(await page.locator('#memory svg.bars rect.seg').count() > 8, true, 'stacked memory bars are drawn');
  assert.equal(await page.locator('#batch svg.curve polyline.mode-line').count(), 4, 'one batch curve per mode');
  assert.equal(await page.locator('#cards table.cards tbody tr').count(), 27);  // data/cards.json, by capacity
  assert.match(await page.locator('#cost-cheapest').textContent(), /\$\d/);
  assert.equal(await page.locator('#structure details.struct-block').count(), 0, 'the graph is asked for only when opened');
  assert.ok(await page.locator('#checks li.check').count() >= 1);
  assert.ok(await page.locator('#assumptions a.option-link').count() >= 8, 'assumptions link to their options');
  assert.equal(await page.locator('button', { hasText: /^(compute|plan|calculate)$/i }).count(), 0, 'no compute button');
  await readable(page);
  await page.mouse.move(0, 0);
  await page.setViewportSize({ width: 1200, height: 1020 });
  await shot(page, 'page.png');
  await page.setViewportSize({ width: 1200, height: 820 });
});

test('the structure table folds by block and shows shapes, params, FLOPs and saved bytes', T, async () => {
  await page.locator('#a-graph > summary').click();
  await page.locator('#structure details.struct-block').nth(2).waitFor();
  assert.ok(await page.locator('#structure details.struct-block').count() >= 3);
  const block = page.locator('#structure details.struct-block').nth(1);
  await block.locator('summary').click();
  await block.locator('thead th').first().waitFor();
  const headers = await block.locator('thead th').allTextContents();
  assert.deepEqual(headers, ['Node', 'Op', 'Output shape', 'Parameters', 'FLOPs / token', 'Saved for backward']);
  assert.match(await block.locator('tbody tr').first().textContent(), /1 × 512 × 768/);
  assert.match(await block.locator('summary').textContent(), /× 12/, 'the 12 identical layers are folded into one block');
  await page.getByRole('button', { name: 'Fold all', exact: true }).click();
  assert.equal(await page.locator('#structure details.struct-block[open]').count(), 0);
  await page.locator('#a-graph > summary').click();
});

test('the tensor list and the Markdown twin are asked of the core when opened', T, async () => {
  await page.locator('#a-tensors > summary').click();
  await page.locator('#a-tensors tbody tr').first().waitFor();
  assert.match(await page.locator('#a-tensors tbody tr').first().textContent(), /transformer\.wte\.weight/);
  await page.locator('#markdown-twin > summary').click();
  await page.locator('#markdown-twin pre').waitFor();
  assert.match(await page.locator('#markdown-twin pre').textContent(), /^# gpt2: GPU memory and cost[\s\S]*124,439,808/);
  await page.locator('#a-tensors > summary').click();
  await page.locator('#markdown-twin > summary').click();
});

test('a pasted config plans as you type: Qwen2.5-3B has 3,085,938,688 parameters', T, async () => {
  await page.locator('#config').fill(qwen3b);
  await waitForText(page, '#params-total', '3,085,938,688');
  assert.equal(await page.locator('#error').isHidden(), true);
  assert.equal(await page.locator('#example option:checked').textContent(), 'your own config');
});

test('malformed JSON: a coded error at its line, a button that selects the line, the last report kept', T, async () => {
  const broken = qwen3b.replace('"hidden_size": 2048,', '"hidden_size": 2048');
  await page.locator('#config').fill(broken);
  const error = page.locator('#error');
  await error.waitFor({ state: 'visible' });
  assert.match(await error.locator('code').textContent(), /^config\.json_syntax$/);
  const line = broken.split('\n').findIndex((l) => l.includes('"hidden_size": 2048')) + 1;  // where the comma belongs
  assert.match(await error.textContent(), new RegExp(`line ${line}, column \\d+`));
  assert.match(await error.textContent(), /expected ',' or '\}' after the value/);
  assert.equal(await page.locator('#config').getAttribute('aria-invalid'), 'true');
  assert.equal(await page.locator('#report.stale').count(), 1, 'the last good report stays, marked stale');
  await error.locator('button', { hasText: `Go to line ${line}` }).click();
  const selected = await page.evaluate(() => { const t = document.querySelector('#config'); return t.value.slice(t.selectionStart, t.selectionEnd); });
  assert.equal(selected, broken.split('\n')[line - 1]);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'config');
});

test('a wrong field: the error names the field and the line it is on', T, async () => {
  const bad = qwen3b.replace('"num_attention_heads": 16', '"num_attention_heads": "16"');
  await page.locator('#config').fill(bad);
  const error = page.locator('#error');
  await page.waitForFunction(() => /num_attention_heads/.test(document.querySelector('#error')?.textContent || ''));
  const line = bad.split('\n').findIndex((l) => l.includes('"num_attention_heads"')) + 1;
  assert.match(await error.textContent(), new RegExp(`config\\.field_type .*\\(\\$\\.num_attention_heads, line ${line}\\)`));
  await page.locator('#config').fill(qwen3b);
  await error.waitFor({ state: 'hidden' });
  assert.equal(await page.locator('#report.stale').count(), 0);
  assert.equal(await page.locator('#params-total').textContent(), '3,085,938,688');
});

test('every option change re-plans at once, and one re-plan is timed', T, async (t) => {
  await rerendered(page, () => page.locator('input[name=mode][value=lora]').check());
  assert.match(await page.locator('#your-plan').textContent(), /^Your plan: LoRA, batch 1/);
  const before = await page.locator('#plan-reserved').textContent();
  // Let the worker tier its code up as a user's first seconds would, then time one change.
  await page.waitForTimeout(1500);
  const t0 = await page.evaluate(() => performance.now());
  await rerendered(page, () => page.locator('#opt-batch').fill('8'));
  const t1 = await page.evaluate(() => performance.now());
  const inPage = Number(await page.evaluate(() => document.querySelector('#report').dataset.roundTripMs));
  timings.replanMs = inPage;
  t.diagnostic(`one live re-plan (batch 1 → 8, Qwen2.5-3B, LoRA): ${inPage.toFixed(0)} ms from the input event to the rendered report (${(t1 - t0).toFixed(0)} ms as the test driver sees it)`);
  assert.match(await page.locator('#your-plan').textContent(), /^Your plan: LoRA, batch 8/);
  assert.notEqual(await page.locator('#plan-reserved').textContent(), before);
  assert.match(await page.locator('#plan-status').textContent(), /Re-evaluated for the new batch/, 'a batch change needs no core call');
  await rerendered(page, () => page.locator('#opt-precision').selectOption('fp32'));
  assert.equal((await page.evaluate(() => document.querySelector('#json-report') && 1)), 1);
  await rerendered(page, () => page.locator('#opt-grad_ckpt').selectOption('true'));  // unset: on for QLoRA only
  await rerendered(page, () => page.locator('#opt-lora_targets input[value=q_proj]').check());
  const assumptions = await page.locator('#assumptions').textContent();
  assert.match(assumptions, /fp32/);
  await rerendered(page, () => page.locator('#opt-card').selectOption('h100-sxm'));
  assert.match(await page.locator('#cost-priced').textContent(), /H100 80GB SXM5/);
  await rerendered(page, () => page.locator('#opt-samples').fill('1000'));
  assert.match(await page.locator('#cost').textContent(), /1,000 samples/);
});

test('a bad option value is shown at its field with the core\'s code', T, async () => {
  await page.locator('#opt-lora_rank').fill('0');
  await page.locator('#state-error').waitFor({ state: 'visible' });
  assert.match(await page.locator('#state-error').textContent(), /options\.value .*lora_rank/);
  assert.equal(await page.locator('#opt-lora_rank').getAttribute('aria-invalid'), 'true');
  await page.locator('#opt-lora_rank').fill('8');
  await page.locator('#state-error').waitFor({ state: 'hidden' });
  assert.equal(await page.locator('#opt-lora_rank').getAttribute('aria-invalid'), null);
});

test('an assumption links to its option', T, async () => {
  await page.locator('#assumptions a.option-link', { hasText: /^seq$/ }).first().click();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'opt-seq');
  await page.locator('#assumptions a.option-link', { hasText: /^allocator_reserve$/ }).first().click();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'opt-allocator_reserve');
  assert.equal(await page.locator('#more-options').getAttribute('open'), '', 'the folded options open to show it');
});

test('the share link reproduces the plan in a fresh page, and nothing reaches a server', T, async () => {
  const edited = qwen3b.replace('"max_window_layers": 36', '"max_window_layers": 35');
  await rerendered(page, () => page.locator('#config').fill(edited));
  await rerendered(page, () => page.locator('input[name=mode][value=qlora]').check());
  await page.waitForFunction(() => /mode=qlora/.test(location.hash));
  const link = await page.evaluate(() => location.href);
  assert.match(link, /^file:.*#v1&a=z\.[\w-]+/, 'versioned fragment with the compressed config');
  assert.match(link, /&mode=qlora&/);
  assert.match(link, /&batch=8/);
  assert.match(link, /&lora_targets=q_proj/);
  const want = {
    params: await page.locator('#params-total').textContent(),
    plan: await page.locator('#your-plan').textContent(),
    reserved: await page.locator('#plan-reserved').textContent(),
    headline: await page.locator('#headline').textContent(),
  };
  const fresh = await openPage(ctx, link);
  await waitForText(fresh, '#params-total', want.params);
  assert.equal(await fresh.locator('#config').inputValue(), edited);
  assert.equal(await fresh.locator('#your-plan').textContent(), want.plan);
  assert.equal(await fresh.locator('#plan-reserved').textContent(), want.reserved);
  assert.equal(await fresh.locator('#headline').textContent(), want.headline);
  assert.equal(await fresh.locator('#opt-batch').inputValue(), '8');
  assert.equal(await fresh.locator('#opt-precision').inputValue(), 'fp32');
  assert.equal(await fresh.locator('input[name=mode][value=qlora]').isChecked(), true);
  assert.equal(await fresh.locator('#opt-lora_targets input[value=q_proj]').isChecked(), true);
  await fresh.close();
  // A short, readable link naming an embedded example.
  const short = await openPage(ctx, `${pageUrl}#v1&a=ex:Qwen/Qwen2.5-7B&mode=serve&serve_seq=8192`);
  await waitForText(short, '#params-total', '7,615,616,512');
  assert.match(await short.locator('#your-plan').textContent(), /^Your plan: Serve, batch 1, 8,192 tokens/);
  await short.close();
  // A link from a newer format says so instead of guessing.
  const future = await ctx.newPage();
  await future.goto(`${pageUrl}#v9&a=j.e30`);
  await future.locator('#state-error').waitFor({ state: 'visible' });
  assert.match(await future.locator('#state-error').textContent(), /format v9/);
  await future.close();
  assert.deepEqual(ctx.refused, []);
});

test('exports: Markdown twin, JSON report, CSV card table, badge JSON, embed snippet', T, async () => {
  await rerendered(page, () => page.locator('#example').selectOption({ label: 'openai-community/gpt2' }));
  await page.locator('#exports summary').click();
  const get = async (kind) => {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(`[data-export=${kind}]`).click()]);
    return { name: dl.suggestedFilename(), body: readFileSync(await dl.path(), 'utf8') };
  };
  const md = await get('markdown');
  assert.equal(md.name, 'gpt2.cardfit.md');
  assert.match(md.body, /124,439,808/);
  const json = await get('json');
  const report = JSON.parse(json.body);
  assert.equal(report.schema, 'cardfit.report/2');
  assert.equal(report.params.total, 124439808);
  assert.equal(report.markdown, undefined, 'the JSON export is the core report; the Markdown twin is its own call');
  assert.match(md.body, /^# gpt2: GPU memory and cost/);
  const csv = await get('csv');
  const rows = csv.body.trim().split('\r\n');
  assert.equal(rows.length, 1 + report.cards.length);
  assert.match(rows[0], /^card_id,card,capacity_bytes,usd_per_gpu_hr,full_max_batch,/);
  assert.match(rows[1], new RegExp(`^${report.cards[0].id},${report.cards[0].name},${report.cards[0].capacity_bytes},`));
  assert.match(rows[0], /,bf16,dense_tflops,mem_bw_gbps,train_cards,train_step_seconds,train_tokens_per_s,run_hours,run_usd$/);
  const badge = JSON.parse((await get('badge')).body);
  assert.equal(badge.schemaVersion, 1);
  assert.match(badge.message, /full [\d.]+ GB · LoRA [\d.]+ GB · serve [\d.]+ GB/);
  const snippet = await page.locator('#embed-snippet').inputValue();
  assert.match(snippet, /^<script src="cardfit-widget\.js" defer><\/script>\n<cardfit-plan mode="qlora"/);
  assert.match(snippet, /<script type="application\/json">\{"activation_function":"gelu_new"/);
  await page.locator('#exports summary').click();
});

test('config strings are rendered as text, never as markup', T, async () => {
  const hostile = JSON.stringify({ ...JSON.parse(llama), model_type: '<img src=x onerror="window.__pwned=1">', architectures: ['<script>window.__pwned=2</script>'] }, null, 2);
  await rerendered(page, () => page.locator('#config').fill(hostile));
  assert.match(await page.locator('.hero').textContent(), /<img src=x onerror="window.__pwned=1">/);
  assert.equal(await page.locator('#report img, #report script').count(), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
});

test('compare: two revisions of one config, differences that change memory or cost highlighted', T, async () => {
  await rerendered(page, () => page.locator('#example').selectOption({ label: 'meta-llama/Meta-Llama-3-8B' }));
  await rerendered(page, () => page.locator('input[name=mode][value=full]').check());
  await page.locator('input[name=view][value=compare]').check();
  await page.locator('#compare-metrics').waitFor();
  const revised = llama.replace('"num_key_value_heads": 8', '"num_key_value_heads": 4').replace('"rope_theta": 500000.0', '"rope_theta": 1000000.0');
  await page.locator('#b-config').fill(revised);
  await page.locator('#config-diff tr[data-path="$.rope_theta"]').waitFor();
  await page.waitForFunction(() => [...document.querySelectorAll('#config-diff td.effect')].every((td) => td.textContent !== 'asking the core…'));
  const changes = await page.locator('#config-diff tr.changes').evaluateAll((rows) => rows.map((r) => r.dataset.path));
  assert.deepEqual(changes, ['$.num_key_value_heads']);
  assert.match(await page.locator('#config-diff tr[data-path="$.rope_theta"] td.effect').textContent(), /no effect on memory or cost/);
  const differs = await page.locator('#compare-metrics tr.differs th').allTextContents();
  assert.ok(differs.includes('Parameters') && differs.includes('KV heads'), differs.join(', '));
  assert.ok(!differs.includes('Layers'));
  assert.ok(differs.some((d) => /^Full fine-tune/.test(d)));
  await page.mouse.move(0, 0);
  await page.locator('#results').evaluate((e) => e.scrollIntoView());
  await shot(page, 'compare.png');
  // The link carries both models and the view.
  await page.waitForFunction(() => /&b=z\./.test(location.hash) && /view=compare/.test(location.hash));
  await page.locator('input[name=view][value=plan]').check();
});

test('a large model: gemma-2-9b-it full fine-tune needs a multi-card cut on most cards', T, async () => {
  await rerendered(page, () => page.locator('#reset-options').click());
  await rerendered(page, () => page.locator('#example').selectOption({ label: 'google/gemma-2-9b-it' }));
  await waitForText(page, '#params-total', '9,241,705,984');
  const splits = page.locator('#cards tbody tr[data-card=h200] td.fit.split');
  assert.equal(await splits.count(), 1, 'H200: full fine-tune is a cut across cards');
  assert.match(await splits.first().textContent(), /^2 cards/);
  assert.match(await page.locator('#cards tbody tr[data-card=t4] td.fit').first().textContent(), /cards|does not fit/);
  await page.locator('#cards').evaluate((e) => e.scrollIntoView());
  await page.evaluate(() => window.scrollBy(0, -60));
  await shot(page, 'gemma-2-9b-it-full.png');
});

test('every option of the core (docs/api.md) has its field in the options panel', T, async () => {
  const section = readText('docs/api.md').split('## Options')[1].split('\n## ')[0];
  const names = section.split('\n').filter((l) => l.startsWith('| `')).flatMap((l) => [...l.split('|')[1].matchAll(/`([a-z_]+)`/g)].map((m) => m[1]));
  assert.ok(names.length >= 30, names.join(' '));
  const fromFiles = new Set(['safetensors_header', 'safetensors_index']);  // the file drop and the hub fetch
  const missing = await page.evaluate((list) => list.filter((n) => !document.querySelector(`#options [name="${n}"], #opt-${n}`)), names.filter((n) => !fromFiles.has(n)));
  assert.deepEqual(missing, []);
});

test('every form control has a label, and the keyboard reaches the options', T, async () => {
  const unlabeled = await page.evaluate(() => [...document.querySelectorAll('input, select, textarea, button')]
    .filter((e) => e.offsetParent !== null || e.type === 'file')
    .filter((e) => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.getAttribute('aria-labelledby') && !(e.tagName === 'BUTTON' && e.textContent.trim()))
    .map((e) => e.id || e.name || e.outerHTML.slice(0, 60)));
  assert.deepEqual(unlabeled, []);
  await page.locator('#opt-seq').focus();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'opt-batch');
});

test('phone width in dark mode: no sideways scrolling of the page, dark colours', T, async () => {
  const phone = await context(browser, { viewport: { width: 390, height: 844 }, colorScheme: 'dark', deviceScaleFactor: 1, isMobile: true, hasTouch: true });
  const p = await openPage(phone);
  await waitForText(p, '#params-total', '124,439,808');
  const m = await p.evaluate(() => ({ sw: document.documentElement.scrollWidth, w: window.innerWidth, bg: getComputedStyle(document.body).backgroundColor }));
  assert.ok(m.sw <= m.w + 1, `page is ${m.sw}px wide in a ${m.w}px viewport`);
  assert.equal(m.bg, 'rgb(18, 21, 25)');
  await readable(p);
  await p.locator('#memory').evaluate((e) => e.scrollIntoView());
  await shot(p, 'phone-dark.png');
  assert.deepEqual(phone.errors, []);
  assert.deepEqual(phone.refused, []);
  await phone.close();
});

test('no request left the page and no script error was logged', (t) => {
  t.diagnostic(`timings: ${JSON.stringify(timings)}`);
  assert.deepEqual(ctx.refused, []);
  assert.deepEqual(ctx.errors, []);
});

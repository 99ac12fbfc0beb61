// tests/browser/review.test.mjs: the page fixes from a newcomer's review (issue 12): a checkpoint
// header without gpt2's causal masks, share links that fail loudly (and carry the units), a failed
// hub fetch that leaves nothing of the previous model on screen, the phone layout (results first,
// the card table reflowed, chart labels inside the drawing), batch-chart lines at each card's
// usable bytes, a headline that follows mode, batch and precision and names the model, the
// structure's attention windows and one unit per column, GiB against GB where the two meet, and
// the measured accuracy next to the estimate. Each test failed before its fix. Not a test of the
// core's arithmetic (tests/cpp).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, context, openPage, rerendered, waitForText, readText, gpt2Report, startServer, pageUrl, root, T } from './helpers.mjs';

let browser, ctx, page, hub;
const gemma = readText('web/examples/gemma-2-9b-it.json');
const qwen3b = readText('web/examples/Qwen2.5-3B.json');

before(async () => {
  hub = await startServer({
    dir: new URL('dist/', root),
    repos: {
      'Qwen/Qwen2.5-3B': { files: { 'config.json': qwen3b } },
      'acme/private': { status: 401 },
    },
    pages: {
      '/widget.html': `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>w</title></head><body>
<cardfit-plan id="w" batch="2" mode="lora" label="google/gemma-2-9b-it"><script type="application/json">${JSON.stringify(JSON.parse(gemma))}</script></cardfit-plan>
<script src="/static/cardfit-widget.js"></script></body></html>`,
    },
  });
  browser = await launch();
  ctx = await context(browser, { allow: [hub.base] });
  page = await openPage(ctx);
}, T);

after(async () => {
  await browser?.close();
  await hub?.close();
});

const pick = (p, id) => rerendered(p, () => p.locator('#example').selectOption({ label: id }));
const setOption = (p, action) => rerendered(p, action);

// A safetensors file of gpt2 as current transformers saves it: every parameter, no attn.bias.
async function headerFile(mutate) {
  const r = await gpt2Report();
  const header = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const t of r.params.tensors.filter((x) => !x.tied)) {
    const name = t.name.replace(/^transformer\./, '');
    const shape = mutate && mutate[name] ? mutate[name] : t.shape;
    const n = shape.reduce((a, b) => a * b, 1) * 4;
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + n] };
    offset += n;
  }
  const bytes = Buffer.from(JSON.stringify(header), 'utf8');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(bytes.length));
  return Buffer.concat([len, bytes, Buffer.alloc(64)]);
}

test('1. a gpt2 header without the attn.bias masks: 0 buffers, 0 unexplained; a real mismatch reads as itself', T, async () => {
  const p = await openPage(ctx);
  await rerendered(p, async () => p.locator('#file').setInputFiles({ name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: await headerFile() }));
  await waitForText(p, '#checkpoint-scalars', '124,439,808');
  assert.equal(await p.locator('#reconciliation').textContent(), '124,439,808 = 124,439,808 parameters + 0 buffers + 0 unexplained');
  // wpe 57 rows short: 57 × 768 = 43,776 scalars fewer, and nothing else.
  await rerendered(p, async () => p.locator('#file').setInputFiles({ name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: await headerFile({ 'wpe.weight': [967, 768] }) }));
  assert.match(await p.locator('#reconciliation').textContent(), /\+ 0 buffers \+ [−-]43,776 unexplained$/);
  await p.close();
});

test('2. share links: an unknown example, another version and a broken text are refused aloud; units travel', T, async () => {
  for (const [hash, want] of [['#v1&a=ex:nope/nothing', /nope\/nothing/], ['#v2&a=ex:openai-community/gpt2', /format v2/], ['#v1&a=j.garbage!!', /could not be read/]]) {
    const p = await ctx.newPage();
    await p.goto(`${pageUrl}${hash}`);
    await p.waitForSelector('html[data-ready=true]', { timeout: 30_000 });
    await p.locator('#state-error').waitFor({ state: 'visible' });
    assert.match(await p.locator('#state-error').textContent(), want, hash);
    assert.equal(await p.locator('#params-total').textContent(), '124,439,808', `${hash}: the default plan, under the refusal`);
    await p.close();
  }
  const p = await openPage(ctx, `${pageUrl}#v1&a=ex:openai-community/gpt2&units=gib`);
  assert.equal(await p.locator('#units').inputValue(), 'gib');
  assert.match(await p.locator('#plan-reserved').textContent(), /GiB$/);
  await p.locator('#units').selectOption('gb');
  await p.waitForFunction(() => !/units=gib/.test(location.hash) && /GB$/.test(document.querySelector('#plan-reserved').textContent));
  await p.locator('#units').selectOption('gib');
  await p.waitForFunction(() => /&units=gib/.test(location.hash));
  await p.locator('#units').selectOption('gb');  // the choice is also kept as a preference: back to the default
  await p.close();
});

test('3. a failed hub fetch leaves nothing of the previous model; a new hub id forgets the ticked LoRA targets', T, async () => {
  const p = await openPage(ctx, `${pageUrl}#v1&hub=${encodeURIComponent(hub.base)}`);
  await pick(p, 'Qwen/Qwen2.5-3B');
  await setOption(p, () => p.locator('#opt-lora_targets input[value=q_proj]').check());
  await p.waitForFunction(() => /lora_targets=q_proj/.test(location.hash));
  await p.locator('#hub-id').fill('acme/private');
  await p.locator('#hub-form button[type=submit]').click();
  await p.waitForFunction(() => /gated or private/.test(document.querySelector('#hub-status').textContent));
  assert.equal(await p.locator('#config').inputValue(), '', 'the previous config is gone');
  assert.equal(await p.locator('#checkpoint .chip').count(), 0, 'and its checkpoint chip');
  assert.equal(await p.locator('#params-total').count(), 0, 'and its plan');
  assert.match(await p.locator('#report').textContent(), /acme\/private/);
  assert.equal(await p.locator('#opt-lora_targets input:checked').count(), 0);
  // A successful fetch of another id starts from the default targets too.
  await p.locator('#hub-id').fill('Qwen/Qwen2.5-3B');
  await rerendered(p, () => p.locator('#hub-form button[type=submit]').click());
  await waitForText(p, '#params-total', '3,085,938,688');
  await p.waitForFunction(() => !/lora_targets/.test(location.hash));
  await p.close();
});

test('4. phone width: results first, the card table reflowed with the chosen mode first, chart labels inside', T, async () => {
  const phone = await context(browser, { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
  const p = await openPage(phone, `${pageUrl}#v1&a=ex:google/gemma-2-9b-it&mode=lora`);
  const top = await p.locator('#headline').evaluate((e) => e.getBoundingClientRect().top + window.scrollY);
  assert.ok(top < 844, `the headline is ${top} px down: within the first screen`);
  const wrap = await p.locator('#cards .table-wrap').evaluate((e) => ({ sw: e.scrollWidth, cw: e.clientWidth }));
  assert.ok(wrap.sw <= wrap.cw + 1, `the card table is ${wrap.sw} px wide in a ${wrap.cw} px box: no hidden columns`);
  const first = await p.locator('#cards table.cards tbody tr').first().evaluate((tr) => {
    const cells = [...tr.querySelectorAll('td')].map((td) => ({ sel: td.classList.contains('sel'), r: td.getBoundingClientRect() }));
    cells.sort((a, b) => a.r.top - b.r.top || a.r.left - b.r.left);
    return { firstSel: cells[0].sel, label: getComputedStyle(tr.querySelector('td.sel'), '::before').content };
  });
  assert.equal(first.firstSel, true, 'the chosen mode\'s cell comes first');
  assert.match(first.label, /LoRA/, 'each cell says its column');
  // Chart text must lie inside the visible box of its figure (not in a part that scrolls away).
  const clipped = await p.locator('#batch figure.chart-box, #memory figure.chart-box').evaluateAll((figs) => figs.flatMap((fig) => {
    const box = fig.getBoundingClientRect();
    return [...fig.querySelectorAll('svg.chart text')].map((t) => ({ s: t.textContent, r: t.getBoundingClientRect() }))
      .filter((x) => x.r.left < box.left - 0.5 || x.r.right > box.left + fig.clientWidth + 0.5).map((x) => x.s);
  }));
  assert.deepEqual(clipped, [], 'chart text outside its drawing');
  const pageWidth = await p.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(pageWidth <= 390, `no sideways scrolling (${pageWidth} px)`);
  await phone.close();
});

test('5. the batch chart draws each card at its usable bytes: MI300X is not merged into B200\'s line', T, async () => {
  const p = await openPage(ctx, `${pageUrl}#v1&a=ex:google/gemma-2-9b-it`);
  const labels = await p.locator('#batch .cap-label').evaluateAll((ts) => ts.map((t) => t.lastChild.textContent));
  const mi = labels.filter((l) => /MI300X/.test(l));
  assert.equal(mi.length, 1, labels.join(' | '));
  assert.doesNotMatch(mi[0], /B200/);
  assert.match(mi[0], /^205 GB/);
  const desc = await p.locator('#batch svg desc').textContent();
  // MI300X holds the full fine-tune (batch 1 since Gemma 2 trains with eager attention by default),
  // B200's 192 GB does not: two lines, as the card table says.
  assert.match(desc, /205 GB \(MI300X\): batch [1-9]\d*(\.|;)/);
  assert.match(desc, /192 GB \(B200[^)]*\): batch 1 does not fit/);
  await p.close();
});

test('6. the headline follows mode, batch and precision and names the model; the cost box says which mode it prices', T, async () => {
  const p = await openPage(ctx);
  assert.match(await p.locator('#headline').textContent(), /openai-community\/gpt2/);
  assert.doesNotMatch(await p.locator('#headline').textContent(), /this gpt2 model/);
  await setOption(p, () => p.locator('#opt-precision').selectOption('fp16-mixed'));
  assert.match(await p.locator('#headline').textContent(), /fp16/);
  assert.doesNotMatch(await p.locator('#headline').textContent(), /bf16/);
  await setOption(p, () => p.locator('input[name=mode][value=lora]').check());
  await setOption(p, () => p.locator('#opt-batch').fill('2'));
  const h = await p.locator('#headline').textContent();
  assert.match(h, /LoRA/);
  assert.match(h, /batch 2\b/);
  assert.match(await p.locator('#cost-cheapest').evaluate((dd) => dd.previousElementSibling.textContent), /any training mode/i);
  await setOption(p, () => p.locator('input[name=mode][value=serve]').check());
  assert.match(await p.locator('#headline').textContent(), /^Serving openai-community\/gpt2/);
  assert.match(await p.locator('#cost').textContent(), /Serving is not priced as a run/);
  // The widget: its batch attribute is the headline's batch; the model is named by its label.
  const w = await ctx.newPage();
  await w.goto(`${hub.base}/widget.html`);
  await w.waitForFunction(() => document.getElementById('w')?.shadowRoot?.querySelector('.headline'), null, { timeout: 30_000 });
  const wh = await w.evaluate(() => document.getElementById('w').shadowRoot.querySelector('.headline').textContent);
  assert.match(wh, /google\/gemma-2-9b-it/);
  assert.match(wh, /batch 2\b/);
  // 8. Two rows of one GPU with the same memory are told apart (SXM, PCIe).
  const rows = await w.evaluate(() => [...document.getElementById('w').shadowRoot.querySelectorAll('tbody th')].map((th) => th.firstChild.textContent));
  assert.equal(new Set(rows).size, rows.length, rows.join(' | '));
  assert.ok(rows.includes('H100 PCIe') && rows.includes('H100 SXM5'), rows.join(' | '));
  await w.close();
  await p.close();
});

test('7. the structure: each attention node says its window and soft-cap; one unit per column; no 50.000000', T, async () => {
  const p = await openPage(ctx, `${pageUrl}#v1&a=ex:google/gemma-2-9b-it`);
  await p.locator('#a-graph > summary').click();
  await p.locator('#structure button', { hasText: 'Unfold all' }).click();
  await p.waitForFunction(() => document.querySelectorAll('#structure table.structure').length > 0);
  const ops = await p.locator('#structure table.structure tbody tr td:nth-child(2)').allTextContents();
  const attn = ops.filter((o) => /^attention/.test(o));
  assert.ok(attn.some((o) => /window 4,096/.test(o)), attn.slice(0, 4).join(' | '));
  assert.ok(attn.some((o) => /whole context/.test(o)), attn.slice(0, 4).join(' | '));
  assert.ok(attn.every((o) => /soft-cap 50\b/.test(o)), attn.slice(0, 4).join(' | '));
  for (const t of await p.locator('#structure table.structure').all()) {
    const unitsSeen = new Set((await t.locator('tbody td:nth-child(6)').allTextContents()).map((s) => s.replace(/^[\d.,\s−-]+/, '')).filter((u) => u && u !== '—'));
    assert.ok(unitsSeen.size <= 1, `one unit per column: ${[...unitsSeen].join(', ')}`);
  }
  assert.doesNotMatch(await p.locator('#report').textContent(), /\d\.0{6}\b/);
  // 8. GiB and GB where they meet: the card table says which the names use.
  assert.match(await p.locator('#cards').textContent(), /80GB.*is 80 GiB/);
  await p.close();
});

test('9. a missing comma points at the line it belongs to and says what was expected', T, async () => {
  const p = await openPage(ctx);
  const broken = qwen3b.replace('"hidden_size": 2048,', '"hidden_size": 2048');
  await p.locator('#config').fill(broken);
  await p.locator('#error').waitFor({ state: 'visible' });
  const line = broken.split('\n').findIndex((l) => l.includes('"hidden_size": 2048')) + 1;
  const msg = await p.locator('#error').textContent();
  assert.match(msg, /expected ',' or '\}'/);
  assert.match(msg, new RegExp(`line ${line}, column \\d+\\)`));
  await p.close();
});

test('10. the measured error of the estimates is stated next to them, from docs/accuracy.md\'s numbers', T, async () => {
  const doc = readText('docs/accuracy.md');
  const row = (task) => doc.match(new RegExp(`^\\| ${task} \\| (\\d+) \\| ([\\d.]+) % \\| ([\\d.]+) % \\|`, 'm'));
  const p = await openPage(ctx);
  const acc = p.locator('#accuracy');
  const [, n, median, p90] = row('full_finetune');
  const said = await acc.textContent();
  assert.match(said, new RegExp(`median ${median.replace('.', '\\.')} %.*p90 ${p90.replace('.', '\\.')} %.*${n} measured`));
  const flagged = doc.match(/Out-of-memory reports flagged[^:]*: (\d+) of (\d+)/);
  assert.match(said, new RegExp(`${flagged[1]} of ${flagged[2]} out-of-memory reports`));
  assert.match(await acc.locator('a').getAttribute('href'), /docs\/accuracy\.md$/);
  await setOption(p, () => p.locator('input[name=mode][value=lora]').check());
  assert.match(await acc.textContent(), new RegExp(`LoRA.*median ${row('lora')[2].replace('.', '\\.')} %`));
  await p.close();
  assert.deepEqual(ctx.errors, []);
});

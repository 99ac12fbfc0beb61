// tests/browser/serving.test.mjs: the serving panel (web/src/serving-view.js) and the multi-GPU
// panel (web/src/parallel-view.js) in the page, checked against the report the page itself planned
// (its JSON twin) and against the planner run here on the same options: Llama-3-8B served by vLLM
// shows the engine's concurrency and $/M output per card; FSDP over N GPUs shows the report's
// per-rank bytes, the smallest N per card and strategy ("not recommended" with its reason) and the
// topology; the widget is untouched by either. Not a test of the engine arithmetic (tests/cpp).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { launch, context, openPage, rerendered, waitForText, readText, startServer, root, T } from './helpers.mjs';

const llama = readText('web/examples/Meta-Llama-3-8B.json');
let browser, ctx, page, api;

// The page's display formats (web/src/format.js), restated: exact integers with separators, GB with
// three significant digits, dollars with cents.
const int = (v) => String(Math.trunc(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const sig3 = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const gb = (v) => (Math.abs(v) >= 1e9 || v === 0 ? `${sig3(v / 1e9)} GB` : `${sig3(v / 1e6)} MB`);
const usd = (v) => `$${v >= 1000 ? int(Math.round(v)) : v.toFixed(2)}`;

before(async () => {
  const require = createRequire(import.meta.url);
  api = await require(new URL('dist/cardfit.js', root).pathname).createCardfit();
  browser = await launch();
  ctx = await context(browser);
  page = await openPage(ctx);
}, T);
after(async () => { await browser?.close(); });

// The report the page rendered, read back from its own "JSON report" disclosure.
async function pageReport(p) {
  const twin = p.locator('#json-report');
  if (!(await twin.evaluate((d) => d.open))) await twin.locator('summary').click();
  const pre = twin.locator('pre');
  await pre.waitFor();
  return JSON.parse(await pre.textContent());
}

test('serving: Llama-3-8B on vLLM shows the engine\'s concurrency and $/M output tokens per card', T, async () => {
  await waitForText(page, '#params-total', '124,439,808');
  // The default plan (full fine-tune, engine hf): the panel is there, collapsed.
  await page.locator('#serving').waitFor();
  assert.equal(await page.locator('#serving-more').evaluate((d) => d.tagName === 'DETAILS' && !d.open), true, 'collapsed outside serve mode');
  assert.equal(await page.locator('#serving table.serving').isVisible(), false);
  assert.equal(await page.locator('#parallel').count(), 0, 'no multi-GPU panel without parallel');

  await rerendered(page, () => page.locator('#example').selectOption({ label: 'meta-llama/Meta-Llama-3-8B' }));
  await waitForText(page, '#params-total', '8,030,261,248');
  await rerendered(page, () => page.locator('input[name=mode][value=serve]').check());
  await rerendered(page, () => page.locator('#opt-engine').selectOption('vllm'));
  assert.equal(await page.locator('#serving table.serving').isVisible(), true, 'open in serve mode');
  assert.equal(await page.locator('#serving-more').count(), 0, 'nothing to unfold in serve mode');

  const r = await pageReport(page);
  const s = r.serving;
  assert.equal(r.plan.mode, 'serve');
  assert.equal(s.engine, 'vllm');
  // The page planned what the planner plans for these options.
  assert.deepEqual(s, api.plan(llama, { mode: 'serve', engine: 'vllm' }).serving);

  assert.match(await page.locator('#serving-h').textContent(), /vLLM/);
  const knobs = await page.locator('#serving-knobs').textContent();
  assert.match(knobs, new RegExp(`gpu_memory_utilization\\s*${s.priced.knobs.memory_fraction}`));
  assert.match(knobs, new RegExp(`max_num_seqs\\s*${int(s.priced.knobs.max_seqs)}`));
  assert.match(knobs, new RegExp(`block_size\\s*${s.priced.block_tokens}`));

  const rows = page.locator('#serving table.serving tbody tr');
  assert.equal(await rows.count(), s.rows.length);
  let priced = 0;
  for (const row of s.rows) {
    const tr = page.locator(`#serving table.serving tbody tr[data-card="${row.card}"]`);
    const conc = tr.locator('td.concurrency');
    assert.equal(await conc.getAttribute('data-value'), String(row.concurrency), `${row.card} concurrency`);
    assert.equal(await conc.locator('.main').textContent(), row.fits ? int(row.concurrency) : 'does not fit', `${row.card} concurrency text`);
    const out = tr.locator('td.usd-out');
    if (row.priced) {
      priced += 1;
      assert.equal(await out.getAttribute('data-value'), String(row.usd_per_m_output), `${row.card} $/M`);
      assert.equal(await out.textContent(), usd(row.usd_per_m_output), `${row.card} $/M text`);
    } else {
      assert.equal(await out.getAttribute('data-value'), null, `${row.card}: no price, no number`);
    }
    assert.equal(await tr.locator('td.kv').getAttribute('data-value'), String(row.kv_bytes));
    assert.equal(await tr.locator('td.weights').textContent(), gb(row.weights_bytes));
  }
  assert.ok(priced >= 5, 'most cards are priced');
  assert.ok(s.rows.some((x) => !x.fits), 'a card that cannot hold the weights is in the table');
  assert.match(await page.locator(`#serving table.serving tbody tr[data-card="${s.priced.card}"]`).getAttribute('class'), /priced/);

  // The one-line rule names vLLM's terms and the priced card's numbers.
  const rule = await page.locator('#serving-rule').textContent();
  assert.match(rule, /max_num_seqs/);
  assert.match(rule, new RegExp(`= ${int(s.priced.concurrency)}\\b`));
  assert.match(rule, new RegExp(int(s.priced.blocks)));
  // The engine's own notes are listed, as the report words them.
  const notes = await page.locator('#serving-notes li').allTextContents();
  for (const n of s.notes) assert.ok(notes.includes(n), `note listed: ${n.slice(0, 40)}`);

  // Back to a training mode: still there, collapsed again.
  await rerendered(page, () => page.locator('input[name=mode][value=full]').check());
  assert.equal(await page.locator('#serving-more').evaluate((d) => !d.open), true);
  assert.match(await page.locator('#serving-h').textContent(), /vLLM/);
  assert.deepEqual(ctx.errors, []);
});

test('multi-GPU: FSDP over 4 GPUs shows the report\'s per-rank bytes, the smallest N per card and the topology', T, async () => {
  await rerendered(page, () => page.locator('#opt-engine').selectOption(''));
  await rerendered(page, () => page.locator('#opt-parallel').selectOption('fsdp'));
  await rerendered(page, () => page.locator('#opt-gpus').fill('4'));
  await page.locator('#parallel').waitFor();
  const r = await pageReport(page);
  const x = r.parallel;
  assert.equal(x.strategy, 'fsdp');
  assert.equal(x.layout.gpus, 4);
  assert.deepEqual(x, api.plan(llama, { mode: 'full', parallel: 'fsdp', gpus: 4 }).parallel);
  assert.match(await page.locator('#parallel-h').textContent(), /FSDP.* 4 GPUs/);

  const comps = x.per_rank.components.filter((c) => c.bytes > 0);
  assert.ok(comps.length >= 3);
  for (const c of comps) {
    const tr = page.locator(`#parallel table.per-rank tbody tr[data-component="${c.id}"]`);
    assert.equal(await tr.locator('th').textContent(), c.label);
    assert.equal(await tr.locator('td.bytes').getAttribute('data-value'), String(c.bytes), c.id);
  }
  assert.equal(await page.locator('#parallel-peak').getAttribute('data-value'), String(x.per_rank.peak_bytes));
  assert.equal(await page.locator('#parallel-reserved').getAttribute('data-value'), String(x.per_rank.reserved_bytes));
  assert.equal(await page.locator('#parallel-reserved').textContent(), gb(x.per_rank.reserved_bytes));
  for (const ph of x.per_rank.phases)
    assert.equal(await page.locator(`#parallel table.phases tr[data-phase="${ph.name}"] td`).getAttribute('data-value'), String(ph.bytes));

  // The topology of the chosen N on the priced card.
  const topo = await page.locator('#parallel-topology').textContent();
  assert.match(topo, new RegExp(`${x.topology.nodes} node`));
  assert.ok(topo.includes(x.topology.intra_node), topo);

  // The smallest N per card and strategy, "not recommended" marked with the report's reason.
  let marked = 0;
  for (const card of x.cards) {
    const tr = page.locator(`#parallel table.smallest tbody tr[data-card="${card.id}"]`);
    const reasons = [];
    for (const sm of card.smallest) {
      const key = sm.strategy + (sm.offload ? '+offload' : '');
      const cell = tr.locator(`td[data-strategy="${key}"]`);
      assert.equal(await cell.getAttribute('data-value'), sm.gpus === null ? null : String(sm.gpus), `${card.id} ${key}`);
      const bad = sm.gpus !== null && !sm.topology.recommended;
      assert.equal(/\bnot-recommended\b/.test(await cell.getAttribute('class')), bad, `${card.id} ${key} marked`);
      if (bad) { marked += 1; reasons.push(sm.topology.note); }
    }
    if (reasons.length) {
      assert.match(await tr.getAttribute('class'), /not-recommended/);
      assert.ok(reasons.includes(await tr.locator('td.reason').textContent()), `${card.id}: the reason is the report's`);
    }
  }
  assert.ok(marked >= 1, 'some card needs more than one node without NVLink');

  // Another N re-plans the per-rank numbers.
  await rerendered(page, () => page.locator('#opt-gpus').fill('8'));
  const r8 = await pageReport(page);
  assert.equal(r8.parallel.layout.gpus, 8);
  assert.equal(await page.locator('#parallel-reserved').getAttribute('data-value'), String(r8.parallel.per_rank.reserved_bytes));
  assert.ok(r8.parallel.per_rank.reserved_bytes < x.per_rank.reserved_bytes, 'more shards, less per rank');

  // LoRA under FSDP1 is planned per rank (the HF Trainer wraps every adapter apart).
  await rerendered(page, () => page.locator('input[name=mode][value=lora]').check());
  const rl = await pageReport(page);
  assert.ok(rl.parallel.supported);
  assert.equal(await page.locator('#parallel-reserved').getAttribute('data-value'), String(rl.parallel.per_rank.reserved_bytes));
  // A mode the section does not model says so.
  await rerendered(page, () => page.locator('input[name=mode][value=serve]').check());
  assert.equal(await page.locator('#parallel-note').textContent(), (await pageReport(page)).parallel.note);
  assert.deepEqual(ctx.errors, []);
  assert.deepEqual(ctx.refused, []);
});

test('phone width: the panels\' wide tables scroll in their box, the page does not scroll sideways', T, async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  const sideways = () => page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
  await rerendered(page, () => page.locator('input[name=mode][value=full]').check());
  await page.locator('#parallel table.smallest').waitFor();
  assert.equal(await sideways(), 0, 'full fine-tune with the multi-GPU table');
  await rerendered(page, () => page.locator('input[name=mode][value=serve]').check());
  await rerendered(page, () => page.locator('#opt-engine').selectOption('vllm'));
  await page.locator('#serving table.serving').waitFor();
  assert.equal(await sideways(), 0, 'serving open, with the engine\'s notes');
  await page.setViewportSize({ width: 1200, height: 820 });
});

test('the widget is untouched: no panel in it, the same view with an engine set', T, async () => {
  const widgetJs = readText('dist/cardfit-widget.js');
  // The bundler (scripts/web-bundle.mjs) keeps function names (it strips whitespace and comments only).
  for (const fn of ['servingView', 'servingSection', 'parallelView', 'parallelSection']) {
    assert.ok(!new RegExp(`function ${fn}\\(`).test(widgetJs), `the widget holds ${fn}`);
    assert.ok(new RegExp(`function ${fn}\\(`).test(readText('dist/index.html')), `the page lacks ${fn}`);
  }
  const cfg = JSON.stringify(JSON.parse(llama));
  const server = await startServer({
    dir: new URL('dist/', root),
    pages: { '/w.html': `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>w</title></head><body>
<cardfit-plan id="plain" mode="serve"><script type="application/json">${cfg}</script></cardfit-plan>
<cardfit-plan id="vllm" mode="serve" engine="vllm" parallel="fsdp"><script type="application/json">${cfg}</script></cardfit-plan>
<script src="/static/cardfit-widget.js"></script></body></html>` },
  });
  const wctx = await context(browser, { allow: [server.base] });
  try {
    const w = await wctx.newPage();
    await w.goto(`${server.base}/w.html`);
    for (const id of ['plain', 'vllm'])
      await w.waitForFunction((i) => document.getElementById(i)?.shadowRoot?.querySelector('.count')?.textContent === '8,030,261,248', id, { timeout: 30_000 });
    const outline = (id) => w.evaluate((i) => [...document.getElementById(i).shadowRoot.querySelectorAll('*')].map((e) => `${e.tagName}.${e.getAttribute('class') || ''}`).join(' '), id);
    assert.equal(await outline('vllm'), await outline('plain'));
    assert.equal(await w.evaluate(() => document.getElementById('vllm').shadowRoot.querySelector('#serving, #parallel, .serving')), null);
    assert.deepEqual(wctx.errors, []);
  } finally {
    await wctx.close();
    await server.close();
  }
});

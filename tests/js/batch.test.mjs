// tests/js/batch.test.mjs: web/src/batch.js, the page's batch re-evaluation, against the core's own
// numbers: the plan section and the checks at several batches, and the curves, for models of
// several shapes (dense, MoE, sliding window, vision, encoder-decoder) in every mode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const root = new URL('../../', import.meta.url);
const { createCardfit } = require(new URL('dist/cardfit.js', root).pathname);
const { reportAtBatch, curvesFromEvents, curveBatches } = await import(new URL('web/src/batch.js', root).href);
const golden = (name) => JSON.stringify(JSON.parse(readFileSync(new URL(`tests/golden/models/${name}.json`, root), 'utf8')).config);
const cardfit = await createCardfit();

const MODELS = ['gpt2', 'gemma-2-9b-it', 'deepseek-v3', 'llava-1.5-7b-hf', 't5-small', 'mamba-130m-hf'];
const OPTION_SETS = [{}, { mode: 'lora', grad_ckpt: true }, { mode: 'qlora', grad_accum: 4 }, { mode: 'serve', serve_dtype: 'int4' }];
const BATCHES = [1, 2, 3, 7, 16, 100, 4096];

for (const name of MODELS) {
  test(`${name}: the plan section and the checks at batches ${BATCHES.join(', ')} match the core`, () => {
    const text = golden(name);
    for (const options of OPTION_SETS) {
      const base = cardfit.plan(text, options);
      assert.equal(base.ok, true, JSON.stringify(base.error));
      for (const batch of BATCHES) {
        const core = cardfit.plan(text, { ...options, batch });
        const local = reportAtBatch(base, batch);
        assert.deepEqual(local.plan, core.plan, `${JSON.stringify(options)} batch ${batch}`);
        assert.deepEqual(local.checks, core.checks, `${JSON.stringify(options)} batch ${batch}: checks`);
      }
    }
  });

  test(`${name}: the curves drawn from the event list are the core's curves`, () => {
    const text = golden(name);
    for (const options of OPTION_SETS) {
      const { ok, ...curves } = cardfit.curves(text, options);
      assert.equal(ok, true);
      assert.deepEqual(curvesFromEvents(cardfit.plan(text, options)), curves, JSON.stringify(options));
    }
  });
}

test('the event list is short: a handful of moments per mode, not one per block', () => {
  const r = cardfit.plan(golden('deepseek-v3'), {});
  for (const [mode, ev] of Object.entries(r.memory_events)) assert.ok(ev.events.length <= 40, `${mode}: ${ev.events.length} events`);
});

test('curve batches: 1, 2, 3, 4, 6, 8, 11, 16, ... about √2 apart', () => {
  assert.deepEqual(curveBatches(40), [1, 2, 3, 4, 6, 8, 11, 16, 23, 32]);
});

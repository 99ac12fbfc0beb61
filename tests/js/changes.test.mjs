// tests/js/changes.test.mjs: web/src/changes.js on its own (the history's and compare view's
// machinery): unchanged revisions fold away, a checkpoint-only change is kept without planning,
// a field's effect is the core's report with only that field changed, bad JSON is said.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);
const { analyseHistory, configDiff, indexChange } = await import(new URL('../../web/src/changes.js', import.meta.url).href);
const gpt2 = readFileSync(join(root, 'web/examples/gpt2.json'), 'utf8');
const commit = (n) => ({ id: `c${n}`, title: `commit ${n}`, date: `2024-01-0${n}` });
let api, planned;
const plan = async (text, options) => { planned++; return api.plan(text, options); };

before(async () => { api = await require(join(root, 'dist/cardfit.js')).createCardfit(); });

test('unchanged revisions fold away; a checkpoint-only change is kept and plans nothing', async () => {
  planned = 0;
  const index = (names) => JSON.stringify({ metadata: { total_size: names.length }, weight_map: Object.fromEntries(names.map((n) => [n, 'model.safetensors'])) });
  const steps = await analyseHistory([
    { commit: commit(1), config: gpt2, index: index(['a', 'b']) },
    { commit: commit(2), config: gpt2, index: index(['a', 'b']) },
    { commit: commit(3), config: gpt2, index: index(['a', 'c', 'd']) },
  ], plan, {});
  assert.equal(steps.length, 1);
  assert.deepEqual([steps[0].from.id, steps[0].to.id, steps[0].diffs, steps[0].index.added, steps[0].index.removed, steps[0].index.from, steps[0].index.to], ['c2', 'c3', [], ['c', 'd'], ['b'], 2, 3]);
  assert.equal(planned, 0);
  assert.equal(indexChange(null, null), null);
});

test('each field alone: n_layer moves parameters by exactly one block, the whole change too', async () => {
  const deeper = JSON.stringify({ ...JSON.parse(gpt2), n_layer: 13, resid_pdrop: 0.2 });
  const [step] = await analyseHistory([{ commit: commit(1), config: gpt2 }, { commit: commit(2), config: 'not json' }, { commit: commit(3), config: deeper }], plan, { mode: 'lora' });
  assert.equal(step.error, 'a config here is not valid JSON');
  const [real] = await analyseHistory([{ commit: commit(1), config: gpt2 }, { commit: commit(3), config: deeper }], plan, { mode: 'lora' });
  // One GPT-2 block: c_attn + attn.c_proj (4 x 768², biases 4 x 768), the MLP (2 x 768 x 3072, biases 3072 + 768), two LayerNorms.
  const block = 4 * 768 * 768 + 4 * 768 + 2 * 768 * 3072 + 3072 + 768 + 4 * 768;
  const layer = real.diffs.find((d) => d.path === '$.n_layer');
  assert.equal(layer.deltas.find((d) => d.key === 'parameters').delta, block);
  assert.equal(real.deltas.find((d) => d.key === 'parameters').delta, block);
  assert.ok(!real.diffs.find((d) => d.path === '$.resid_pdrop').deltas.some((d) => d.key === 'parameters'));
  assert.deepEqual(configDiff(gpt2, deeper).diffs.map((d) => d.path).sort(), ['$.n_layer', '$.resid_pdrop']);
});

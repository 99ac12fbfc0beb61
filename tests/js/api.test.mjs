// tests/js/api.test.mjs: the wasm boundary seen from JS (dist/cardfit.js in Node): the export
// surface, round trips on real configs, errors as data, and the module staying usable after one.
// Not a test of the core's arithmetic beyond exact totals (that is tests/cpp).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const root = new URL('../../', import.meta.url);
const { createCardfit, createCardfitModule } = require(new URL('dist/cardfit.js', root).pathname);
const examplesDir = new URL('web/examples/', root);
const examples = JSON.parse(readFileSync(new URL('examples.json', examplesDir), 'utf8'))
  .map((x) => ({ ...x, text: readFileSync(new URL(x.file, examplesDir), 'utf8') }));
const gpt2 = examples[0].text;
const cardfit = await createCardfit();

test('the public API is exactly {schema, describe, plan, planText, graph, tensors, curves, markdown}', () => {
  assert.deepEqual(Object.keys(cardfit).sort(), ['curves', 'describe', 'graph', 'markdown', 'plan', 'planText', 'schema', 'tensors']);
  assert.deepEqual(Object.keys(cardfit.describe).sort(), ['errors', 'groups', 'options']);
  assert.equal(cardfit.schema, 'cardfit.report/2');
  assert.ok(Object.isFrozen(cardfit));
});

test('the raw module binds the entry points and exports no runtime helpers', async () => {
  const raw = await createCardfitModule();
  for (const name of ['plan', 'graph', 'tensors', 'curves', 'markdown', 'answer_data', 'handle', 'schema', 'describe']) assert.equal(typeof raw[name], 'function', name);
  for (const name of ['setValue', 'getValue', 'ccall', 'cwrap', 'FS', 'UTF8ToString', 'stringToUTF8', 'addFunction', 'allocate']) {
    assert.equal(raw[name], undefined, `${name} must not be exported`);
  }
  // Emscripten 3.1.6 puts every wasm export (_malloc and _free among them, which Embind's own
  // string passing needs) on the raw module; the public API above never hands that module out.
  assert.equal(JSON.parse(raw.handle(gpt2, '{}')).ok, true);
  // The lifetime calls answer with their text's length, its bytes in wasm memory until the next
  // call (api.js decodes them); it reads as handle's report does.
  const length = raw.plan(gpt2, '{}');
  const at = raw.answer_data();
  assert.equal(typeof length, 'number');
  const planned = JSON.parse(new TextDecoder().decode(raw.HEAPU8.subarray(at, at + length)));
  assert.equal(planned.ok, true);
  assert.equal(planned.params.total, JSON.parse(raw.handle(gpt2, '{}')).params.total);
});

for (const x of examples) {
  test(`${x.id}: params.total is ${x.params_total}`, () => {
    const report = cardfit.plan(x.text, {});
    assert.equal(report.ok, true, JSON.stringify(report.error));
    assert.equal(report.schema, cardfit.schema);
    assert.equal(report.params.total, x.params_total);
  });
}

test('planText is plan()\'s answer as text: pure ASCII, parsing to the same report; errors too', () => {
  for (const x of examples.slice(0, 4)) {
    const text = cardfit.planText(x.text, { mode: 'lora' });
    assert.equal(typeof text, 'string');
    assert.ok(/^[\x00-\x7f]*$/.test(text), `${x.id}: the core's text is ASCII`);
    assert.deepEqual(JSON.parse(text), cardfit.plan(x.text, { mode: 'lora' }));
  }
  // The report's own non-ASCII text (the × of its assumptions) arrives escaped, and parses back.
  const report = JSON.parse(cardfit.planText(gpt2, {}));
  assert.ok(report.assumptions.some((a) => /[^\x00-\x7f]/.test(a.text)), 'some assumption text is not ASCII');
  const core = JSON.parse(cardfit.planText('{"model_type": "gpt2",', {}));
  assert.equal(core.ok, false);
  assert.equal(core.error.code, 'config.json_syntax');
  const api = JSON.parse(cardfit.planText(42, {}));
  assert.deepEqual([api.ok, api.error.code], [false, 'api.config_not_string']);
});

test('options travel to the core by their snake_case names', () => {
  const report = cardfit.plan(gpt2, { mode: 'lora', batch: 3, seq: 256, lora_rank: 8 });
  assert.equal(report.ok, true, JSON.stringify(report.error));
  assert.deepEqual([report.plan.mode, report.plan.batch, report.plan.seq], ['lora', 3, 256]);
});

test('malformed JSON is an error object with a code, not an abort', () => {
  const report = cardfit.plan('{"model_type": "gpt2",', {});
  assert.equal(report.ok, false);
  assert.match(report.error.code, /^[a-z_]+\.[a-z_.]+$/);
  assert.equal(typeof report.error.message, 'string');
  assert.ok(report.error.message.length > 0);
  assert.equal(typeof report.error.path, 'string');
});

test('the module stays usable after errors', () => {
  for (const bad of ['', '[]', '{"model_type": 7}', '\u0000', '['.repeat(100000)]) {
    assert.equal(cardfit.plan(bad, {}).ok, false, JSON.stringify(bad.slice(0, 20)));
  }
  assert.equal(cardfit.plan(gpt2, { batch: 'many' }).ok, false);
  assert.equal(cardfit.plan(gpt2, {}).params.total, 124439808);
});

test('wrong argument types are refused in JS with codes', () => {
  assert.equal(cardfit.plan(undefined).error.code, 'api.config_not_string');
  assert.equal(cardfit.plan(gpt2, 'batch=2').error.code, 'api.options_not_object');
  assert.equal(cardfit.plan(gpt2).ok, true);
});

test('repeated calls do not grow wasm memory', () => {
  const grow = WebAssembly.Memory.prototype.grow;
  let grown = 0;
  WebAssembly.Memory.prototype.grow = function (...a) { grown++; return grow.apply(this, a); };
  try {
    // Distinct options each time: every call reaches the core (repeats are answered from the cache).
    for (let i = 0; i < 3; i++) cardfit.plan(examples[1].text, { batch: i + 1 });
    grown = 0;
    for (let i = 0; i < 50; i++) cardfit.plan(examples[1].text, { batch: i + 4 });
  } finally {
    WebAssembly.Memory.prototype.grow = grow;
  }
  assert.equal(grown, 0);
});

test('the core report is small and leaves the on-request sections to their own calls', () => {
  const r = cardfit.plan(gpt2, {});
  for (const moved of ['graph', 'curves', 'markdown']) assert.equal(r[moved], undefined, moved);
  assert.equal(r.params.tensors, undefined);
  assert.ok(JSON.stringify(r).length < 100_000);
  assert.ok(r.memory_events.full.events.length > 0);
});

test('graph, tensors, curves and markdown answer on request, with the same errors as plan', () => {
  const g = cardfit.graph(gpt2, {});
  assert.equal(g.ok, true);
  assert.equal(g.nodes.length, g.node_count);
  assert.ok(g.blocks.some((b) => b.repeat === 12 && b.indices.length === 12));
  const t = cardfit.tensors(gpt2, {});
  assert.equal(t.tensors[0].name, 'transformer.wte.weight');
  assert.equal(t.tensors.length, t.tensor_count);
  assert.deepEqual(Object.keys(cardfit.curves(gpt2, {})).sort(), ['full', 'lora', 'ok', 'qlora', 'serve']);
  assert.match(cardfit.markdown(gpt2, {}).markdown, /124,439,808/);
  for (const call of ['graph', 'tensors', 'curves', 'markdown']) {
    assert.equal(cardfit[call]('{"model_type": "gpt2",', {}).error.code, 'config.json_syntax', call);
    assert.equal(cardfit[call](gpt2, { batch: 'many' }).error.code, 'options.value', call);
    assert.equal(cardfit[call](undefined).error.code, 'api.config_not_string', call);
  }
});

test('answers are fresh objects: a caller changing one does not change the next', () => {
  const a = cardfit.plan(gpt2, { batch: 2 });
  a.params.total = 0;
  assert.equal(cardfit.plan(gpt2, { batch: 2 }).params.total, 124439808);
});

test('MoE experts are stacked per layer unless expanded', () => {
  const moe = examples.find((x) => /mixtral|moe|deepseek|qwen3-30b/i.test(x.id));
  if (!moe) return;
  const stacked = cardfit.tensors(moe.text, {});
  const expanded = cardfit.tensors(moe.text, {}, true);
  assert.equal(expanded.tensors.length, expanded.tensor_count);
  assert.ok(stacked.tensors.length < expanded.tensors.length);
  assert.ok(stacked.tensors.some((t) => t.experts > 1 && /experts\.\{0\.\.\d+\}\./.test(t.name)));
});

// tests/accuracy/measured-stacks.json: published measured GPU-memory figures per training stack and
// serving engine. Checked here without running the planner: the file parses, every point carries the
// dev-set schema plus `stack` / `stack_settings`, its quote holds the digits of its number, the
// sources reserved for an independent evaluation are absent, and points.json reads every point
// (a config and options, an exclusion, or `skip` with the intended values of options cardfit
// does not have yet). scripts/accuracy reports the errors per stack.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = path.join(root, 'tests', 'accuracy');
const text = fs.readFileSync(path.join(dir, 'measured-stacks.json'), 'utf8');
const stacks = JSON.parse(text);
const { points } = JSON.parse(fs.readFileSync(path.join(dir, 'points.json'), 'utf8'));
const byId = new Map(points.map((p) => [p.id, p]));

const STACKS = ['hf', 'torchtune', 'litgpt', 'unsloth', 'axolotl', 'llamafactory', 'deepspeed', 'fsdp', 'vllm', 'sglang', 'tgi', 'llamacpp'];
const FIELDS = ['id', 'stack', 'model', 'task', 'framework', 'framework_version', 'precision', 'optimizer', 'batch_size', 'grad_accum',
  'seq_len', 'gradient_checkpointing', 'attention_impl', 'lora_rank', 'lora_targets', 'num_gpus', 'parallelism', 'gpu', 'outcome',
  'measured_value', 'unit', 'metric', 'source', 'quote', 'trust', 'notes', 'stack_settings'];
const TASKS = ['full', 'lora', 'qlora', 'inference', 'serving'];

// Options of today's schema: the generated options table of docs/api.md (scripts/gen-types.mjs
// writes it from core/plan/option_schema.cpp, the one schema).
const api = fs.readFileSync(path.join(root, 'docs', 'api.md'), 'utf8');
const SCHEMA_OPTIONS = [...api.matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((m) => m[1]);
// What a skipped point still needs, when it is not an option of the schema: a value the option
// lacks (`name=value`, the option's intended value given), or something that is no option at all.
const NEEDS = {
  'grad_ckpt=selective_op': "torchtitan's per-op selective activation checkpointing",
  'parallel=lora': 'per-rank memory of LoRA under a parallel strategy',
  'optimizer=muon_sharded': "Muon with its states partitioned under ZeRO (DeepSpeed's Muon; torch.optim.Muon is refused there)",
  'serve_dtype=fp8_mlp_only': 'an FP8 checkpoint quantized on some modules only (fbgemm_fp8)',
  'gguf=iq3_m': 'the GGUF IQ3_M file type',
  'serve_dtype=mxfp4_experts': "a checkpoint's MXFP4 experts next to 16-bit attention (gpt-oss)",
  'family=olmo3': 'a model family core/arch lacks', 'family=gemma3n': 'a model family core/arch lacks',
  config: 'a published config.json not found here',
  'metric=component': 'a component-level figure (one module), not a plan output',
};
const COMPARE = ['peak', 'reserved', 'load', 'weights', 'kv_cache', 'engine_used'];

// Reserved for an independent evaluation: none of these may be a source here.
const RESERVED = [
  'tutorials/resource-tables.md', 'resource-tables', 'config_hub/finetune/README.md',           // LitGPT
  'torchtune README', 'torchtune/blob/main/README', 'pytorch/torchtune README.md', 'meta-pytorch/torchtune README.md',
  'lora_finetune.rst', 'qlora_finetune.rst', 'lora_finetune.html', 'qlora_finetune.html',          // torchtune LoRA/QLoRA tutorials
  'LLaMA-Factory/wiki', 'LlamaFactory/wiki', 'llama-factory/wiki',                                  // LLaMA-Factory wiki
  'unslothai/unsloth README', 'unslothai/unsloth#', 'github.com/unslothai/unsloth/blob/main/README', // Unsloth README
  'torchao/float8/README', 'ao/tree/main/torchao/float8', 'ao/blob/main/torchao/float8',           // torchao float8 README
  'github.com/vllm-project/vllm/issues/', 'vllm-project/vllm/issues',                               // vLLM issues
];

const digitsOf = (v) => String(v);

test('measured-stacks.json parses and every point has the schema, a stack and stack settings', () => {
  assert.ok(Array.isArray(stacks) && stacks.length >= 80, `only ${stacks.length} points`);
  const ids = new Set();
  for (const m of stacks) {
    for (const f of FIELDS) assert.ok(f in m, `${m.id} lacks ${f}`);
    assert.match(m.id, /^s\d{4}$/);
    assert.ok(!ids.has(m.id), `duplicate id ${m.id}`);
    ids.add(m.id);
    assert.ok(STACKS.includes(m.stack), `${m.id}: stack ${m.stack}`);
    assert.ok(TASKS.includes(m.task), `${m.id}: task ${m.task}`);
    assert.ok(['measured', 'oom', 'fits'].includes(m.outcome), `${m.id}: outcome ${m.outcome}`);
    assert.equal(typeof m.stack_settings, 'object', `${m.id}: stack_settings`);
    assert.ok(m.stack_settings && !Array.isArray(m.stack_settings));
    assert.ok(typeof m.source === 'string' && /^(https?:\/\/|github:)/.test(m.source), `${m.id}: source ${m.source}`);
    assert.ok(typeof m.trust === 'string' && m.trust.length > 0, `${m.id}: trust`);
  }
});

test('every quote holds the digits of its number', () => {
  for (const m of stacks) {
    assert.ok(typeof m.quote === 'string' && m.quote.length > 0, `${m.id}: no quote`);
    if (m.measured_value !== null) {
      assert.equal(typeof m.measured_value, 'number', `${m.id}: measured_value`);
      assert.ok(m.unit, `${m.id}: a value needs its unit`);
      // The quote may print the number with thousands separators, trailing zeros (77.0, 20.00, 5,762)
      // or a decimal comma (66,86).
      const q = m.quote.replace(/(\d),(\d{3})/g, '$1$2');
      const d = digitsOf(m.measured_value);
      assert.ok(q.includes(d) || m.quote.includes(d.replace('.', ',')), `${m.id}: quote lacks ${m.measured_value}: ${m.quote}`);
    } else {
      // Fit / out-of-memory reports quote the figure that identifies the setting (card, length, ...).
      assert.notEqual(m.outcome, 'measured', `${m.id}: a measured point needs a value`);
      assert.ok(m.quote_number && m.quote.includes(m.quote_number), `${m.id}: quote lacks ${m.quote_number}`);
    }
  }
});

test('the reserved sources are absent', () => {
  for (const r of RESERVED) assert.ok(!text.toLowerCase().includes(r.toLowerCase()), `reserved source in measured-stacks.json: ${r}`);
  for (const m of stacks) {
    assert.ok(!/github\.com\/vllm-project\/vllm\/(issues|pull)\//.test(m.source), `${m.id}: a vLLM GitHub issue`);
    assert.ok(!/litgpt.*(resource-tables|config_hub\/finetune\/README)/i.test(m.source), `${m.id}: a reserved LitGPT table`);
    assert.ok(!/torchtune.*(README\.md|lora_finetune|qlora_finetune)/i.test(m.source), `${m.id}: a reserved torchtune source`);
    assert.ok(!/unslothai\/unsloth.*README/i.test(m.source), `${m.id}: the Unsloth README`);
  }
});

test('points.json reads every stack point: options, an exclusion, or what it still needs', () => {
  assert.ok(SCHEMA_OPTIONS.length > 50 && SCHEMA_OPTIONS.includes('parallel'), 'docs/api.md options table not found');
  let expressible = 0;
  for (const m of stacks) {
    const p = byId.get(m.id);
    assert.ok(p, `${m.id} has no points.json entry`);
    assert.equal(p.stack, m.stack, `${m.id}: stack differs in points.json`);
    assert.equal(p.outcome, m.outcome, `${m.id}: outcome differs in points.json`);
    const ways = [Boolean(p.exclude), Boolean(p.skip), Boolean(p.config)].filter(Boolean).length;
    assert.equal(ways, 1, `${m.id}: exactly one of exclude, skip, config`);
    assert.equal(p.headline, false, `${m.id}: stack points stay out of the headline figures`);
    if (p.skip) {
      assert.match(p.skip, /^needs /, `${m.id}: skip reads "needs <what>"`);
      assert.ok(p.intended_options && Object.keys(p.intended_options).length > 0, `${m.id}: intended_options`);
      for (const k of Object.keys(p.intended_options)) assert.ok(SCHEMA_OPTIONS.includes(k), `${m.id}: intended option ${k} is not in the schema`);
      // A skip names what the schema lacks: never an option that exists (such a skip is stale).
      assert.ok(Array.isArray(p.needs) && p.needs.length > 0, `${m.id}: needs`);
      for (const k of p.needs) {
        assert.ok(k in NEEDS, `${m.id}: need ${k} is not a documented gap (an option of today's schema is no reason to skip)`);
        const name = k.split('=')[0];
        if (k.includes('=') && SCHEMA_OPTIONS.includes(name)) assert.ok(name in p.intended_options, `${m.id}: need ${k} has no intended value`);
      }
    }
    if (p.config) {
      expressible++;
      assert.ok(fs.existsSync(path.join(dir, 'configs', p.config)), `${m.id}: missing config ${p.config}`);
      assert.ok(COMPARE.includes(p.compare) || (p.gpu && (p.compare === null || p.compare === 'serving')), `${m.id}: compare or gpu`);
      if (p.compare === 'serving') assert.equal(p.options.card, p.gpu, `${m.id}: a serving fit is read on the priced card`);
      for (const k of Object.keys(p.options)) assert.ok(SCHEMA_OPTIONS.includes(k), `${m.id}: option ${k} is not in today's schema`);
      assert.ok(Number.isFinite(p.value_bytes) || p.gpu, `${m.id}: value_bytes`);
    }
  }
  assert.ok(expressible >= 40, `only ${expressible} stack points expressible today`);
});

test('every config of a point names its source in tests/accuracy/configs/SOURCES.md', () => {
  const sources = fs.readFileSync(path.join(dir, 'configs', 'SOURCES.md'), 'utf8');
  for (const p of points.filter((x) => x.config && x.id.startsWith('s')))
    assert.ok(sources.includes('`' + p.config + '`'), `${p.id}: ${p.config} is not listed in configs/SOURCES.md`);
});

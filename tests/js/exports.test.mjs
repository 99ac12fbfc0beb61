// tests/js/exports.test.mjs: the training-config exports (web/src/exports/*.js, as the page and
// `scripts/cardfit --export` write them) for plans that exercise each layout: one card with LoRA,
// ZeRO-3 (FSDP), ZeRO-1 (DeepSpeed), a pipeline plan (its ZeRO alternative), QLoRA. Each YAML parses
// (the `yaml` package), the JSON parses, the Python compiles (python3 -m py_compile) and every
// export names the plan's own settings, read back from the file (Python by its AST).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const root = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);
const { renderExport, EXPORT_TARGETS } = await import(new URL('../../web/src/exports/targets.js', import.meta.url).href);
const example = (f) => readFileSync(join(root, 'web/examples', f), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'cardfit-exports-'));
let api;

// The Python files read back: SFTConfig/LoraConfig/BitsAndBytesConfig keyword arguments (literals,
// or their source text) and the measure script's PLAN and CONFIG.
const READ_PY = `
import ast, json, sys
tree = ast.parse(open(sys.argv[1]).read())
out = {}
for node in ast.walk(tree):
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("SFTConfig", "LoraConfig", "BitsAndBytesConfig"):
        kw = {}
        for k in node.keywords:
            try:
                kw[k.arg] = ast.literal_eval(k.value)
            except Exception:
                kw[k.arg] = ast.unparse(k.value)
        out[node.func.id] = kw
    if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id in ("PLAN", "CONFIG"):
        out[node.targets[0].id] = json.loads(ast.literal_eval(node.value.args[0]))
print(json.dumps(out))
`;

function python(file) {
  const compiled = spawnSync('python3', ['-m', 'py_compile', file], { encoding: 'utf8' });
  assert.equal(compiled.status, 0, `py_compile ${file}: ${compiled.stderr}`);
  const read = spawnSync('python3', ['-c', READ_PY, file], { encoding: 'utf8' });
  assert.equal(read.status, 0, read.stderr);
  return JSON.parse(read.stdout);
}

// Every export of one plan, written to files, parsed back.
function exportsOf(name, configText, options, modelId = '') {
  const report = api.plan(configText, options);
  assert.ok(report.ok, JSON.stringify(report.error));
  const out = { report };
  for (const t of EXPORT_TARGETS) {
    const { text } = renderExport(t.id, report, { options, configText, modelId });
    const file = join(dir, t.file(name));
    writeFileSync(file, text);
    out[t.id] = t.id === 'deepspeed' ? JSON.parse(text) : /yaml/.test(t.type) ? YAML.parse(text) : /python/.test(t.type) ? python(file) : text;
  }
  return out;
}

before(async () => { api = await require(join(root, 'dist/cardfit.js')).createCardfit(); });

// What every export must say of any training plan.
function commonChecks(x) {
  const p = x.report.plan;
  assert.equal(x.deepspeed.train_micro_batch_size_per_gpu, p.batch);
  assert.equal(x.deepspeed.gradient_accumulation_steps, p.grad_accum);
  assert.equal(x.axolotl.micro_batch_size, p.batch);
  assert.equal(x.axolotl.gradient_accumulation_steps, p.grad_accum);
  assert.equal(x.axolotl.sequence_len, p.seq);
  assert.equal(x.axolotl.gradient_checkpointing, p.grad_ckpt);
  const sft = x.trl.SFTConfig;
  assert.deepEqual([sft.per_device_train_batch_size, sft.gradient_accumulation_steps, sft.max_length, sft.gradient_checkpointing], [p.batch, p.grad_accum, p.seq, p.grad_ckpt]);
  assert.deepEqual([sft.bf16, sft.fp16], [/^bf16/.test(p.precision), p.precision === 'fp16-mixed']);
  assert.match(x.torchtune, new RegExp(`batch_size=${p.batch} gradient_accumulation_steps=${p.grad_accum} tokenizer\\.max_seq_len=${p.seq} enable_activation_checkpointing=${p.grad_ckpt ? 'True' : 'False'}`));
  const plan = x.measure.PLAN;
  assert.deepEqual([plan.mode, plan.micro_batch, plan.grad_accum, plan.seq, plan.precision, plan.grad_ckpt, plan.optimizer, plan.attention],
    [p.mode, p.batch, p.grad_accum, p.seq, p.precision, p.grad_ckpt, p.optimizer, p.attention]);
  assert.equal(plan.estimate_peak_bytes, p.peak_bytes, 'the script prints cardfit\'s own estimate');
  assert.equal(x.deepspeed.train_batch_size, p.batch * p.grad_accum * x.accelerate.num_processes);
}

test('LoRA on one card: targets, rank, dropout, accumulation and checkpointing in every export', () => {
  const options = { mode: 'lora', batch: 4, grad_accum: 8, grad_ckpt: true, lora_rank: 32, lora_dropout: 0.1, lora_targets: ['c_attn', 'c_proj'], seq: 256 };
  const x = exportsOf('gpt2-lora', example('gpt2.json'), options, 'openai-community/gpt2');
  commonChecks(x);
  assert.deepEqual([x.accelerate.distributed_type, x.accelerate.num_processes, x.accelerate.mixed_precision], ['NO', 1, 'bf16']);
  assert.equal(x.deepspeed.zero_optimization.stage, 0);
  assert.deepEqual([x.axolotl.adapter, x.axolotl.lora_r, x.axolotl.lora_dropout, x.axolotl.lora_target_modules, x.axolotl.base_model], ['lora', 32, 0.1, ['c_attn', 'c_proj'], 'openai-community/gpt2']);
  const lora = x.trl.LoraConfig;
  assert.deepEqual([lora.r, lora.lora_dropout, lora.target_modules, lora.task_type], [32, 0.1, ['c_attn', 'c_proj'], 'CAUSAL_LM']);
  assert.equal(x.trl.SFTConfig.model_init_kwargs, '{\'torch_dtype\': torch.bfloat16, \'attn_implementation\': \'sdpa\'}');
  assert.deepEqual([x.measure.PLAN.lora_rank, x.measure.PLAN.lora_targets, x.measure.PLAN.lora_dropout], [32, ['c_attn', 'c_proj'], 0.1]);
  assert.deepEqual(x.measure.CONFIG, JSON.parse(example('gpt2.json')), 'the measure script builds the same model');
  assert.match(x.torchtune, /^tune run lora_finetune_single_device .* model\.lora_rank=32 .*model\.lora_dropout=0\.1 "model\.lora_attn_modules=\[\]" model\.apply_lora_to_mlp=False/m);
});

test('a full fine-tune sharded with ZeRO-3: FSDP FULL_SHARD in accelerate, stage 3 in DeepSpeed', () => {
  const options = { card: 'a100-40gb', batch: 2, grad_accum: 4, grad_ckpt: true };
  const x = exportsOf('qwen7b-zero3', example('Qwen2.5-7B.json'), options);
  commonChecks(x);
  const priced = x.report.cost.priced;
  assert.equal(priced.strategy, 'zero3');
  assert.deepEqual([x.accelerate.distributed_type, x.accelerate.num_processes, x.accelerate.fsdp_config.fsdp_sharding_strategy, x.accelerate.fsdp_config.fsdp_activation_checkpointing],
    ['FSDP', priced.cards, 'FULL_SHARD', true]);
  assert.equal(x.deepspeed.zero_optimization.stage, 3);
  assert.equal(x.trl.SFTConfig.fsdp, 'full_shard auto_wrap');
  assert.equal(x.trl.SFTConfig.model_init_kwargs, '{\'torch_dtype\': torch.float32, \'attn_implementation\': \'sdpa\'}', 'bf16-mixed keeps fp32 master weights');
  assert.deepEqual(x.axolotl.fsdp, ['full_shard', 'auto_wrap']);
  assert.match(x.torchtune, new RegExp(`^tune run --nproc_per_node ${priced.cards} full_finetune_distributed `, 'm'));
});

test('ZeRO-1 on two cards: DeepSpeed in accelerate with the stage and accumulation', () => {
  const options = { card: 'h200', batch: 1, grad_accum: 16, precision: 'fp16-mixed' };
  const x = exportsOf('qwen7b-zero1', example('Qwen2.5-7B.json'), options);
  commonChecks(x);
  assert.equal(x.report.cost.priced.strategy, 'zero1');
  assert.deepEqual([x.accelerate.distributed_type, x.accelerate.deepspeed_config.zero_stage, x.accelerate.deepspeed_config.gradient_accumulation_steps, x.accelerate.mixed_precision],
    ['DEEPSPEED', 1, 16, 'fp16']);
  assert.deepEqual([x.deepspeed.zero_optimization.stage, x.deepspeed.fp16.enabled, x.deepspeed.bf16], [1, true, undefined]);
  assert.equal(x.trl.SFTConfig.optim, 'adamw_torch');
});

test('a pipeline plan: the exports use its ZeRO alternative and say so; with none, they refuse', () => {
  const x = exportsOf('qwen3b-pipeline', example('Qwen2.5-3B.json'), { card: 'a10g' });
  assert.equal(x.report.cost.priced.strategy, 'pipeline');
  const card = x.report.cards.find((c) => c.id === 'a10g');
  const alt = card.split.full.alternatives.filter((a) => /^zero/.test(a.strategy)).sort((a, b) => a.card_hours - b.card_hours || a.cards - b.cards)[0];
  commonChecks(x);
  assert.equal(x.accelerate.num_processes, alt.cards);
  assert.equal(x.deepspeed.zero_optimization.stage, Number(alt.strategy.slice(4)));
  assert.match(readFileSync(join(dir, 'qwen3b-pipeline.accelerate.yaml'), 'utf8'), new RegExp(`pipeline cut, which this tool does not configure; this uses the plan's ${alt.strategy} alternative on ${alt.cards} cards`));
  const only = api.plan(example('Qwen2.5-7B.json'), { card: 'a10g' });
  assert.ok(!only.cards.find((c) => c.id === 'a10g').split.full.alternatives.some((a) => /^zero/.test(a.strategy)));
  for (const id of ['accelerate', 'deepspeed', 'trl', 'axolotl', 'torchtune']) {
    assert.throws(() => renderExport(id, only, { options: {}, configText: example('Qwen2.5-7B.json') }), /needs a 19-stage pipeline cut .*pick a card with more memory/);
  }
  assert.match(renderExport('measure', only, { options: {}, configText: example('Qwen2.5-7B.json') }).text, /not reproduced here/);
});

test('QLoRA: the bitsandbytes base as planned (NF4, double quant) in TRL, Axolotl and the measure script', () => {
  const options = { mode: 'qlora', batch: 2, double_quant: false, optimizer: 'adamw8bit' };
  const x = exportsOf('qwen3b-qlora', example('Qwen2.5-3B.json'), options, 'Qwen/Qwen2.5-3B');
  commonChecks(x);
  const q = x.trl.BitsAndBytesConfig;
  assert.deepEqual([q.load_in_4bit, q.bnb_4bit_quant_type, q.bnb_4bit_use_double_quant], [true, 'nf4', false]);
  assert.equal(x.trl.LoraConfig.target_modules, 'all-linear');
  assert.deepEqual([x.axolotl.adapter, x.axolotl.load_in_4bit, x.axolotl.lora_target_linear], ['qlora', true, true]);
  assert.deepEqual([x.measure.PLAN.quant, x.measure.PLAN.double_quant], ['nf4', false]);
  assert.equal(x.trl.SFTConfig.optim, 'adamw_bnb_8bit');
  assert.equal(x.axolotl.optimizer, 'adamw_bnb_8bit');
  assert.match(x.torchtune, /optimizer\._component_=bitsandbytes\.optim\.AdamW8bit/);
});

test('Muon: the measure script steps Muon and AdamW; the HF exports say their optim cannot', () => {
  const options = { optimizer: 'muon', batch: 2, seq: 256 };
  const x = exportsOf('gpt2-muon', example('gpt2.json'), options);
  commonChecks(x);
  const text = (id) => renderExport(id, x.report, { options, configText: example('gpt2.json') }).text;
  for (const id of ['trl', 'axolotl']) assert.match(text(id), /cardfit planned Muon .*the Trainer has no Muon optim/, id);
  assert.match(x.torchtune, /torch\.optim\.Muon takes 2-D ones only/);
  assert.match(text('measure'), /torch\.optim\.Muon\(hidden, lr=1e-5\)/);
  const plain = renderExport('trl', api.plan(example('gpt2.json'), { batch: 2, seq: 256 }), { options: {}, configText: example('gpt2.json') }).text;
  assert.doesNotMatch(plain, /Muon/);
});

test('a serving plan still exports a measure script; a failed plan exports nothing', () => {
  const report = api.plan(example('gpt2.json'), { mode: 'serve', batch: 8 });
  const { text } = renderExport('measure', report, { options: {}, configText: example('gpt2.json') });
  const file = join(dir, 'serve.measure.py');
  writeFileSync(file, text);
  assert.equal(python(file).PLAN.mode, 'serve');
  assert.throws(() => renderExport('trl', { ok: false, error: {} }, {}), /no plan to export/);
  assert.throws(() => renderExport('kubeflow', report, {}), /Unknown export "kubeflow"/);
});

test('scripts/cardfit --export writes the same text as the page', () => {
  const options = { mode: 'lora', batch: 2, grad_accum: 2 };
  const report = api.plan(example('gpt2.json'), options);
  for (const id of ['deepspeed', 'axolotl']) {
    const r = spawnSync(process.execPath, [join(root, 'scripts/cardfit'), '--export', id, '--mode', 'lora', '--batch', '2', '--grad-accum', '2', join(root, 'web/examples/gpt2.json')], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, renderExport(id, report, { options, configText: example('gpt2.json') }).text);
  }
});

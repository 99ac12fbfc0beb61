// tests/js/cli.test.mjs: scripts/cardfit as a user runs it: files, stdin, --json and JSON Lines,
// exit codes and the error JSON on stderr. Not a test of the report's content (the core's tests).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync, mkdirSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const examplesDir = join(root, 'web', 'examples');
const examples = JSON.parse(readFileSync(join(examplesDir, 'examples.json'), 'utf8'))
  .map((x) => ({ ...x, path: join(examplesDir, x.file) }));
const [gpt2] = examples;

function cardfit(args, input) {
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'cardfit'), ...args],
    { input: input ?? '', encoding: 'utf8', timeout: 30_000, maxBuffer: 256 * 1024 * 1024 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
const lines = (text) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l));

test('--json on each example prints its report with the exact total', () => {
  for (const x of examples) {
    const r = cardfit(['--json', x.path]);
    assert.equal(r.code, 0, r.err);
    const [report] = lines(r.out);
    assert.equal(report.params.total, x.params_total, x.id);
  }
});

test('several configs with --json give JSON Lines, in order', () => {
  const r = cardfit(['--json', ...examples.map((x) => x.path)]);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(lines(r.out).map((x) => x.params.total), examples.map((x) => x.params_total));
});

test('- reads the config from standard input; options reach the core', () => {
  const r = cardfit(['--json', '--mode', 'lora', '--batch=2', '--lora-rank', '8', '-'], readFileSync(gpt2.path, 'utf8'));
  assert.equal(r.code, 0, r.err);
  const [report] = lines(r.out);
  assert.equal(report.params.total, gpt2.params_total);
  assert.deepEqual([report.plan.mode, report.plan.batch], ['lora', 2]);
});

test('Markdown is the default output', () => {
  const r = cardfit([gpt2.path]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /124,439,808/);
  assert.doesNotMatch(r.out, /^\{/);
});

test('malformed input exits 2 with the core error JSON on stderr', () => {
  const r = cardfit(['--json', '-'], '{"model_type": "gpt2",');
  assert.equal(r.code, 2);
  assert.equal(r.out, '');
  const [e] = lines(r.err);
  assert.equal(e.ok, false);
  assert.match(e.error.code, /^[a-z_]+\.[a-z_.]+$/);
  assert.equal(e.input, '-');
});

test('an unknown flag exits 2 with cli.unknown_option', () => {
  const r = cardfit(['--frobnicate', gpt2.path]);
  assert.equal(r.code, 2);
  assert.equal(lines(r.err)[0].error.code, 'cli.unknown_option');
});

test('an unreadable file exits 2 with cli.file_unreadable; the other configs still print', () => {
  const r = cardfit(['--json', gpt2.path, join(root, 'no-such-config.json')]);
  assert.equal(r.code, 2);
  assert.equal(lines(r.out)[0].params.total, gpt2.params_total);
  assert.equal(lines(r.err)[0].error.code, 'cli.file_unreadable');
});

test('a config that is not UTF-8 exits 2 with cli.not_utf8 naming the byte, not a lossy plan', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cardfit-'));
  const text = Buffer.from(readFileSync(gpt2.path, 'utf8'));
  const at = text.indexOf('"gpt2"') + 2;
  const bad = Buffer.concat([text.subarray(0, at), Buffer.from([0xff]), text.subarray(at)]);
  writeFileSync(join(dir, 'config.json'), bad);
  const r = cardfit(['--json', join(dir, 'config.json')]);
  assert.equal(r.code, 2);
  const e = lines(r.err)[0].error;
  assert.equal(e.code, 'cli.not_utf8');
  assert.match(e.message, new RegExp(`byte ${at} \\(0xff\\)`));
  assert.equal(r.out, '');
});

test('--safetensors reads only the header of a .safetensors file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cardfit-'));
  const header = Buffer.from(JSON.stringify({
    __metadata__: { format: 'pt' },
    'wte.weight': { dtype: 'F32', shape: [2, 3], data_offsets: [0, 24] },
  }));
  const file = join(dir, 'model.safetensors');
  const prefix = Buffer.alloc(8);
  prefix.writeBigUInt64LE(BigInt(header.length));
  writeFileSync(file, Buffer.concat([prefix, header, Buffer.alloc(24, 0xff)]));
  // The header reached the core: it either reconciles its 6 scalars or judges it with a core code.
  const r = cardfit(['--json', '--safetensors', file, gpt2.path]);
  if (r.code === 0) assert.equal(lines(r.out)[0].checkpoint.scalars, 6);
  else assert.match(lines(r.err)[0].error.code, /^(?!cli\.|api\.)/, r.err);
  writeFileSync(file, Buffer.from('not a safetensors file'));
  const bad = cardfit(['--json', '--safetensors', file, gpt2.path]);
  assert.equal(bad.code, 2);
  assert.equal(lines(bad.err)[0].error.code, 'cli.safetensors_invalid');
});

test('--help prints usage and exits 0', () => {
  const r = cardfit(['--help']);
  assert.equal(r.code, 0);
  assert.match(r.out, /^usage: scripts\/cardfit/);
});

test('without a build it says how to build and exits 1', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cardfit-'));
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(join(root, 'scripts', 'cardfit'), join(dir, 'scripts', 'cardfit'));
  const r = spawnSync(process.execPath, [join(dir, 'scripts', 'cardfit'), gpt2.path], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 1);
  const [e] = lines(r.stderr);
  assert.equal(e.error.code, 'cli.not_built');
  assert.match(e.error.message, /scripts\/build/);
});

test('--json prints the core report alone; --graph and --tensors add those sections (and imply --json)', () => {
  const plain = lines(cardfit(['--json', gpt2.path]).out)[0];
  assert.equal(plain.graph, undefined);
  assert.equal(plain.params.tensors, undefined);
  assert.equal(plain.markdown, undefined);
  const r = cardfit(['--graph', '--tensors', gpt2.path]);
  assert.equal(r.code, 0, r.err);
  const [full] = lines(r.out);
  assert.equal(full.graph.nodes.length, full.graph.node_count);
  assert.ok(full.graph.blocks.some((b) => b.repeat === 12));
  assert.equal(full.params.tensors[0].name, 'transformer.wte.weight');
  assert.equal(full.params.tensors.length, full.params.tensor_count);
  assert.equal(full.graph.ok, undefined);
  const moe = examples.find((x) => /Mixtral/.test(x.id));
  const stacked = lines(cardfit(['--tensors', moe.path]).out)[0].params.tensors;
  const expanded = lines(cardfit(['--tensors=expanded', moe.path]).out)[0].params.tensors;
  assert.ok(stacked.length < expanded.length);
  assert.equal(expanded.length, lines(cardfit(['--json', moe.path]).out)[0].params.tensor_count);
});

test('the Markdown mode prints the core\'s markdown() twin', () => {
  const r = cardfit([gpt2.path]);
  assert.match(r.out, /^# gpt2: GPU memory and cost/);
  assert.match(r.out, /## Structure/);
});

test('--fit CARD adds the fit section: the changes that make gemma-2-9b-it fit an A10G, each re-planned', () => {
  const gemma = examples.find((x) => x.file === 'gemma-2-9b-it.json');
  const r = cardfit(['--json', '--mode', 'lora', '--fit', 'a10g', gemma.path]);
  assert.equal(r.code, 0, r.err);
  const [report] = lines(r.out);
  assert.equal(report.fit.card, 'a10g');
  assert.equal(report.fit.fits, false);
  const byId = Object.fromEntries(report.fit.changes.map((c) => [c.id, c]));
  for (const id of ['grad_ckpt', 'qlora', 'zero3']) assert.ok(byId[id]?.saved_bytes > 0, id);
  // A change's saving is the difference of two plans: the request and the request with its options.
  const after = lines(cardfit(['--json', '--mode', 'lora', '--grad-ckpt', gemma.path]).out)[0];
  assert.equal(byId.grad_ckpt.saved_bytes, report.plan.reserved_bytes - after.plan.reserved_bytes);
  assert.equal(report.fit.longest_seq.length, report.cards.length);
  const md = cardfit(['--mode', 'lora', '--fit', 'a10g', gemma.path]);
  assert.equal(md.code, 0, md.err);
  assert.match(md.out, /## Make it fit: NVIDIA A10G/);
  assert.match(md.out, /Gradient checkpointing/);
  const bad = cardfit(['--fit', 'nope', gemma.path]);
  assert.equal(bad.code, 2);
});

test('a numeral past a double is refused by name, never sent as null (the default)', () => {
  for (const [flag, value, path] of [['--mfu', '1e400', 'mfu'], ['--batch', '9'.repeat(400), 'batch'], ['--prices', 'h100-sxm=1e400', 'prices.h100-sxm']]) {
    const r = cardfit(['--json', flag, value, gpt2.path]);
    assert.equal(r.code, 2, `${flag} ${value.slice(0, 20)}: ${r.out.slice(0, 80)}`);
    const { error } = JSON.parse(r.err.split('\n')[0]);
    assert.deepEqual([error.code, error.path], ['options.value', path]);
  }
});

// tests/js/cli-native.test.mjs: the native command line (build/tools/cli/cardfit-native, from the
// native build; CARDFIT_NATIVE_BUILD names another build folder) answers as scripts/cardfit does:
// the same flags, byte-identical JSON Lines and Markdown on every golden config and example, the
// same error codes and exit statuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const native = join(root, process.env.CARDFIT_NATIVE_BUILD ?? 'build', 'tools', 'cli', 'cardfit-native');

// The golden configs as files (their config objects) and the page's examples as written.
const dir = mkdtempSync(join(tmpdir(), 'cardfit-cli-native-'));
const configs = readdirSync(join(root, 'tests/golden/models')).filter((f) => f.endsWith('.json')).map((f) => {
  const path = join(dir, f);
  writeFileSync(path, JSON.stringify(JSON.parse(readFileSync(join(root, 'tests/golden/models', f), 'utf8')).config));
  return path;
});
const examples = readdirSync(join(root, 'web/examples')).filter((f) => f.endsWith('.json') && f !== 'examples.json')
  .map((f) => join(root, 'web/examples', f));

function run(program, args, input = '') {
  const argv = program === 'js' ? [process.execPath, [join(root, 'scripts', 'cardfit'), ...args]] : [native, args];
  const r = spawnSync(argv[0], argv[1], { input, encoding: 'utf8', timeout: 120_000, maxBuffer: 1 << 30 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function same(args, input) {
  const js = run('js', args, input), nat = run('native', args, input);
  assert.equal(nat.code, js.code, `exit status of ${args.join(' ')}: ${nat.err}`);
  assert.equal(nat.err, js.err, `standard error of ${args.join(' ')}`);
  assert.ok(nat.out === js.out, `standard output of ${args.join(' ')} differs`);
  return nat;
}

test('the native command line is built', () => {
  assert.ok(existsSync(native), `${native} is missing: build the native tree first (cmake --build build)`);
});

test('JSON Lines are byte-identical to scripts/cardfit for every golden config and example', () => {
  const r = same(['--json', ...configs, ...examples]);
  assert.equal(r.out.split('\n').filter(Boolean).length, configs.length + examples.length);
});

test('every kind of flag reaches the core as scripts/cardfit sends it', () => {
  const some = examples.slice(0, 3);
  same(['--json', '--mode', 'qlora', '--batch=4', '--seq', '1024', '--grad-ckpt', '--optimizer', 'adamw8bit', '--mfu', '0.35',
    '--lora-targets', 'q_proj, v_proj', '--prices', 'h100-sxm=2.5,a100-80gb=1', '--cards', 'h100-sxm,a100-80gb', ...some]);
  same(['--json', '--mode', 'serve', '--serve-dtype', 'int4', '--kv-dtype', 'fp8', '--gpus', '8', '--bandwidth-efficiency', '1',
    '--double-quant', 'false', ...some]);
});

test('--safetensors reads the header the same way, and refuses a file that is not one alike', () => {
  const header = Buffer.from(JSON.stringify({ __metadata__: { format: 'pt' }, 'wte.weight': { dtype: 'F32', shape: [50257, 768], data_offsets: [0, 0] } }));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(header.length));
  writeFileSync(join(dir, 'h.safetensors'), Buffer.concat([length, header]));
  writeFileSync(join(dir, 'bad.safetensors'), Buffer.from([1, 2]));
  const gpt2 = join(root, 'web/examples/gpt2.json');
  assert.equal(same(['--json', '--safetensors', join(dir, 'h.safetensors'), gpt2]).code, 0);
  assert.equal(same(['--json', '--safetensors', join(dir, 'bad.safetensors'), gpt2]).code, 2);
});

test('Markdown is byte-identical, reports separated by one blank line', () => {
  same([...examples.slice(0, 2)]);
});

test('standard input is read once, even when - is given twice', () => {
  same(['--json', '-', '-'], readFileSync(examples[0], 'utf8'));
});

test('bad input: the same codes, messages and exit status 2', () => {
  same(['--json', '--batch', 'x', examples[0]]);  // the core refuses the value by name
  same(['--json', '--mfu', '1e400', examples[0]]);  // past a double: refused, not sent as null
  same(['--json', '--mfu', '1e-400', examples[0]]);  // under a double: 0, as Number() reads it, refused by the core
  same(['--json', '--batch']);
  same(['--json', '--grad-ckpt=true', examples[0]]);
  same(['--json', join(root, 'web/examples/README.md'), examples[0]]);  // an error, then a report
  // The same codes where the messages name the program, its inputs (no hub ids natively) or the
  // reason each runtime gives for an unreadable file.
  const error = (r) => JSON.parse(r.err.split('\n')[0]).error.code;
  for (const [args, code] of [[['--json', '--no-such-flag', examples[0]], 'cli.unknown_option'], [['--json'], 'cli.no_config'],
    [['--json', join(dir, 'missing.json')], 'cli.file_unreadable']]) {
    const js = run('js', args), nat = run('native', args);
    assert.deepEqual([nat.code, error(nat), nat.out], [js.code, error(js), js.out], args.join(' '));
    assert.equal(error(nat), code);
  }
});

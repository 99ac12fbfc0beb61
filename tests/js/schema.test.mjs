// tests/js/schema.test.mjs: everything derived from the core's option schema and error registry
// (cardfit.describe) agrees with it: the generated cardfit.d.ts and docs/api.md tables, the CLI's
// flags and usage, the share link and the widget's attributes (web/src/state.js, widget.js), the
// page's options form (web/index.html), and every error code string of the JS side.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (f) => readFileSync(join(root, f), 'utf8');
const cardfit = await require(join(root, 'dist/cardfit.js')).createCardfit();
const { options, groups, errors } = cardfit.describe;
const codes = new Set(errors.map((e) => e.code));
const byName = new Map(options.map((o) => [o.name, o]));

// A valid value away from the default, per option, from the schema alone.
function sample(o) {
  switch (o.type) {
    case 'enum': return o.values.at(-1);
    case 'integer': return o.max > 2 ** 40 ? 2 ** 40 : o.max;
    case 'number': return o.max;
    case 'boolean': return o.default !== true;
    case 'names': return o.name === 'cards' ? ['t4', 'h100-sxm'] : ['c_attn', 'c_proj'];  // card ids; gpt2's module names (unknown names are refused)
    case 'map': return { 'h100-sxm': 2.5, t4: 0.35 };
    default: return 'h100-sxm';
  }
}

// The page's modules as the build bundles them, with the same injected schema (tests/js/web-loader.mjs).
const { importWeb } = await import('./web-loader.mjs');

test('the schema: 91 options with distinct flags, each in a group, every default stated', () => {
  assert.equal(options.length, 91);
  assert.equal(new Set(options.map((o) => o.flag)).size, options.length);
  const groupIds = new Set(groups.map((g) => g.id));
  for (const o of options) {
    assert.ok(groupIds.has(o.group), o.name);
    assert.ok(o.default !== null || o.default_note, o.name);
  }
  // The core accepts every serving dtype it models; the schema says so, so every front end does.
  assert.deepEqual(byName.get('serve_dtype').values, ['bf16', 'fp16', 'fp32', 'fp8', 'int8', 'int4', 'nf4']);
  assert.ok(Object.isFrozen(options) && Object.isFrozen(options[0]));
});

test('every sample value of the schema is accepted by the core, and every default too', () => {
  const gpt2 = read('web/examples/gpt2.json');
  for (const o of options) {
    if (o.flag_reads) continue;  // file texts: the checkpoint tests
    // checkpoint_total must be a plausible total of this model (core/plan/validate.cpp): gpt2's file's.
    const small = o.name === 'checkpoint_total' ? 137022720
      : o.type === 'integer' ? Math.min(o.min + 1, o.max) : o.type === 'number' ? (o.min + o.max) / 2 : sample(o);
    const r = cardfit.plan(gpt2, { [o.name]: small });
    assert.equal(r.ok, true, `${o.name}: ${JSON.stringify(r.error)}`);
    if (o.default !== null) assert.equal(cardfit.plan(gpt2, { [o.name]: o.default }).ok, true, o.name);
  }
});

test('cardfit.d.ts and docs/api.md are what scripts/gen-types.mjs makes of the schema', () => {
  const r = spawnSync(process.execPath, [join(root, 'scripts/gen-types.mjs'), '--check'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const dts = read('wasm/cardfit.d.ts');
  const fields = [...dts.split('export interface PlanOptions {')[1].split('\n}')[0].matchAll(/^ {2}(\w+)\?:/gm)].map((m) => m[1]);
  assert.deepEqual(fields, options.map((o) => o.name));
  const section = read('docs/api.md').split('## Options')[1].split('\n## ')[0];
  const documented = section.split('\n').filter((l) => l.startsWith('| `')).map((l) => l.split('`')[1]);
  assert.deepEqual(documented, options.map((o) => o.name));
});

test('the CLI builds its flags and usage from the schema and keeps the historical spellings', () => {
  const cli = require(join(root, 'scripts/cardfit'));
  const flags = cli.flagTable(options);
  assert.deepEqual(Object.keys(flags).sort(), options.map((o) => o.flag).sort());
  // The spellings scripts/cardfit had before the schema (a user's scripts use them).
  const historical = ['--mode', '--batch', '--seq', '--serve-seq', '--lora-rank', '--lora-targets', '--optimizer', '--precision',
    '--grad-ckpt', '--attention', '--serve-dtype', '--kv-dtype', '--gpus', '--card', '--checkpoint-total', '--safetensors',
    '--safetensors-index', '--epochs', '--samples', '--cost-batch', '--mfu', '--prices', '--modules-to-save', '--lora-dropout',
    '--dropout', '--qlora-quant', '--double-quant', '--kbit-upcast', '--autocast', '--deepspeed-bucket', '--grad-accum',
    '--optimizer-impl', '--decoder-seq', '--images', '--cuda-context-bytes', '--allocator-reserve', '--borderline-factor'];
  for (const f of historical) assert.ok(flags[f], f);
  assert.deepEqual(flags['--safetensors'], ['safetensors_header', 'safetensors']);
  const text = cli.usage(cardfit.describe);
  for (const o of options) {
    assert.ok(text.includes(o.flag), o.flag);
    for (const v of o.values || []) assert.ok(text.includes(v), `${o.flag} ${v}`);
  }
  const parsed = cli.parseArgs(['--json', '--grad-ckpt', '--batch', '4', '--mfu=0.5', '--double-quant', 'false', '--serve-dtype', 'nf4',
    '--lora-targets', 'q_proj, v_proj', '--prices', 'h100-sxm=2.5,t4=0.35', '--seq', 'lots', '-', 'a.json'], flags);
  assert.equal(parsed.json, true);
  assert.deepEqual(parsed.inputs, ['-', 'a.json']);
  assert.deepEqual(parsed.options, { grad_ckpt: true, batch: 4, mfu: 0.5, double_quant: false, serve_dtype: 'nf4',
    lora_targets: ['q_proj', 'v_proj'], prices: { 'h100-sxm': 2.5, t4: 0.35 }, seq: 'lots' });
  const run = spawnSync(process.execPath, [join(root, 'scripts/cardfit'), '--json', '--mode', 'serve', '--serve-dtype', 'nf4', join(root, 'web/examples/gpt2.json')], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout).plan.mode, 'serve');
});

test('a share link carries every option of the schema and reads it back with its type', async () => {
  const { encodeState, decodeState } = await importWeb('state.js');
  const all = Object.fromEntries(options.filter((o) => !o.flag_reads).map((o) => [o.name, sample(o)]));
  const back = await decodeState(await encodeState({ a: { text: '{"model_type": "gpt2"}' }, options: all, view: 'plan' }));
  assert.deepEqual(JSON.parse(JSON.stringify(back.options)), all);
  // Text that is not of the option's type stays text, for the core to refuse with its own message.
  const odd = await decodeState('#v1&a=j.e30&batch=4x&grad_ckpt=yes&mfu=.5&serve_dtype=nf4&frobnicate=1');
  assert.deepEqual(JSON.parse(JSON.stringify(odd.options)), { batch: '4x', grad_ckpt: 'yes', mfu: 0.5, serve_dtype: 'nf4', frobnicate: 1 });
});

test('the widget takes every option of the schema as an attribute', async () => {
  const { OPTION_ATTRS, attrOptions } = await importWeb('widget-attrs.js');
  assert.deepEqual([...OPTION_ATTRS].sort(), options.map((o) => o.name.replace(/_/g, '-')).sort());
  const attrs = { 'grad-ckpt': '', 'double-quant': 'false', 'serve-dtype': 'nf4', 'lora-rank': '8', prices: 'h100-sxm:2.5', 'lora-targets': 'q_proj,v_proj', mfu: '0.3', images: '0' };
  const node = { hasAttribute: (a) => a in attrs, getAttribute: (a) => attrs[a] };
  assert.deepEqual(JSON.parse(JSON.stringify(attrOptions(node))), { grad_ckpt: true, double_quant: false, serve_dtype: 'nf4', lora_rank: 8,
    prices: { 'h100-sxm': 2.5 }, lora_targets: ['q_proj', 'v_proj'], mfu: 0.3, images: 0 });
});

test('the options form offers every option in its group, with the schema\'s values, ranges and defaults', () => {
  const html = read('web/index.html');
  const form = html.slice(html.indexOf('<form id="options"'), html.indexOf('</form>'));
  const titles = Object.fromEntries(groups.map((g) => [g.id, g.title]));
  const fromFiles = new Set(['safetensors_header', 'safetensors_index']);  // the file drop and the hub fetch
  for (const o of options) {
    if (fromFiles.has(o.name)) continue;
    const at = [form.indexOf(`name="${o.name}"`), form.indexOf(`id="opt-${o.name}"`)].filter((i) => i >= 0);
    assert.ok(at.length, `${o.name} has no field`);
    const start = Math.min(...at);
    const legends = [...form.slice(0, start).matchAll(/<legend>([^<]*)<\/legend>/g)];
    assert.equal(legends.at(-1)[1], titles[o.group], `${o.name} is under "${legends.at(-1)[1]}"`);
    const tagStart = form.lastIndexOf('<', start);
    const tag = form.slice(tagStart, form.indexOf('>', start) + 1);
    const attr = (n) => (tag.match(new RegExp(`\\s${n}="([^"]*)"`)) || [])[1];
    if (o.type === 'enum' && o.name === 'mode') {
      const radios = [...form.matchAll(/<input type="radio" name="mode" value="([^"]+)"/g)].map((m) => m[1]);
      assert.deepEqual(radios, o.values);
    } else if (o.type === 'enum' || (o.type === 'boolean' && tag.startsWith('<select'))) {
      const select = form.slice(tagStart, form.indexOf('</select>', start));
      const opts = [...select.matchAll(/<option(?: value="([^"]*)")?>([^<]*)<\/option>/g)].map((m) => ({ value: m[1] ?? m[2], label: m[2] }));
      assert.deepEqual(opts.filter((x) => x.value !== '').map((x) => x.value), o.type === 'enum' ? o.values : ['true', 'false'], o.name);
      const dflt = opts.find((x) => x.value === '');
      if (o.default !== null) assert.equal(dflt.label, `default (${o.default})`, o.name);
    } else if (o.type === 'boolean') {
      assert.equal(attr('type'), 'checkbox', o.name);
      assert.equal(o.default, false, `${o.name}: an unticked box means false`);
    } else if ((o.type === 'integer' || o.type === 'number') && attr('type') === 'number') {
      if (o.type === 'integer') assert.equal(attr('step'), '1', o.name);
      const min = Number(attr('min'));
      if (o.min_exclusive) assert.ok(min > o.min && min <= o.max, o.name);
      else assert.equal(min, o.min, `${o.name} min`);
      if (attr('max') !== undefined) assert.equal(Number(attr('max')), o.max, `${o.name} max`);
      else assert.ok(o.type === 'integer', `${o.name}: a bounded number needs its max`);
      const ph = attr('placeholder');
      if (o.default !== null && ph !== undefined) assert.equal(ph, String(o.default), `${o.name} placeholder`);
    }
  }
});

test('every error code string of the JS side is in the core\'s registry, with the registry\'s message', () => {
  const files = ['wasm/api.js', 'scripts/cardfit', 'scripts/cardfit-hub.js', 'wasm/bindings.cpp', ...readdirSync(join(root, 'web/src'), { recursive: true }).filter((f) => f.endsWith('.js')).map((f) => `web/src/${f}`)];
  const prefixes = [...new Set(errors.map((e) => e.code.split('.')[0]))].join('|');
  const pattern = new RegExp(`['"\`]((?:${prefixes})\\.[a-z_]+)['"\`]`, 'g');
  const found = new Set();
  for (const f of files) {
    const src = read(f);
    for (const m of src.matchAll(pattern)) if (!/\.(json|js|css|md)$/.test(m[1])) found.add(m[1]);
    // A HubError (alias SourceError) of kind K has code hub.K, or safetensors.invalid (web/src/hub.js).
    for (const m of src.matchAll(/new (?:Hub|Source)Error\(([^,]+),/g)) {
      for (const k of m[1].matchAll(/'([a-z_]+)'/g)) found.add(k[1] === 'safetensors' ? 'safetensors.invalid' : `hub.${k[1]}`);
    }
  }
  assert.ok(found.size >= 15, [...found].join(' '));
  assert.deepEqual([...found].filter((c) => !codes.has(c)), []);
  const summary = (c) => errors.find((e) => e.code === c).summary;
  assert.equal(cardfit.plan(undefined).error.message, summary('api.config_not_string'));
  assert.equal(cardfit.plan('{}', 7).error.message, summary('api.options_not_object'));
  const circular = {};
  circular.self = circular;
  assert.equal(cardfit.plan('{}', circular).error.code, 'api.options_not_json');
});

test('deep option values are refused with options.value (or api.options_not_json), never a crash', () => {
  const gpt2 = read('web/examples/gpt2.json');
  const deep = (n) => { let v = 1; for (let i = 0; i < n; i++) v = [v]; return v; };
  for (const name of ['batch', 'lora_targets', 'prices', 'mode']) {
    const r = cardfit.plan(gpt2, { [name]: deep(800) });
    assert.equal(r.error.code, 'options.value', name);
    assert.equal(r.error.path, name);
    assert.ok(r.error.message.length < 300, r.error.message);
  }
  // Deeper than JS itself can stringify: refused before the core, as the caller's value.
  assert.equal(cardfit.plan(gpt2, { batch: deep(1e6) }).error.code, 'api.options_not_json');
  assert.equal(cardfit.plan(gpt2, { batch: 2 }).ok, true);
});

test('a 100,000-deep option value as JSON text reaches the wasm core and is options.value', async () => {
  const raw = await require(join(root, 'dist/cardfit.js')).createCardfitModule();
  const deepText = `{"batch": ${'['.repeat(100000)}${']'.repeat(100000)}}`;
  const r = JSON.parse(raw.handle(read('web/examples/gpt2.json'), deepText));
  assert.deepEqual([r.error.code, r.error.path], ['options.value', 'batch']);
  assert.match(r.error.message, /nesting deeper than 64 levels/);  // the strict reader, before any option
});

// tests/js/determinism.test.mjs: the wasm module (dist/cardfit.js) and the native core
// (build/tests/cpp/cardfit_plan_native, from the native build; CARDFIT_NATIVE_BUILD names another
// build folder) give byte-identical answers for every golden config and example under several
// option sets, and for the hostile-input table. A difference is a bug in one of the two builds
// (float formatting, a libc difference, a wasm32 size truncation), never something to tolerate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const require = createRequire(import.meta.url);
const root = new URL('../../', import.meta.url);
const { createCardfitModule } = require(new URL('dist/cardfit.js', root).pathname);
const native = new URL(`${process.env.CARDFIT_NATIVE_BUILD ?? 'build'}/tests/cpp/cardfit_plan_native`, root).pathname;

const configs = [];
for (const dir of ['tests/golden/models/', 'web/examples/']) {
  for (const f of readdirSync(new URL(dir, root)).filter((f) => f.endsWith('.json') && f !== 'examples.json')) {
    const j = JSON.parse(readFileSync(new URL(dir + f, root), 'utf8'));
    configs.push({ name: dir + f, text: dir.startsWith('web') ? readFileSync(new URL(dir + f, root), 'utf8') : JSON.stringify(j.config) });
  }
}
const optionSets = [
  {},
  { mode: 'qlora', qlora_quant: 'nf4', batch: 4, seq: 1024, optimizer: 'adamw8bit', grad_ckpt: true, card: 'a100-80gb', mfu: 0.35, samples: 100000 },
  { mode: 'serve', serve_dtype: 'int4', kv_dtype: 'fp8', batch: 16, gpus: 8 },
];

function nativeAnswers(requests) {
  const input = requests.map((r) => JSON.stringify(r)).join('\n') + '\n';
  const out = execFileSync(native, ['-'], { input, maxBuffer: 1 << 30 }).toString('utf8');
  return out.split('\n').filter((l) => l.length > 0);
}

test('the native runner is built', () => {
  assert.ok(existsSync(native), `${native} is missing: build the native tree first (cmake --build build)`);
});

test('wasm and native reports are byte-identical for every golden config and option set', async () => {
  const raw = await createCardfitModule();
  const requests = [];
  for (const c of configs) for (const o of optionSets) requests.push({ config: c.text, options: JSON.stringify(o), name: c.name });
  const nat = nativeAnswers(requests);
  assert.equal(nat.length, requests.length);
  let same = 0;
  for (let i = 0; i < requests.length; i++) {
    const w = raw.handle(requests[i].config, requests[i].options);
    if (w !== nat[i]) {
      let at = 0;
      while (at < w.length && w[at] === nat[i][at]) at++;
      assert.fail(`${requests[i].name} ${requests[i].options}: wasm and native differ at character ${at}:\n` +
        `wasm:   ${w.slice(Math.max(0, at - 80), at + 80)}\nnative: ${nat[i].slice(Math.max(0, at - 80), at + 80)}`);
    }
    same++;
  }
  assert.equal(same, configs.length * optionSets.length);
  assert.ok(configs.length >= 70);
});

test('wasm and native give the same error for every hostile case that a JS string can carry', async () => {
  const raw = await createCardfitModule();
  const dir = new URL('tests/golden/errors/', root);
  const requests = [];
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const c = JSON.parse(readFileSync(new URL(f, dir), 'utf8'));
    if (c.config_hex) continue;  // bytes that are not UTF-8: a JS string cannot hold them
    let config = c.config;
    if (c.base) {
      const cfg = JSON.parse(readFileSync(new URL(`tests/golden/models/${c.base}.json`, root), 'utf8')).config;
      config = JSON.stringify(mergePatch(cfg, c.merge ?? {}));
    } else if (typeof config !== 'string') {
      config = JSON.stringify(config);
    }
    const options = c.options === undefined ? '{}' : typeof c.options === 'string' ? c.options : JSON.stringify(c.options);
    requests.push({ config, options, name: f, exact: !c.base });
  }
  const nat = nativeAnswers(requests);
  for (let i = 0; i < requests.length; i++) {
    const w = raw.handle(requests[i].config, requests[i].options);
    // A merged config went through JS numbers here (2^63 − 1 becomes 2^63): the same error, but the
    // message may quote the value as JS rounded it. Literal texts must match byte for byte.
    if (requests[i].exact) assert.equal(w, nat[i], requests[i].name);
    const [a, b] = [JSON.parse(w).error, JSON.parse(nat[i]).error];
    assert.deepEqual([a.code, a.path], [b.code, b.path], requests[i].name);
  }
});

// RFC 7386, as nlohmann's merge_patch (the C++ test's "merge").
function mergePatch(target, patch) {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

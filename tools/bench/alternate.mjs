#!/usr/bin/env node
// tools/bench/alternate.mjs: two or more builds of dist/cardfit.js timed side by side in one Node
// process, alternating, so that a host whose speed drifts (docs/performance.md) compares them under
// the same conditions. Run it on one core: taskset -c 0 node tools/bench/alternate.mjs A.js B.js.
// Each build plans the config once and re-plans it 300 times (V8 recompiles the hot wasm as it
// runs), then each round times, per build and in alternating order, 60 re-plans with a new LoRA
// rank, 60 with new epochs and 10 first plans (a new text), through the JS API: wasm, decode and
// JSON.parse, what the page waits for. Prints the median of the rounds' medians, in ms.
// A benchmark, not a test. --config FILE (a config.json; default gemma-2-9b-it's golden config),
// --rounds N (default 8).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const configFile = option('--config', null);
const rounds = Number(option('--rounds', 8));
const builds = args.map((b) => path.resolve(b));
if (builds.length < 2) {
  console.error('usage: node tools/bench/alternate.mjs BUILD.js BUILD.js [...] [--config FILE] [--rounds N]');
  process.exit(2);
}
const config = configFile ? fs.readFileSync(configFile, 'utf8')
  : JSON.stringify(JSON.parse(fs.readFileSync(path.join(root, 'tests', 'golden', 'models', 'gemma-2-9b-it.json'), 'utf8')).config, null, 2);

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const apis = [];
for (const b of builds) apis.push(await require(b).createCardfit());
let n = 0;  // a counter: no call repeats options (or a text) of the calls just before it
const rank = () => 8 + (n++ % 60000);  // lora_rank's range ends at 65536
const time = (count, call) => {
  const ms = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const r = call();
    ms.push(performance.now() - t0);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
  }
  return median(ms);
};
for (const api of apis) {
  api.plan(config, {});
  time(300, () => api.plan(config, { lora_rank: rank() }));
}
const results = builds.map(() => ({ replan: [], epochs: [], first: [] }));
for (let round = 0; round < rounds; round++) {
  for (let k = 0; k < apis.length; k++) {
    const i = round % 2 ? apis.length - 1 - k : k;
    const api = apis[i];
    results[i].replan.push(time(60, () => api.plan(config, { lora_rank: rank() })));
    results[i].epochs.push(time(60, () => api.plan(config, { epochs: 2 + n++ })));
    results[i].first.push(time(10, () => api.plan(config + ' '.repeat(++n), {})));
  }
}
console.log('| build | re-plan, new LoRA rank | re-plan, new epochs | first plan | re-plan per round |');
console.log('|---|---:|---:|---:|---|');
builds.forEach((b, i) => {
  const r = results[i];
  console.log(`| ${path.relative(process.cwd(), b)} | ${median(r.replan).toFixed(3)} | ${median(r.epochs).toFixed(3)} | ` +
    `${median(r.first).toFixed(2)} | ${r.replan.map((x) => x.toFixed(2)).join(' ')} |`);
});

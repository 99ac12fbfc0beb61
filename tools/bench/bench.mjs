#!/usr/bin/env node
// tools/bench/bench.mjs: the benchmark of issue 9 (run it through scripts/bench). One run times the
// same cases natively (the cardfit_bench executable) and in wasm (dist/cardfit.js under Node),
// side by side, plus the CLI's JSON Lines throughput on one core, and prints the machine it ran on.
// A benchmark, not a timed test: nothing here passes or fails on a number.
//   node tools/bench/bench.mjs --native build/tools/bench/cardfit_bench [--runs N] [--max-layers N]
//                              [--no-wasm] [--no-native] [--json]
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const RUNS = Number(flag('--runs', 11));
const MAX_LAYERS = Number(flag('--max-layers', 1024));
const NATIVE = flag('--native', path.join(root, 'build', 'tools', 'bench', 'cardfit_bench'));
const WANT_WASM = !args.includes('--no-wasm');
const WANT_NATIVE = !args.includes('--no-native');
const WANT_STAGES = !args.includes('--no-stages');

// The calls timed, in one place (tools/bench/bench_calls.hpp has the native pair): plan() of a new
// text (run r appends r newlines, so it traces again) and plan() after an option change (the trace
// cached; a LoRA rank per run, so neither the JS API's answers nor the core repeat one).
const calls = {
  full_plan: (api, config, options, run) => api.plan(config + '\n'.repeat(run), options),
  replan: (api, config, options, run) => api.plan(config, { ...options, lora_rank: 8 + run }),
  // A change no memory model reads (the cost's epochs): the core's memory models come from its
  // cache (core/plan/memory_cache.hpp).
  replan_cost: (api, config, options, run) => api.plan(config, { ...options, epochs: 2 + run }),
};

// ---- The cases: texts written once, read by both halves -------------------------------------
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cardfit-bench-'));
const golden = (name) => JSON.parse(fs.readFileSync(path.join(root, 'tests', 'golden', 'models', name), 'utf8')).config;
const write = (name, config) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
};
const gemma = write('gemma-2-9b-it.json', golden('gemma-2-9b-it.json'));
const deepseek = write('deepseek-v3.json', golden('deepseek-v3.json'));
// The most layers a config may have is 1,024 (core/limits.cpp): the largest case is that limit.
const llamaLayers = [128, 1024].filter((n) => n <= MAX_LAYERS);
const llama = Object.fromEntries(llamaLayers.map((n) => [n, write(`llama-${n}.json`, { ...golden('meta-llama-3-8b.json'), num_hidden_layers: n })]));
const allGolden = fs.readdirSync(path.join(root, 'tests', 'golden', 'models')).filter((f) => f.endsWith('.json')).sort()
  .map((f) => write(`golden-${f}`, golden(f)));

const runsFor = (ms) => Math.max(1, Math.min(RUNS, ms)); // fewer runs for the slow cases
const cases = [
  { case: 'gemma-2-9b-it full plan', calls: 'plan', runs: RUNS, configs: [gemma], options: {} },
  { case: 'gemma-2-9b-it re-plan (new LoRA rank)', calls: 'replan', runs: RUNS, configs: [gemma], options: {} },
  { case: 'gemma-2-9b-it re-plan (new epochs)', calls: 'replan_cost', runs: RUNS, configs: [gemma], options: {} },
  // The same after 500 re-plans: V8 runs a new module's wasm in its baseline compiler (Liftoff) and
  // recompiles the hot functions as they run, so a page's first option changes are slower than the
  // ones after; this is the latency once the page has been in use (both halves warm alike).
  { case: 'gemma-2-9b-it re-plan (new LoRA rank), warmed', calls: 'replan', runs: RUNS, warm: 500, configs: [gemma], options: {} },
  { case: 'gemma-2-9b-it re-plan (new epochs), warmed', calls: 'replan_cost', runs: RUNS, warm: 500, configs: [gemma], options: {} },
  { case: 'DeepSeek-V3 full plan', calls: 'plan', runs: runsFor(5), configs: [deepseek], options: {} },
  { case: 'DeepSeek-V3 re-plan (new LoRA rank)', calls: 'replan', runs: runsFor(5), configs: [deepseek], options: {} },
  { case: 'DeepSeek-V3 re-plan (new epochs)', calls: 'replan_cost', runs: runsFor(5), configs: [deepseek], options: {} },
  ...llamaLayers.map((n) => ({ case: `llama ${n} layers full plan`, calls: 'plan', runs: runsFor(5), configs: [llama[n]], options: {} })),
  ...llamaLayers.slice(-1).map((n) => ({ case: `llama ${n} layers re-plan (new LoRA rank)`, calls: 'replan', runs: runsFor(5), configs: [llama[n]], options: {} })),
  { case: `all ${allGolden.length} golden configs`, calls: 'configs', runs: runsFor(3), configs: allGolden, options: {} },
];
// Native only: where one handle() spends its time, step by step.
const stageCases = [
  { case: 'gemma-2-9b-it', calls: 'stages', runs: RUNS, configs: [gemma], options: {} },
  { case: 'DeepSeek-V3', calls: 'stages', runs: runsFor(5), configs: [deepseek], options: {} },
  ...llamaLayers.map((n) => ({ case: `llama ${n} layers`, calls: 'stages', runs: runsFor(3), configs: [llama[n]], options: {} })),
];
const casesFile = path.join(dir, 'cases.json');
fs.writeFileSync(casesFile, JSON.stringify(WANT_STAGES ? [...cases, ...stageCases] : cases));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// ---- Native --------------------------------------------------------------------------------
const native = {};
if (WANT_NATIVE) {
  if (!fs.existsSync(NATIVE)) throw new Error(`${NATIVE} is missing: scripts/bench builds it (CARDFIT_BUILD_TOOLS=ON)`);
  const out = execFileSync(NATIVE, [casesFile], { encoding: 'utf8', maxBuffer: 1 << 30 });
  for (const line of out.trim().split('\n')) {
    const r = JSON.parse(line);
    native[r.case] = r;
  }
}

// ---- Wasm under Node -------------------------------------------------------------------------
const wasm = {};
if (WANT_WASM) {
  const { createCardfit } = require(path.join(root, 'dist', 'cardfit.js'));
  const api = await createCardfit();
  for (const c of cases) {
    const texts = c.configs.map((f) => fs.readFileSync(f, 'utf8'));
    api.plan(texts[0], {});  // warm, as the native side: the config planned once
    // and `warm` calls more of the case's own kind, with options no timed run repeats
    const warmCall = c.calls === 'plan' || c.calls === 'configs' ? calls.full_plan : calls[c.calls];
    for (let i = 0; i < (c.warm || 0); i++) warmCall(api, texts[0], c.options, 100000 + i);
    const ms = [], cpu = [];
    let bytes = 0;
    for (let r = 0; r < c.runs; r++) {
      const t0 = performance.now(), c0 = process.cpuUsage();
      for (const text of texts) {
        const report = c.calls === 'plan' || c.calls === 'configs' ? calls.full_plan(api, text, c.options, r + 1)
          : calls[c.calls](api, text, c.options, r);
        if (!report.ok) throw new Error(`${c.case}: ${JSON.stringify(report.error)}`);
        if (r === 0) bytes = Math.max(bytes, Buffer.byteLength(JSON.stringify(report)));
      }
      ms.push(performance.now() - t0);
      const c1 = process.cpuUsage(c0);
      cpu.push((c1.user + c1.system) / 1000);
    }
    wasm[c.case] = { median_ms: median(ms), min_ms: Math.min(...ms), median_cpu_ms: median(cpu), bytes, runs: c.runs };
  }
}

// ---- The CLIs, JSON Lines, on one core ----------------------------------------------------------
// scripts/cardfit (wasm under Node) and build/tools/cli/cardfit-native, each on the golden configs
// once and eight times over in one run (start-up amortised), pinned to one core where taskset exists,
// writing to a file (as `cardfit --json *.json > out.jsonl`): a pipe read by this process would time
// Node's reading of ~75 MB as well.
const taskset = spawnSync('taskset', ['--version']).status === 0;
function cliRate(argv, configs) {
  const seconds = [];
  let lines = 0;
  const outFile = path.join(dir, 'cli-out.jsonl');
  for (let r = 0; r < runsFor(3); r++) {
    const out = fs.openSync(outFile, 'w');
    const t0 = performance.now();
    const p = taskset ? spawnSync('taskset', ['-c', '0', ...argv, '--json', ...configs], { stdio: ['ignore', out, 'pipe'], encoding: 'utf8' })
                      : spawnSync(argv[0], [...argv.slice(1), '--json', ...configs], { stdio: ['ignore', out, 'pipe'], encoding: 'utf8' });
    seconds.push((performance.now() - t0) / 1000);
    fs.closeSync(out);
    if (p.status === null) throw new Error(`${argv.at(-1)} was killed`);
    if (p.status !== 0) throw new Error(`${argv.at(-1)} failed: ${p.stderr.slice(0, 400)}`);
    lines = fs.readFileSync(outFile, 'utf8').trim().split('\n').length;
  }
  return { configs: lines, median_s: median(seconds), per_s: lines / median(seconds), pinned: taskset };
}
const eightTimes = Array.from({ length: 8 }, () => allGolden).flat();
const cli = WANT_WASM ? cliRate([process.execPath, path.join(root, 'scripts', 'cardfit')], allGolden) : null;
const nativeCliPath = path.join(path.dirname(NATIVE), '..', 'cli', 'cardfit-native');  // beside tools/bench in the build
const nativeCli = WANT_NATIVE && fs.existsSync(nativeCliPath)
  ? [cliRate([nativeCliPath], allGolden), cliRate([nativeCliPath], eightTimes)] : [];

// ---- The machine ---------------------------------------------------------------------------------
const sh = (cmd, a) => {
  const p = spawnSync(cmd, a, { encoding: 'utf8', cwd: root });
  return p.status === 0 ? (p.stdout || p.stderr).trim().split('\n')[0] : 'unavailable';
};
const dirty = sh('git', ['status', '--porcelain', '--untracked-files=no']) !== 'unavailable' &&
  spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8', cwd: root }).stdout.trim() !== '';
const machine = {
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cores: os.cpus().length,
  load: os.loadavg().map((x) => x.toFixed(1)).join(' '),
  node: process.version,
  emcc: sh('emcc', ['--version']),
  commit: sh('git', ['rev-parse', '--short', 'HEAD']) + (dirty ? ' (with uncommitted changes)' : ''),
  date: new Date().toISOString(),
};

const stages = stageCases.map((c) => native[c.case]).filter(Boolean);
if (args.includes('--json')) {
  console.log(JSON.stringify({ machine, cases: cases.map((c) => ({ case: c.case, native: native[c.case], wasm: wasm[c.case] })), cli, native_cli: nativeCli, stages }));
} else {
  const fmt = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(0));
  const ms = (r) => (r ? `${fmt(r.median_ms)} (cpu ${fmt(r.median_cpu_ms)})` : '–');
  const kb = (r) => (r ? (r.bytes / 1024).toFixed(0) + ' KB' : '–');
  console.log(`machine: ${machine.cpu}, ${machine.cores} cores (load ${machine.load}); node ${machine.node}; ${machine.emcc}`);
  console.log(`commit: ${machine.commit}; ${machine.date}; median of up to ${RUNS} runs per case`);
  console.log('');
  console.log('| case | native ms (wall, cpu) | wasm ms (wall, cpu) | runs | report |');
  console.log('|---|---:|---:|---:|---:|');
  for (const c of cases) {
    const n = native[c.case], w = wasm[c.case];
    console.log(`| ${c.case} | ${ms(n)} | ${ms(w)} | ${c.runs} | ${kb(n || w)} |`);
  }
  const core = (c) => (c.pinned ? ', one core (taskset -c 0)' : '');
  if (cli) console.log(`| CLI --json, ${cli.configs} golden configs${core(cli)} | | ${cli.per_s.toFixed(1)} configs/s | | |`);
  for (const c of nativeCli) console.log(`| cardfit-native --json, ${c.configs} golden configs${core(c)} | ${c.per_s.toFixed(1)} configs/s | | | |`);
  if (native[cases.at(-1).case]) {
    const n = native[cases.at(-1).case];
    console.log(`| native plan(), same configs | ${(n.configs / (n.median_ms / 1000)).toFixed(1)} configs/s (cpu ${(n.configs / (n.median_cpu_ms / 1000)).toFixed(1)}) | | | |`);
  }
  if (stages.length) {
    const names = ['parse', 'trace', 'catalog', 'plan', 'checks', 'core_report'];
    console.log('');
    console.log('Native plan(), ms per step (wall, median):');
    console.log('');
    console.log(`| config | ${names.join(' | ')} |`);
    console.log(`|---|${names.map(() => '---:').join('|')}|`);
    for (const s of stages) console.log(`| ${s.case} | ${names.map((n) => fmt(s.stages[n] ?? 0)).join(' | ')} |`);
  }
}
fs.rmSync(dir, { recursive: true, force: true });

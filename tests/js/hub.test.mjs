// tests/js/hub.test.mjs: the hub client (web/src/hub.js, as Node loads it) and scripts/cardfit
// with hub ids, against the mock hub of tests/mock-hub.mjs: metadata, Link pagination, config per
// revision, the safetensors header by two Range requests, every error as a coded message, the
// token kept out of URLs, --history, --export on a hub id, offline in one line with exit 2, and a
// closed pipe without a stack trace.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { startServer } from '../mock-hub.mjs';
import { historyRepo, historyCommits, HISTORY_ID } from '../hub-fixtures.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);
const { makeHubClient, nextLink } = await import(new URL('../../web/src/hub.js', import.meta.url).href);

const QWEN3B_TOTAL = 3085938688;
const UNTIED_EXTRA = 151936 * 2048;   // the lm_head an untied Qwen2.5-3B adds
let hub, closedPort;

function tinySafetensors() {
  const header = Buffer.from(JSON.stringify({ __metadata__: { format: 'pt' }, 'wte.weight': { dtype: 'F32', shape: [2, 3], data_offsets: [0, 24] } }));
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(header.length));
  return { file: Buffer.concat([len, header, Buffer.alloc(4096, 0xab)]), length: header.length };
}
const tiny = tinySafetensors();

before(async () => {
  const gpt2 = (await import('node:fs')).readFileSync(join(root, 'web/examples/gpt2.json'), 'utf8');
  hub = await startServer({
    repos: {
      [HISTORY_ID]: await historyRepo(),
      'acme/single-file': { files: { 'config.json': gpt2, 'model.safetensors': tiny.file }, redirect: true },
      'acme/gated': { files: { 'config.json': gpt2 }, token: 'hf_test_token', info: { gated: 'manual' } },
      'acme/forbidden': { status: 403, errorCode: 'GatedRepo' },
      'acme/busy': { status: 429 },
      'acme/slow': { files: { 'config.json': gpt2 }, delayMs: 3000 },
    },
  });
  const s = createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  closedPort = s.address().port;
  await new Promise((r) => s.close(r));
});
after(() => hub?.close());

const client = (more) => makeHubClient({ endpoint: hub.base, ...more });
async function code(promise) {
  try { await promise; } catch (e) { return e.code; }
  return 'no error';
}

test('metadata: the ModelInfo fields cardfit shows, cached per id and revision', async () => {
  const c = client();
  const info = await c.modelInfo(HISTORY_ID, 'main');
  assert.deepEqual([info.downloads, info.likes, info.gated, info.library, info.pipelineTag, info.safetensorsTotal],
    [711234, 321, false, 'transformers', 'text-generation', QWEN3B_TOTAL]);
  const n = hub.log.length;
  await c.modelInfo(HISTORY_ID, 'main');
  assert.equal(hub.log.length, n, 'the second call is served from the cache');
  await c.modelInfo(HISTORY_ID, historyCommits[2].id);
  assert.equal(hub.log.at(-1).path, `/api/models/${HISTORY_ID}/revision/${historyCommits[2].id}`);
});

test('commits: every page, joined by the Link header', async () => {
  hub.log.length = 0;
  const list = await client().commits(HISTORY_ID, 'main');
  assert.deepEqual(list.map((c) => c.id), historyCommits.map((c) => c.id));
  assert.deepEqual(hub.log.map((r) => r.query), ['?limit=100', '?limit=2&p=1']);
  assert.equal(nextLink('<https://h/api/x?p=2>; rel="next", <https://h/api/x?p=0>; rel="prev"'), 'https://h/api/x?p=2');
  assert.equal(nextLink(''), null);
});

test('the safetensors header: two Range requests through the CDN redirect, never the weights', async () => {
  hub.log.length = 0;
  const text = await client().safetensorsHeader('acme/single-file', 'main');
  assert.equal(JSON.parse(text)['wte.weight'].shape.join('x'), '2x3');
  const ranges = hub.log.map((r) => r.range);
  assert.deepEqual(ranges, ['bytes=0-7', 'bytes=0-7', 'bytes=0-7'.replace('0-7', `8-${8 + tiny.length - 1}`), `bytes=8-${8 + tiny.length - 1}`]);
});

test('errors are coded: missing repo, file, revision; gated; bad token; 403; 429; timeout; unreachable', async () => {
  assert.equal(await code(client().file('nobody/nothing', 'main', 'config.json')), 'hub.repo_not_found');
  assert.equal(await code(client().file(HISTORY_ID, 'main', 'tokenizer.model')), 'hub.not_found');
  assert.equal(await code(client().file(HISTORY_ID, 'v9', 'config.json')), 'hub.revision_not_found');
  assert.equal(await code(client().file('acme/gated', 'main', 'config.json')), 'hub.gated');
  assert.equal(await code(client({ token: 'hf_wrong' }).file('acme/gated', 'main', 'config.json')), 'hub.unauthorized');
  assert.equal(await code(client().file('acme/forbidden', 'main', 'config.json')), 'hub.gated');
  const busy = await client().file('acme/busy', 'main', 'config.json').catch((e) => e);
  assert.equal(busy.code, 'hub.rate_limited');
  assert.match(busy.message, /HTTP 429.*wait 60 s/);
  const slow = await client({ timeoutMs: 300 }).file('acme/slow', 'main', 'config.json').catch((e) => e);
  assert.equal(slow.code, 'hub.timeout');
  assert.match(slow.message, /within 0.3 s/);
  assert.equal(await code(makeHubClient({ endpoint: `http://127.0.0.1:${closedPort}` }).file('a/b', 'main', 'config.json')), 'hub.unreachable');
});

test('a token goes in the Authorization header only, never in a URL', async () => {
  hub.log.length = 0;
  const got = await client({ token: 'hf_test_token' }).fetchModel('acme/gated');
  assert.match(got.config, /"model_type": "gpt2"/);
  assert.ok(hub.log.length > 0 && hub.log.every((r) => r.auth === 'Bearer hf_test_token'));
  assert.ok(hub.log.every((r) => !`${r.path}${r.query}`.includes('hf_test_token')));
});

// scripts/cardfit, run asynchronously (the mock hub lives in this process).
function cardfit(args, { env = {}, shell = null } = {}) {
  return new Promise((resolve) => {
    const child = shell
      ? spawn('bash', ['-c', shell], { cwd: root, env: { ...process.env, ...env } })
      : spawn(process.execPath, [join(root, 'scripts', 'cardfit'), ...args], { cwd: root, env: { ...process.env, HF_ENDPOINT: '', HF_TOKEN: '', ...env } });
    let out = '', err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (status) => { clearTimeout(timer); resolve({ code: status, out, err }); });
  });
}
const errLines = (r) => r.err.split('\n').filter(Boolean);

test('cardfit org/name: config and index from the hub, the hub total reconciled as checkpoint_total', async () => {
  const r = await cardfit(['--json', '--hub-endpoint', hub.base, HISTORY_ID]);
  assert.equal(r.code, 0, r.err);
  const report = JSON.parse(r.out);
  assert.equal(report.params.total, QWEN3B_TOTAL);
  assert.equal(report.checkpoint.source, 'safetensors_index+checkpoint_total');
  assert.equal(report.checkpoint.scalars, QWEN3B_TOTAL);
  assert.equal(report.checkpoint.unexplained, 0);
  assert.deepEqual(report.checkpoint.missing, []);
  assert.equal(report.hub.downloads, 711234);
  const md = await cardfit(['--hub-endpoint', hub.base, HISTORY_ID]);
  assert.match(md.out, /^Hub: acme\/qwen-history · 711\.2K downloads · 321 likes · last modified 2024-09-19T10:00:00\.000Z · not gated · library transformers · pipeline text-generation · safetensors\.total 3,085,938,688\n/);
});

test('org/name@revision with HF_ENDPOINT: the config of that commit', async () => {
  const r = await cardfit(['--json', `${HISTORY_ID}@${historyCommits[2].id}`], { env: { HF_ENDPOINT: hub.base } });
  assert.equal(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out).params.total, QWEN3B_TOTAL + UNTIED_EXTRA);
});

test('a single-file checkpoint: the safetensors header read over Range, like the page', async () => {
  hub.log.length = 0;
  const r = await cardfit(['--json', '--hub-endpoint', hub.base, 'acme/single-file']);
  assert.equal(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out).checkpoint.source, 'safetensors_header');
  assert.equal(JSON.parse(r.out).checkpoint.scalars, 6);
  assert.ok(hub.log.filter((x) => /safetensors$/.test(x.path)).every((x) => x.range), 'no request for the whole file');
});

test('a gated model: one coded line and exit 2 without HF_TOKEN; planned with it', async () => {
  const r = await cardfit(['--hub-endpoint', hub.base, 'acme/gated']);
  assert.equal(r.code, 2);
  assert.equal(r.out, '');
  assert.equal(errLines(r).length, 1);
  const e = JSON.parse(r.err);
  assert.equal(e.error.code, 'hub.gated');
  assert.match(e.error.message, /Set HF_TOKEN/);
  const ok = await cardfit(['--json', '--hub-endpoint', hub.base, 'acme/gated'], { env: { HF_TOKEN: 'hf_test_token' } });
  assert.equal(ok.code, 0, ok.err);
  assert.equal(JSON.parse(ok.out).hub.gated, 'manual');
  assert.ok(!ok.out.includes('hf_test_token') && !ok.err.includes('hf_test_token'), 'the token is never printed');
});

test('offline: one clear line, exit 2, no stack trace', async () => {
  for (const args of [['--hub-endpoint', `http://127.0.0.1:${closedPort}`, 'Qwen/Qwen3-8B'], ['--hub-endpoint', `http://127.0.0.1:${closedPort}`, '--history', 'Qwen/Qwen3-8B']]) {
    const r = await cardfit(args);
    assert.equal(r.code, 2, r.err);
    assert.equal(r.out, '');
    assert.equal(errLines(r).length, 1, r.err);
    const e = JSON.parse(r.err);
    assert.equal(e.error.code, 'hub.unreachable');
    assert.match(e.error.message, /could not be reached.*offline/);
    assert.doesNotMatch(r.err, /\n\s+at /);
  }
  const slow = await cardfit(['--hub-endpoint', hub.base, '--hub-timeout', '0.3', 'acme/slow']);
  assert.equal(slow.code, 2);
  assert.equal(JSON.parse(slow.err).error.code, 'hub.timeout');
});

test('--history: each upstream config change with its effect on parameters and memory', async () => {
  const r = await cardfit(['--hub-endpoint', hub.base, '--history', HISTORY_ID]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /3 commits read .*config\.json at 3; 1 change to the config or the checkpoint index/);
  assert.match(r.out, /^Checkpoint index: total_size [\d,]+ → [\d,]+ bytes; removed `lm_head\.weight`\.$/m);
  const row = (field) => r.out.split('\n').find((l) => l.startsWith(`| \`$.${field}\``)) || '';
  assert.match(row('tie_word_embeddings'), /\| `false` \| `true` \| parameters -311,164,928; Full fine-tune memory -\d/);
  assert.match(row('max_position_embeddings'), /`131072` \| `32768` \| no effect on memory or cost/);
  assert.match(row('transformers_version'), /no effect on memory or cost/);
  const j = await cardfit(['--json', '--hub-endpoint', hub.base, '--history', HISTORY_ID]);
  const h = JSON.parse(j.out);
  assert.equal(h.changes.length, 1);
  assert.equal(h.changes[0].from.id, historyCommits[1].id, 'the README commit folds into the unchanged run');
  const tie = h.changes[0].diffs.find((d) => d.path === '$.tie_word_embeddings');
  assert.equal(tie.deltas.find((d) => d.key === 'parameters').delta, -UNTIED_EXTRA);
  assert.ok(tie.deltas.find((d) => d.key === 'modes.full').delta < 0);
  assert.deepEqual([h.changes[0].index.removed, h.changes[0].index.added, h.changes[0].index.present], [['lm_head.weight'], [], [true, true]]);
});

test('--history-limit reads only the newest commits (one page here)', async () => {
  hub.log.length = 0;
  const r = await cardfit(['--json', '--hub-endpoint', hub.base, '--history', HISTORY_ID, '--history-limit', '2']);
  assert.equal(r.code, 0, r.err);
  const h = JSON.parse(r.out);
  assert.deepEqual([h.commits, h.read, h.changes.length], [2, 2, 1]);
  assert.equal(hub.log.filter((x) => x.path.includes('/commits/')).length, 1, 'the second page is not asked for');
  const bad = await cardfit(['--history', HISTORY_ID, '--history-limit', '1']);
  assert.equal(bad.code, 2);
  assert.equal(JSON.parse(bad.err).error.code, 'cli.bad_value');
});

test('--export on a hub id names the model; an unknown target is a coded error', async () => {
  const r = await cardfit(['--hub-endpoint', hub.base, '--export', 'axolotl', '--mode', 'lora', HISTORY_ID]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^base_model: "acme\/qwen-history"$/m);
  const bad = await cardfit(['--export', 'kubeflow', join(root, 'web/examples/gpt2.json')]);
  assert.equal(bad.code, 2);
  assert.equal(JSON.parse(bad.err).error.code, 'cli.export');
});

test('a closed pipe (| head) ends quietly: no EPIPE stack trace', async () => {
  const files = ['gpt2', 'Qwen2.5-3B', 'Qwen2.5-7B', 'Meta-Llama-3-8B'].map((f) => `web/examples/${f}.json`).join(' ');
  const r = await cardfit(null, { shell: `node scripts/cardfit --json ${files} ${files} 2>/tmp/cardfit-epipe-$$.err | head -c 100 >/dev/null; cat /tmp/cardfit-epipe-$$.err; rm -f /tmp/cardfit-epipe-$$.err` });
  assert.equal(r.out, '', 'nothing on stderr');
});

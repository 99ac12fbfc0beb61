// scripts/cardfit-hub.js: what scripts/cardfit does with the hub and the exports, loaded only
// when a hub id, --history or --export is used. Hub ids are read with the page's own client
// (web/src/hub.js, Node 20's fetch): config.json, the index or the safetensors header over HTTP
// Range, the metadata (safetensors.total → checkpoint_total beside an index). --history plans
// config.json at each commit and prints what each changed field does (web/src/changes.js, as the
// page's history panel). --export writes a training config from the plan
// (web/src/exports/*.js). Not a planner: every number comes from the core's reports.
'use strict';
const path = require('node:path');

const WEB = path.join(__dirname, '..', 'web', 'src');
const { makeHubClient, parseHubId, HUB_DEFAULT } = require(path.join(WEB, 'hub.js'));
const { analyseHistory, indexChangeText } = require(path.join(WEB, 'changes.js'));
const { EXPORT_TARGETS, renderExport } = require(path.join(WEB, 'exports', 'targets.js'));

// A hub client from the flags and the environment (HF_ENDPOINT, HF_TOKEN as huggingface_hub reads
// them). The token is used for requests only: never printed, never written anywhere.
function client(hub) {
  const endpoint = hub.endpoint || process.env.HF_ENDPOINT || HUB_DEFAULT;
  return makeHubClient({ endpoint, token: process.env.HF_TOKEN || '', timeoutMs: hub.timeoutMs, instead: 'Give the config.json as a file instead.',
    tokenHint: 'Set HF_TOKEN to a read token of an account with access.' });
}

// A hub model as the CLI plans it: its config text and the options the checkpoint gives.
async function fromHub(input, hub, userOptions) {
  const got = await client(hub).fetchModel(input);
  const options = {};
  const userGave = ['safetensors_header', 'safetensors_index', 'checkpoint_total'].some((k) => userOptions[k] !== undefined);
  if (!userGave) {
    if (got.header) options.safetensors_header = got.header.text;
    else if (got.index) options.safetensors_index = got.index.text;
    if (!got.header && got.info && Number.isSafeInteger(got.info.safetensorsTotal)) options.checkpoint_total = got.info.safetensorsTotal;
  }
  const label = got.revision !== 'main' ? `${got.id}@${got.revision}` : got.id;
  return { text: got.config, options, info: got.info, notes: got.notes, label };
}

function compact(n) {
  if (typeof n !== 'number') return '—';
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}K` : String(n);
}

// One Markdown line of hub facts, printed above the report.
function hubLine(label, info) {
  if (!info) return `Hub: ${label} (no metadata).`;
  const gated = info.gated === false || info.gated === null ? 'not gated' : `gated (${info.gated})`;
  return `Hub: ${label} · ${compact(info.downloads)} downloads · ${compact(info.likes)} likes · last modified ${info.lastModified || '—'} · ${gated}` +
    ` · library ${info.library || '—'} · pipeline ${info.pipelineTag || '—'} · safetensors.total ${info.safetensorsTotal === null ? '—' : info.safetensorsTotal.toLocaleString('en-US')}`;
}

const formatDelta = (d) => {
  const sign = d.delta > 0 ? '+' : '-';
  const v = Math.abs(d.delta);
  const val = d.unit === 'usd' ? `$${v.toFixed(2)}` : d.unit === 'count' ? v.toLocaleString('en-US') : `${(v / 1e9).toFixed(3)} GB`;
  return `${d.label} ${sign}${val}`;
};
const cell = (v) => (v === undefined ? '(absent)' : JSON.stringify(v));
const short = (c) => `${String(c.id).slice(0, 7)}${c.date ? ` (${String(c.date).slice(0, 10)})` : ''}`;

// A file that may be missing at a revision: its text, or null.
async function optional(promise) {
  try { return await promise; } catch (e) { if (e.kind === 'not_found') return null; throw e; }
}

// --history ID: the upstream config changes, oldest first, each field with its effect.
async function history(input, hub, cardfit, options, limit, json) {
  const { id, revision } = parseHubId(input);
  const c = client(hub);
  const commits = await c.commits(id, revision, limit);
  const revisions = [];
  for (const commit of commits.slice().reverse()) {
    revisions.push({ commit, config: await optional(c.file(id, commit.id, 'config.json')), index: await optional(c.file(id, commit.id, 'model.safetensors.index.json')) });
  }
  const changes = await analyseHistory(revisions, async (text, o) => cardfit.plan(text, o), options);
  if (json) return JSON.stringify({ ok: true, id, revision, commits: commits.length, read: revisions.filter((r) => r.config !== null).length, changes }) + '\n';
  const out = [`# What changed upstream: ${id}@${revision}`, '',
    `${commits.length} commit${commits.length === 1 ? '' : 's'} read (newest ${limit} at most), config.json at ${revisions.filter((r) => r.config !== null).length}; ${changes.length} change${changes.length === 1 ? '' : 's'} to the config or the checkpoint index. Effects: cardfit plans the older config with only that field changed.`];
  for (const ch of changes) {
    out.push('', `## ${short(ch.from)} → ${short(ch.to)}: ${ch.to.title || ''}`.trimEnd(), '');
    if (ch.index) out.push(indexChangeText(ch.index), '');
    if (!ch.diffs.length && !ch.error) { out.push('config.json unchanged.'); continue; }
    out.push(ch.error ? `Not planned: ${ch.error}.` : `Whole change: ${ch.deltas.length ? ch.deltas.map(formatDelta).join('; ') : 'no effect on memory or cost'}.`, '');
    out.push('| Field | Before | After | Effect alone |', '|---|---|---|---|');
    for (const d of ch.diffs) {
      const eff = d.error ? d.error : d.deltas && d.deltas.length ? d.deltas.map(formatDelta).join('; ') : 'no effect on memory or cost';
      out.push(`| \`${d.path}\` | \`${cell(d.inA ? d.a : undefined)}\` | \`${cell(d.inB ? d.b : undefined)}\` | ${eff} |`);
    }
  }
  return out.join('\n') + '\n';
}

function exportText(target, report, ctx) {
  return renderExport(target, report, ctx).text;
}

module.exports = { fromHub, hubLine, history, exportText, EXPORT_IDS: EXPORT_TARGETS.map((t) => t.id) };

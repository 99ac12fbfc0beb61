// web/src/changes.js: what changed between two configs and what each change does, shared by the
// compare view (web/src/compare.js), the revision history (web/src/history-panel.js) and the CLI
// (scripts/cardfit --history, by require()). A field's effect is measured by asking the core: plan
// the older config with only that field set to the newer value and compare the two reports'
// numbers. Not a planner: every number is a report's; this file only subtracts them.

export function flattenConfig(value, path, out) {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (!keys.length && path !== '$') out.set(path, value);
    for (const k of keys) flattenConfig(value[k], `${path}.${k}`, out);
  } else {
    out.set(path, value);
  }
  return out;
}

export function setPath(obj, path, value, remove) {
  const keys = path.replace(/^\$\./, '').split('.');
  let o = obj;
  for (const k of keys.slice(0, -1)) {
    if (!o[k] || typeof o[k] !== 'object') o[k] = {};
    o = o[k];
  }
  if (remove) delete o[keys.at(-1)];
  else o[keys.at(-1)] = value;
}

// configDiff(textA, textB) → {a, b, diffs: [{path, a, b, inA, inB}]}, or null if either is not JSON.
export function configDiff(textA, textB) {
  let a, b;
  try { a = JSON.parse(textA); b = JSON.parse(textB); } catch (e) { return null; }
  if (!a || typeof a !== 'object' || !b || typeof b !== 'object') return null;
  const fa = flattenConfig(a, '$', new Map()), fb = flattenConfig(b, '$', new Map());
  const paths = [...new Set([...fa.keys(), ...fb.keys()])];
  const diffs = [];
  for (const p of paths) {
    const va = fa.get(p), vb = fb.get(p);
    if (JSON.stringify(va) !== JSON.stringify(vb)) diffs.push({ path: p, a: va, b: vb, inA: fa.has(p), inB: fb.has(p) });
  }
  return { a, b, diffs };
}

// The config with one field of another config applied (the "this field alone" what-if).
export function withField(base, d) {
  const mod = structuredClone(base);
  setPath(mod, d.path, d.b, !d.inB);
  return JSON.stringify(mod);
}

const CHANGE_MODE_NAMES = { full: 'Full fine-tune', lora: 'LoRA', qlora: 'QLoRA', serve: 'Serve' };

// The measures a config change can move, read from a report: [{key, label, unit, value}].
export function changeMeasures(r) {
  const out = [];
  if (!r || !r.ok) return out;
  const add = (key, label, unit, value) => { if (typeof value === 'number' && Number.isFinite(value)) out.push({ key, label, unit, value }); };
  add('parameters', 'parameters', 'count', (r.params || {}).total);
  for (const mode of Object.keys(CHANGE_MODE_NAMES)) if ((r.modes || {})[mode]) add(`modes.${mode}`, `${CHANGE_MODE_NAMES[mode]} memory`, 'bytes', r.modes[mode].reserved_bytes);
  add('plan', 'your plan memory', 'bytes', (r.plan || {}).reserved_bytes);
  const c = r.cost || {};
  if (c.priced && c.priced.fits && c.priced.priced) add('cost.priced', 'priced run cost', 'usd', c.priced.usd);
  if (c.cheapest) add('cost.cheapest', 'cheapest run cost', 'usd', c.cheapest.usd);
  return out;
}

// measureDeltas(base, changed) → [{key, label, unit, a, b, delta}] for the measures that moved.
export function measureDeltas(base, changed) {
  const b = new Map(changeMeasures(changed).map((m) => [m.key, m.value]));
  const out = [];
  for (const m of changeMeasures(base)) {
    if (!b.has(m.key)) continue;
    const d = b.get(m.key) - m.value;
    if (Math.abs(d) <= Math.abs(m.value) * 1e-9) continue;
    out.push({ key: m.key, label: m.label, unit: m.unit, a: m.value, b: b.get(m.key), delta: d });
  }
  return out;
}

// What a checkpoint index says, for comparing two revisions: {totalSize, names} or null.
function indexSummary(text) {
  if (typeof text !== 'string') return null;
  try {
    const j = JSON.parse(text);
    const map = j && typeof j.weight_map === 'object' && j.weight_map ? j.weight_map : {};
    const size = j && j.metadata && Number.isSafeInteger(j.metadata.total_size) ? j.metadata.total_size : null;
    return { totalSize: size, names: Object.keys(map).sort() };
  } catch (e) {
    return null;
  }
}

// The index's change between two revisions: {from, to (total sizes), added, removed} or null.
export function indexChange(a, b) {
  const x = indexSummary(a), y = indexSummary(b);
  if (!x && !y) return null;
  const na = new Set(x ? x.names : []), nb = new Set(y ? y.names : []);
  const change = { from: x ? x.totalSize : null, to: y ? y.totalSize : null, added: [...nb].filter((n) => !na.has(n)), removed: [...na].filter((n) => !nb.has(n)), present: [!!x, !!y] };
  return change.from === change.to && !change.added.length && !change.removed.length && x && y ? null : change;
}

// The checkpoint index's change between two revisions, in words (Markdown code spans).
export function indexChangeText(ix) {
  if (!ix) return '';
  if (!ix.present[0]) return `model.safetensors.index.json appears (${ix.added.length} tensors).`;
  if (!ix.present[1]) return 'model.safetensors.index.json is removed.';
  const parts = [];
  if (ix.from !== ix.to) parts.push(`total_size ${ix.from === null ? '—' : ix.from.toLocaleString('en-US')} → ${ix.to === null ? '—' : ix.to.toLocaleString('en-US')} bytes`);
  const names = (list) => list.slice(0, 5).map((n) => `\`${n}\``).join(', ') + (list.length > 5 ? `, … (${list.length})` : '');
  if (ix.added.length) parts.push(`added ${names(ix.added)}`);
  if (ix.removed.length) parts.push(`removed ${names(ix.removed)}`);
  return `Checkpoint index: ${parts.join('; ')}.`;
}

// analyseHistory(revisions, plan, options) → the changes between consecutive revisions.
// revisions: oldest first, [{commit: {id, title, date}, config: text | null, index?: text | null}].
// plan(text, options) → Promise<report>. Revisions whose config and index are unchanged are
// folded into the next change. Returns [{from, to, diffs: [{path, a, b, inA, inB, deltas | error}],
// deltas, error, index: {from, to, added, removed, present} | null}].
export async function analyseHistory(revisions, plan, options) {
  const usable = revisions.filter((r) => typeof r.config === 'string');
  const failed = (r) => `not planned (${r && r.error ? r.error.code : 'error'})`;
  const out = [];
  for (let i = 1; i < usable.length; i++) {
    const from = usable[i - 1], to = usable[i];
    const diff = configDiff(from.config, to.config);
    const index = 'index' in from || 'index' in to ? indexChange(from.index, to.index) : null;
    if (diff && !diff.diffs.length && !index) continue;
    const step = { from: from.commit, to: to.commit, diffs: [], deltas: [], error: null, index };
    out.push(step);
    if (!diff) { step.error = 'a config here is not valid JSON'; continue; }
    if (!diff.diffs.length) continue;  // only the checkpoint changed
    const [ra, rb] = await Promise.all([plan(from.config, options), plan(to.config, options)]);
    if (!ra || !ra.ok) {
      step.error = failed(ra);
      step.diffs = diff.diffs.map((d) => ({ ...d, error: 'the older config does not plan' }));
      continue;
    }
    if (!rb || !rb.ok) step.error = failed(rb);
    else step.deltas = measureDeltas(ra, rb);
    for (const d of diff.diffs) {
      const entry = { ...d };
      const r = await plan(withField(diff.a, d), options);
      if (r && r.ok) entry.deltas = measureDeltas(ra, r);
      else entry.error = `not separable alone (${r && r.error ? r.error.code : 'error'})`;
      step.diffs.push(entry);
    }
  }
  return out;
}


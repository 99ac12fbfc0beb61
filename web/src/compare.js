// web/src/compare.js: two models (or two revisions of one config) side by side. The metrics table
// sets the two reports' numbers next to each other and highlights what differs; the config table
// lists the fields that differ and asks the core which of them change memory or cost, by planning
// model A with that one field set to B's value. Not a planner: every number is a report's.

import { DASH, MODES, bytes, el, int, isNum, list, modeLabel, modelName, planHeadline, text, usd } from './format.js';
import { configDiff, measureDeltas, withField } from './changes.js';
import { fitCell } from './fit-cell.js';
import { num, rowHead, td } from './render.js';

// The config diff and the measures come from web/src/changes.js (shared with the history panel
// and the CLI); this file formats them.
export function deltaTexts(deltas) {
  return deltas.map((m) => {
    const sign = m.delta > 0 ? '+' : '−';
    const v = Math.abs(m.delta);
    return `${m.label} ${sign}${m.unit === 'usd' ? usd(v) : m.unit === 'count' ? int(v) : bytes(v)}`;
  });
}
export const effectText = (base, changed) => deltaTexts(measureDeltas(base, changed));

let compareGeneration = 0;
const cell = (v) => (v === undefined ? '(absent)' : typeof v === 'string' ? v : JSON.stringify(v));

// renderCompare(container, {a, b, reportA, reportB, planner, options}) – fills container.
export function renderCompare(container, ctx) {
  const { reportA: ra, reportB: rb } = ctx;
  const head = el('div', { className: 'compare-head' },
    [['A', ctx.a, ra], ['B', ctx.b, rb]].map(([name, slot, r]) => el('div', { className: 'stat' },
      el('h3', null, `${name}: ${text(slot && slot.label ? slot.label : 'pasted config')}`),
      r && r.ok ? [el('p', { className: 'big' }, int(r.params.total)), el('p', null, planHeadline(r, modelName(slot && slot.label, slot && slot.text)))]
        : el('p', { className: 'error-text' }, r && r.error ? `${text(r.error.code)}: ${text(r.error.message)}` : 'Give model B a config: pick an example, fetch a hub id, drop a file or paste it.'))));
  if (!(ra && ra.ok && rb && rb.ok)) {
    container.replaceChildren(el('h2', null, 'Compare two models'), head);
    return;
  }
  const rows = [];
  const group = (title) => rows.push(el('tr', { className: 'group' }, el('th', { scope: 'rowgroup', colSpan: 4 }, title)));
  const metric = (label, va, vb, fmt, opts = {}) => {
    const differs = JSON.stringify(va) !== JSON.stringify(vb);
    let delta = '';
    if (differs && isNum(va) && isNum(vb)) {
      const d = vb - va;
      delta = `${d > 0 ? '+' : '−'}${fmt(Math.abs(d))}${va ? ` (${d > 0 ? '+' : '−'}${Math.abs(100 * d / va).toFixed(1)}%)` : ''}`;
    } else if (differs) delta = 'differs';
    rows.push(el('tr', { className: differs ? `differs${opts.cost ? ' cost' : ''}` : '' }, rowHead(label), num(isNum(va) || va ? fmt(va) : DASH), num(isNum(vb) || vb ? fmt(vb) : DASH), num(delta)));
  };
  const da = (ra.model || {}).dims || {}, db = (rb.model || {}).dims || {};
  group('Structure');
  metric('Parameters', ra.params.total, rb.params.total, int);
  metric('model_type', ra.model.model_type, rb.model.model_type, text);
  for (const [k, label] of [['layers', 'Layers'], ['hidden', 'Hidden size'], ['intermediate', 'MLP width'], ['heads', 'Attention heads'], ['kv_heads', 'KV heads'], ['head_dim', 'Head dim'], ['vocab', 'Vocabulary'], ['experts', 'Experts'], ['experts_per_token', 'Experts per token'], ['max_positions', 'Context'], ['sliding_window', 'Sliding window']]) {
    if (isNum(da[k]) || isNum(db[k])) metric(label, da[k], db[k], int);
  }
  metric('Tied embeddings', String(!!da.tied_embeddings), String(!!db.tied_embeddings), text);
  group('Memory the card must hold, batch 1');
  for (const m of MODES) if (ra.modes[m] && rb.modes[m]) metric(`${modeLabel(m)} (${int(ra.modes[m].seq)} / ${int(rb.modes[m].seq)} tokens)`, ra.modes[m].reserved_bytes, rb.modes[m].reserved_bytes, bytes);
  group(`Your plan: ${modeLabel(ra.plan.mode)} at batch ${int(ra.plan.batch)}`);
  metric('Peak allocated', ra.plan.peak_bytes, rb.plan.peak_bytes, bytes);
  metric('Card must hold', ra.plan.reserved_bytes, rb.plan.reserved_bytes, bytes);
  const ids = [...new Set([...Object.keys(ra.plan.components || {}), ...Object.keys(rb.plan.components || {})])];
  const labels = { ...(rb.plan.component_labels || {}), ...(ra.plan.component_labels || {}) };
  for (const id of ids) {
    const va = (ra.plan.components || {})[id] || 0, vb = (rb.plan.components || {})[id] || 0;
    if (va || vb) metric(`· ${labels[id] || id}`, va, vb, bytes);
  }
  group(`Largest ${modeLabel(ra.plan.mode)} batch per card`);
  const cardsB = Object.fromEntries(list(rb.cards).map((c) => [c.id, c]));
  for (const c of list(ra.cards)) {
    const other = cardsB[c.id];
    if (!other) continue;
    const brief = (f) => (f.kind === 'split' ? `${f.main}, ${f.sub.split(':')[0]}` : f.text);
    const fa = brief(fitCell(c, ra.plan.mode)), fb = brief(fitCell(other, ra.plan.mode));
    rows.push(el('tr', { className: fa !== fb ? 'differs' : '' }, rowHead(text(c.name)), num(fa), num(fb), num(fa !== fb ? 'differs' : '')));
  }
  group('Cost of the priced run');
  const run = (x) => (x && x.fits && x.priced ? x.usd : NaN);
  metric('On the priced card', run(ra.cost.priced), run(rb.cost.priced), usd, { cost: true });
  metric('Cheapest plan that fits', run(ra.cost.cheapest), run(rb.cost.cheapest), usd, { cost: true });
  const where = (x) => (x ? `${modeLabel(x.mode)} on ${x.cards} × ${x.card}` : DASH);
  metric('Cheapest: where', where(ra.cost.cheapest), where(rb.cost.cheapest), text, { cost: true });

  const metricsTable = el('div', { className: 'table-wrap' }, el('table', { className: 'compare-table', id: 'compare-metrics' },
    el('caption', null, 'Rows that differ are highlighted; Δ is B − A.'),
    el('thead', null, el('tr', null, el('th', { scope: 'col' }, ''), el('th', { scope: 'col', className: 'num' }, `A: ${text(ctx.a.label || 'pasted')}`), el('th', { scope: 'col', className: 'num' }, `B: ${text(ctx.b.label || 'pasted')}`), el('th', { scope: 'col', className: 'num' }, 'Δ'))),
    el('tbody', null, rows)));

  // Config fields that differ, and what each one alone does to A's plan.
  const diff = configDiff(ctx.a.text, ctx.b.text);
  let diffBox = null;
  if (diff) {
    const limit = 60;
    const shown = diff.diffs.slice(0, limit);
    const effects = shown.map(() => el('td', { className: 'effect' }, 'asking the core…'));
    const drows = shown.map((d, i) => el('tr', { dataset: { path: d.path } }, td(el('code', null, d.path)), td(el('code', null, cell(d.inA ? d.a : undefined))), td(el('code', null, cell(d.inB ? d.b : undefined))), effects[i]));
    diffBox = el('section', { className: 'block', id: 'config-diff' }, el('h3', null, `Config fields that differ (${diff.diffs.length})`),
      el('p', { className: 'muted' }, 'For each field, the core plans model A with only that field set to B\'s value: fields that change memory or cost are highlighted.'),
      diff.diffs.length ? el('div', { className: 'table-wrap' }, el('table', { className: 'diff-table' },
        el('thead', null, el('tr', null, ['Field', 'A', 'B', 'Effect on A alone'].map((h) => el('th', { scope: 'col' }, h)))), el('tbody', null, drows))) : el('p', null, 'The two configs are identical.'),
      diff.diffs.length > limit ? el('p', { className: 'muted' }, `${diff.diffs.length - limit} more fields differ (not analysed).`) : null);
    const gen = ++compareGeneration;
    ctx.planner.cancel('diff:');
    shown.forEach((d, i) => {
      ctx.planner.plan(withField(diff.a, d), ctx.optionsA, `diff:${gen}:${i}`, true).then((res) => {
        if (!res) return;
        const r = res.report;
        const tr = drows[i];
        if (!r || !r.ok) {
          effects[i].textContent = `not separable alone (${r && r.error ? r.error.code : 'error'})`;
          tr.classList.add('unknown');
          return;
        }
        const eff = effectText(ra, r);
        effects[i].textContent = eff.length ? eff.join('; ') : 'no effect on memory or cost';
        if (eff.length) tr.classList.add('changes');
      });
    });
  }
  container.replaceChildren(...[el('h2', null, 'Compare two models'), head, metricsTable, diffBox].filter(Boolean));
}

// web/src/render.js: the page's report view, section by section, from the core's report object
// (docs/api.md). Not a planner: it selects, orders and formats what the report says; no memory or
// cost is computed here. Config-derived strings only ever become text nodes (see el()).

import { ACCURACY } from 'cardfit:accuracy';
import { DASH, MODES, bytes, bytesColumn, el, entries, hours, int, isNum, list, modeLabel, percent, planHeadline, shape, si, text, unitName, units, usd } from './format.js';
import { batchChart, memoryBars, memoryParts } from './charts.js';
import { fitCell, strategyLabel } from './fit-cell.js';
import { fitSection } from './fit.js';
import { servingSection } from './serving-view.js';
import { parallelSection } from './parallel-view.js';

export function table(caption, head, rows, className) {
  return el('div', { className: 'table-wrap' }, el('table', { className: className || '' },
    caption ? el('caption', null, caption) : null,
    // A heading written '#Name' heads a numeric (right-aligned) column.
    el('thead', null, el('tr', null, head.map((h) => el('th', { scope: 'col', className: h[0] === '#' ? 'num' : '' }, h.replace(/^#/, ''))))),
    el('tbody', null, rows)));
}
export const td = (v, className) => el('td', { className: className || '' }, v);
export const num = (v, className) => el('td', { className: `num ${className || ''}` }, v);
export const rowHead = (v) => el('th', { scope: 'row' }, v);

export function section(id, title, ...body) {
  return el('section', { id, className: 'block', 'aria-labelledby': `${id}-h` }, el('h2', { id: `${id}-h` }, title), body);
}

// The measured error of the estimates for the plan's task, from docs/accuracy.md's generated
// summary (ACCURACY: the cardfit:accuracy module of scripts/build-web.mjs; null in the widget).
const ACCURACY_TASKS = { full: ['full_finetune', 'full fine-tune'], lora: ['lora', 'LoRA'], qlora: ['qlora', 'QLoRA'], serve: ['inference', 'serving'] };
export function accuracyNote(mode) {
  if (typeof ACCURACY !== 'object' || !ACCURACY) return null;
  const [key, label] = ACCURACY_TASKS[mode] || ACCURACY_TASKS.full;
  const t = ACCURACY.tasks[key] || ACCURACY.tasks.all;
  const all = ACCURACY.tasks.all;
  return el('p', { className: 'muted accuracy', id: 'accuracy' },
    `Measured error of ${label} estimates: median ${t.median.toFixed(1)} %, p90 ${t.p90.toFixed(1)} % over ${t.points} measured points`,
    all && t !== all ? ` (all tasks: median ${all.median.toFixed(1)} %, p90 ${all.p90.toFixed(1)} %)` : '',
    `; ${ACCURACY.oom_flagged} of ${ACCURACY.oom_reports} out-of-memory reports flagged. `,
    el('a', { href: '../docs/accuracy.md' }, 'How this is measured: docs/accuracy.md'));
}

function heroSection(r, ctx) {
  const model = r.model || {};
  const d = model.dims || {};
  const facts = [
    `model_type ${text(model.model_type)}`,
    model.family && model.family !== model.model_type ? `traced as ${model.family}` : null,
    isNum(d.layers) ? `${d.layers} layers` : null,
    isNum(d.hidden) ? `hidden ${int(d.hidden)}` : null,
    isNum(d.heads) ? `${d.heads} heads${isNum(d.kv_heads) && d.kv_heads !== d.heads ? ` (${d.kv_heads} KV)` : ''}` : null,
    isNum(d.experts) && d.experts > 0 ? `${d.experts} experts, ${d.experts_per_token} per token` : null,
    isNum(d.vocab) ? `vocabulary ${int(d.vocab)}` : null,
    isNum(d.max_positions) && d.max_positions > 0 ? `context ${int(d.max_positions)}` : null,
  ].filter(Boolean).join(' · ');
  const pass = list(r.checks).find((c) => c.id === 'forward-pass');
  return el('section', { className: 'hero', 'aria-label': 'Summary' },
    el('p', { className: 'headline', id: 'headline' }, planHeadline(r, ctx.name)),
    accuracyNote((r.plan || {}).mode),
    el('p', { className: 'muted' }, 'Estimated from the model\'s structure, not measured. ', facts,
      model.approximate ? el('span', { className: 'badge warn' }, 'approximate: unknown model_type traced as a generic decoder') : null),
    pass ? el('p', { className: 'muted', id: 'forward-pass' }, `Will it forward-pass? ${pass.severity === 'info' ? 'Yes' : 'No'}: ${text(pass.message)}`) : null,
    list(model.notes).length ? el('ul', { className: 'notes' }, list(model.notes).map((n) => el('li', null, text(n)))) : null);
}

function countSection(r, ctx) {
  const params = r.params || {};
  const ck = r.checkpoint;
  const derived = el('div', { className: 'stat' }, el('h3', null, 'Derived from structure'),
    el('p', { className: 'big', id: 'params-total' }, int(params.total)),
    el('p', { className: 'muted' }, `parameters, tied tensors once · ${int(params.tensor_count)} tensors`));
  let published, reconciled = null;
  if (ck) {
    const src = { checkpoint_total: 'the stated checkpoint total', safetensors_header: 'read from the model.safetensors header', safetensors_index: 'read from model.safetensors.index.json', 'safetensors_index+checkpoint_total': 'the stated total (checkpoint_total: the hub\'s safetensors.total for a hub id), tensor names from model.safetensors.index.json' }[ck.source] || text(ck.source);
    published = el('div', { className: 'stat' }, el('h3', null, 'In the published checkpoint'),
      el('p', { className: 'big', id: 'checkpoint-scalars' }, int(ck.scalars)),
      el('p', { className: 'muted' }, `scalars · ${src}`, isNum(ck.total_bytes) ? ` · ${bytes(ck.total_bytes)} on disk` : ''));
    const unexplained = ck.unexplained;
    reconciled = el('div', { className: `stat ${isNum(unexplained) && unexplained !== 0 ? 'attention' : 'ok'}` }, el('h3', null, 'Reconciled'),
      el('p', { className: 'equation', id: 'reconciliation' },
        `${int(ck.scalars)} = ${int(ck.params)} parameters + ${int(ck.buffers)} buffers`,
        isNum(ck.tied_copies) && ck.tied_copies ? ` + ${int(ck.tied_copies)} tied copies` : '',
        // Stored extras (MTP layers, quantization scales and blocks, lookup tables), by role.
        isNum(ck.packed_replaced) && ck.packed_replaced ? ` − ${int(ck.packed_replaced)} parameters stored packed` : '',
        list(ck.extras).map((g) => ` + ${int(g.scalars)} ${text(g.role)}`).join(''),
        // Lengths the config leaves open (bitsandbytes' quant_state JSON digits), at most variable_max.
        isNum(ck.variable_tensors) && ck.variable_tensors ? ` + ${int(ck.variable_assigned)} quant_state digits (at most ${int(ck.variable_max)})` : '',
        ` + ${int(unexplained)} unexplained`),
      el('p', { className: 'muted' }, isNum(unexplained) && unexplained === 0 ? 'Every scalar in the checkpoint is accounted for.' : 'Scalars the traced structure does not explain: see the lists below.'));
  } else {
    published = el('div', { className: 'stat' }, el('h3', null, 'In the published checkpoint'),
      el('p', null, 'Not given. Drop the model.safetensors (only its header is read) or its index, fetch a hub id, or enter the ',
        ctx.optionLink('checkpoint_total', 'total of scalars'), '.'));
  }
  const details = [];
  if (ck) {
    const names = (title, items) => (list(items).length ? el('details', null, el('summary', null, `${title} (${list(items).length})`),
      el('ul', { className: 'names' }, list(items).slice(0, 500).map((n) => el('li', null, el('code', null, text(n))))),
      list(items).length > 500 ? el('p', { className: 'muted' }, `… and ${list(items).length - 500} more`) : null) : null);
    details.push(names('Traced but not in the file', ck.missing), names('In the file but not traced', ck.extra));
    if (list(ck.shape_mismatches).length) {
      details.push(el('details', null, el('summary', null, `Shape mismatches (${ck.shape_mismatches.length})`),
        table(null, ['Tensor', 'Traced', 'In the file'], ck.shape_mismatches.map((m) => el('tr', null, td(el('code', null, text(m.name))), td(shape(m.expected)), td(shape(m.found)))))));
    }
    if (list(ck.dtypes).length) details.push(el('p', { className: 'muted' }, `Dtypes in the file: ${ck.dtypes.join(', ')}`));
  }
  const roles = entries(params.by_role).sort((a, b) => b[1] - a[1]);
  const byRole = roles.length ? table('Parameters by role', ['Role', '#Parameters', '#Share'],
    roles.map(([role, n]) => el('tr', null, rowHead(role), num(int(n)), num(percent(n, params.total))))) : null;
  // The tensor list is asked of the core when opened (MoE experts stacked per layer).
  const tensorList = el('details', { className: 'tensors', id: `${ctx.prefix}-tensors` }, el('summary', null, `Tensors, named as in the checkpoint (${int(params.tensor_count)})`));
  tensorList.addEventListener('toggle', async () => {
    if (!tensorList.open || tensorList.dataset.filled) return;
    tensorList.dataset.filled = '1';
    const answer = await ctx.load('tensors');
    if (!answer || !answer.ok) { tensorList.append(el('p', { className: 'muted' }, answer ? text(answer.error.message) : 'Replaced by a newer plan.')); return; }
    const tensors = list(answer.tensors);
    const input = el('input', { type: 'search', placeholder: 'filter by name', 'aria-label': 'Filter tensors by name' });
    const body = el('tbody');
    const fill = () => {
      const q = input.value.trim().toLowerCase();
      const hits = tensors.filter((t) => !q || String(t.name).toLowerCase().includes(q));
      body.replaceChildren(...hits.slice(0, 300).map((t) => el('tr', null, td(el('code', null, text(t.name))), num(`${t.experts > 1 ? `${int(t.experts)} × ` : ''}${shape(t.shape)}`), num(int(t.count)), td(text(t.role)), td(t.tied ? `tied to ${text(t.tied_to)}` : ''))),
        hits.length > 300 ? el('tr', null, el('td', { colSpan: 5, className: 'muted' }, `${int(hits.length - 300)} more: narrow the filter`)) : '');
    };
    input.addEventListener('input', fill);
    fill();
    tensorList.append(input, el('div', { className: 'table-wrap' }, el('table', null,
      el('thead', null, el('tr', null, ['Name', '#Shape', '#Count', 'Role', 'Tied'].map((h) => el('th', { scope: 'col', className: h[0] === '#' ? 'num' : '' }, h.replace('#', ''))))), body)));
  });
  return section('count', 'Parameter count against the checkpoint',
    el('p', { className: 'muted' }, 'The left number is traced from the config, tensor by tensor. The right one is what the published weight files hold; buffers the checkpoint stores (such as causal masks) are explained, not hidden in a delta.'),
    el('div', { className: 'stats' }, derived, published, reconciled), details, byRole, tensorList);
}

function memorySection(r, ctx) {
  const modes = r.modes || {};
  const rows = MODES.filter((m) => modes[m]).map((m) => ({ label: `${modeLabel(m)}`, parts: memoryParts(modes[m]), total: modes[m].reserved_bytes }));
  const plan = r.plan || {};
  if (plan.batch !== 1 || !modes[plan.mode]) rows.push({ label: `Your plan: ${modeLabel(plan.mode)} × ${int(plan.batch)}`, parts: memoryParts(plan), total: plan.reserved_bytes });
  const bars = memoryBars(rows, {
    idPrefix: `${ctx.prefix}-bars`,
    title: 'Memory the card must hold, by component, per mode at batch 1',
    desc: rows.map((x) => `${x.label}: ${bytes(x.total)}`).join('; '),
  });
  const modeRows = MODES.filter((m) => modes[m]).map((m) => el('tr', { className: m === plan.mode ? 'sel' : '' },
    rowHead(modeLabel(m)), num(int(modes[m].seq)), num(bytes(modes[m].peak_bytes)), num(bytes(modes[m].reserved_bytes)), td(text(modes[m].peak_event || modes[m].peak_phase))));
  const labels = plan.component_labels || {};
  const parts = memoryParts(plan).map((p) => el('tr', null, rowHead(labels[p.id] || p.label), num(bytes(p.bytes)), num(percent(p.bytes, plan.reserved_bytes))));
  const phases = entries(plan.phases).map(([name, b]) => el('tr', { className: name === plan.peak_phase ? 'sel' : '' }, rowHead(name.replace(/_/g, ' ')), num(bytes(b))));
  return section('memory', 'Memory',
    el('figure', { className: 'chart-box' }, bars.svg, el('figcaption', null, bars.legend,
      el('span', { className: 'muted' }, 'Each bar is what the card must hold: the peak torch.cuda.max_memory_allocated would report, plus the allocator reserve and the CUDA context (the two grey ends).'))),
    table('Batch 1 per mode', ['Mode', '#Tokens', '#Peak allocated', '#Card must hold', 'Peak at'], modeRows),
    el('h3', { id: 'your-plan' }, `Your plan: ${modeLabel(plan.mode)}, batch ${int(plan.batch)}, ${int(plan.seq)} tokens`),
    el('p', null, `Peak allocated ${bytes(plan.peak_bytes)}`, plan.peak_event ? ` at ${plan.peak_event}` : '', `; the card must hold `, el('strong', { id: 'plan-reserved' }, bytes(plan.reserved_bytes)), '.'),
    el('div', { className: 'two' },
      table('Components at the peak', ['Component', '#Memory', '#Share'], parts),
      phases.length ? table('Peak of each phase', ['Phase', '#Allocated'], phases) : null));
}

function batchSection(r, ctx) {
  if (!r.curves) return null;
  const mode = (r.plan || {}).mode || 'full';
  const chart = batchChart(r, mode, { idPrefix: `${ctx.prefix}-curve` });
  return section('batch', 'Batch against memory',
    el('figure', { className: 'chart-box' }, chart.svg, el('figcaption', null, chart.legend,
      el('span', { className: 'muted' }, 'Each line is what the card must hold as the batch grows; dashed lines are the cards\' usable memory. Dots mark the largest batch of the selected mode on each card (the card table has every number).'))));
}

function cardsSection(r, ctx) {
  const plan = r.plan || {};
  const priced = ((r.cost || {}).priced || {}).card;
  const rows = list(r.cards).map((c) => el('tr', { className: c.id === priced ? 'priced' : '', dataset: { card: c.id } },
    rowHead(text(c.name || c.id)), el('td', { className: 'num cap', 'data-label': `Usable (${unitName()})` }, bytes(c.capacity_bytes)),
    el('td', { className: 'num usd', 'data-label': '$/GPU-h' }, isNum(c.usd_per_gpu_hr) ? `$${c.usd_per_gpu_hr.toFixed(2)}` : DASH),
    MODES.map((m) => {
      const f = fitCell(c, m);
      return el('td', { className: `fit ${f.kind}${m === plan.mode ? ' sel' : ''}`, title: f.title || null, 'data-label': modeLabel(m) },
        f.kind === 'borderline' ? el('span', { 'aria-hidden': 'true' }, '⚠ ') : null, el('span', { className: 'main' }, f.main),
        f.sub ? el('small', null, f.kind === 'split' ? f.sub : ` ${f.sub}`) : null);
    })));
  const borderline = list(r.assumptions).find((a) => a.id === 'borderline');
  const split = list(r.assumptions).find((a) => a.id === 'split');
  return section('cards', 'What fits on which card',
    el('p', { className: 'muted' }, `Largest batch per card (sequences per step). Training at ${int((r.modes || {}).full?.seq)} tokens per sample, serving at ${int((r.modes || {}).serve?.seq)} tokens per sequence. The priced card is marked; the column of your mode is highlighted.`),
    table(null, ['Card', `#Usable memory (${unitName()})`, '#$/GPU-h', '#Full fine-tune', '#LoRA', '#QLoRA', '#Serve'], rows, 'cards'),
    el('dl', { className: 'footnotes' },
      el('dt', null, 'GB and GiB'), el('dd', { id: 'units-note' }, `A card's name gives the vendor's figure, which counts GiB (2³⁰ bytes): an "80GB" H100 is 80 GiB = 85.9 GB. Usable memory is what the driver leaves for the process, here in ${units.binary ? 'GiB' : 'GB (10⁹ bytes)'}, so an "80GB" card shows ${units.binary ? 'about 79 GiB' : '85.0 GB'}.`),
      el('dt', null, '⚠ borderline'), el('dd', null, borderline ? `${borderline.text} Factor ${borderline.value}.` : 'holds batch 1 only within the estimate\'s error: measure one step before reserving it.'),
      el('dt', null, 'with margin'), el('dd', null, 'the largest batch that still fits at the estimate × the borderline factor.'),
      el('dt', null, 'N cards'), el('dd', null, split ? split.text : 'batch 1 does not fit one card: the cut across cards with the fewest cards.')));
}

function costSection(r) {
  const c = r.cost;
  if (!c || typeof c !== 'object') return null;
  const names = Object.fromEntries(list(r.cards).map((card) => [card.id, card.name]));
  const run = (x) => {
    if (!x) return DASH;
    if (x.fits === false) return `${modeLabel(x.mode)} does not fit on ${text(names[x.card] || x.card)}`;
    if (x.priced === false) return `${modeLabel(x.mode)} on ${int(x.cards)} × ${text(names[x.card] || x.card)} (no price listed)`;
    return `${modeLabel(x.mode)} on ${int(x.cards)} × ${text(names[x.card] || x.card)}${x.strategy && x.strategy !== 'single' ? ` (${strategyLabel(x.strategy)})` : ''}: ${usd(x.usd)}, ${hours(x.hours)} h`;
  };
  const cheapest = c.cheapest || {};
  const rows = list(c.rows).map((x) => el('tr', { className: x.card === cheapest.card && x.mode === cheapest.mode ? 'cheapest' : '' },
    rowHead(text(names[x.card] || x.card)),
    x.fits === false ? [num('does not fit'), num(DASH), num(DASH)]
      : [num(`${int(x.cards)}${x.strategy && x.strategy !== 'single' ? ` (${strategyLabel(x.strategy)})` : ''}`), num(x.priced === false ? 'no price' : hours(x.hours)), num(x.priced === false ? DASH : usd(x.usd))]));
  const serving = (r.plan || {}).mode === 'serve';
  return section('cost', 'What a run costs',
    serving ? el('p', { className: 'note', id: 'cost-mode-note' }, `Serving is not priced as a run: this prices a ${modeLabel(c.mode).toLowerCase()} of the same model (choose a training mode to price that one). Serving's own cost, in $ per million tokens per card, is in the serving section above.`) : null,
    el('p', null, `A roofline estimate of one ${modeLabel(c.mode).toLowerCase()} run: ${int(c.epochs)} epochs × ${int(c.samples)} samples × ${int(c.seq)} tokens (${si(c.tokens)} tokens) at batch ${int(c.batch)}, ${si(c.total_flops)}FLOP at MFU ${text(c.mfu)}.`),
    el('dl', { className: 'summary' },
      el('dt', null, 'Priced on'), el('dd', { id: 'cost-priced' }, run(c.priced)),
      el('dt', null, 'Cheapest plan that fits, any training mode'), el('dd', { id: 'cost-cheapest' }, el('strong', null, run(c.cheapest)))),
    table(`${modeLabel(c.mode)} on every card`, ['Card', '#Cards', '#Hours', '#Cost'], rows, 'cost'));
}

function structureBlocks(graph) {
  const blocks = list(graph.blocks);
  // An attention node says what it attends to: its mask, its window (or the whole context), the
  // config's soft-cap.
  const opText = (n) => {
    const a = n.attention;
    if (n.op === 'attention' && a) {
      const mask = a.cross ? 'cross' : a.causal ? 'causal' : 'bidirectional';
      const window = a.cross ? '' : isNum(a.window) && a.window > 0 ? `, window ${int(a.window)}` : ', whole context';
      return `attention (${mask}${window}${n.logit_softcap ? `, soft-cap ${text(n.logit_softcap)}` : ''})`;
    }
    return n.detail && n.detail !== n.op ? `${text(n.op)} (${text(n.detail)})` : text(n.op);
  };
  const nodeRows = (b) => {
    const saved = bytesColumn(list(b.nodes).map((n) => n.saved_bytes));  // one unit per column
    return list(b.nodes).map((n) => el('tr', null, td(el('code', null, text(n.name))), td(opText(n)),
      num(shape(n.out_shape)), num(int(n.params)), num(si(n.flops_per_token)), num(saved(n.saved_bytes))));
  };
  const items = blocks.map((b) => {
    const many = isNum(b.repeat) && b.repeat > 1;
    const where = many && b.contiguous === false ? ` (blocks ${list(b.indices).join(', ')})` : '';
    const d = el('details', { className: 'struct-block' }, el('summary', null,
      el('span', { className: 'bname' }, text(b.name), many ? ` … ${text(b.last)}` : ''),
      el('span', { className: 'bmeta' }, `${text(b.kind)}${many ? ` × ${b.repeat}` : ''}${where} · ${int(b.params)} params${many ? ' each' : ''} · ${list(b.nodes).length} nodes`)));
    // Tables are built when a block is first opened: large models have thousands of nodes.
    d.addEventListener('toggle', () => {
      if (!d.open || d.dataset.filled) return;
      d.dataset.filled = '1';
      d.append(table(null, ['Node', 'Op', '#Output shape', '#Parameters', '#FLOPs / token', '#Saved for backward'], nodeRows(b), 'structure'));
    });
    return d;
  });
  const toggleAll = (open) => () => { for (const d of items) d.open = open; };
  return [el('p', { className: 'muted' }, `${int(graph.node_count)} nodes in ${int(blocks.reduce((s, b) => s + (b.repeat || 1), 0))} blocks; blocks with identical rows are folded, wherever they sit. Shapes at batch ${int(graph.batch)} and ${int(graph.seq)} tokens; saved bytes are what the training step keeps for backward.`),
    el('p', { className: 'buttons' }, el('button', { type: 'button', onclick: toggleAll(true) }, 'Unfold all'), el('button', { type: 'button', onclick: toggleAll(false) }, 'Fold all')),
    el('div', { className: 'struct' }, items)];
}

// The graph is asked of the core when this section is opened.
function structureSection(r, ctx) {
  const graph = el('details', { id: `${ctx.prefix}-graph`, className: 'graph' }, el('summary', null, 'Blocks and nodes of the traced graph'));
  graph.addEventListener('toggle', async () => {
    if (!graph.open || graph.dataset.filled) return;
    graph.dataset.filled = '1';
    const answer = await ctx.load('graph');
    if (!answer || !answer.ok) { graph.append(el('p', { className: 'muted' }, answer ? text(answer.error.message) : 'Replaced by a newer plan.')); return; }
    graph.append(...structureBlocks(answer));
  });
  return section('structure', 'Structure', graph);
}

function checksSection(r) {
  const items = list(r.checks).map((c) => el('li', { className: `check ${text(c.severity)}` },
    el('span', { className: `sev ${text(c.severity)}` }, text(c.severity)), ' ', text(c.message),
    c.fix ? el('div', { className: 'fix' }, el('strong', null, 'Fix: '), text(c.fix)) : null,
    el('code', { className: 'check-id' }, text(c.id))));
  return section('checks', 'What the verifier says', items.length ? el('ul', { className: 'checks' }, items) : el('p', null, 'No findings.'));
}

function assumptionsSection(r, ctx) {
  const rows = list(r.assumptions).map((a) => el('tr', null, td(text(a.text)), td(text(a.value)),
    td(a.option ? ctx.optionLink(a.option, a.option) : DASH), td(text(a.source))));
  return section('assumptions', 'Assumptions used', el('p', { className: 'muted' }, 'Every assumption is an option with a default; follow the option to change it.'),
    table(null, ['Assumption', 'Value', 'Option', 'Source'], rows, 'assumptions'));
}

function cliSection(r, ctx) {
  if (!ctx.cli) return null;
  return section('cli', 'The same numbers from the command line',
    el('p', { className: 'muted' }, 'The CLI runs the same WebAssembly core: the Markdown twin by default, --json for this report.'),
    el('pre', { className: 'twin cli' }, el('code', null, ctx.cli)));
}

function twinsSection(r, ctx) {
  const md = el('details', { id: 'markdown-twin' }, el('summary', null, 'Markdown twin'));
  md.addEventListener('toggle', async () => {
    if (!md.open || md.dataset.filled) return;
    md.dataset.filled = '1';
    const answer = await ctx.load('markdown');
    md.append(el('pre', { className: 'twin' }, answer && answer.ok ? text(answer.markdown) : answer ? text(answer.error.message) : ''));
  });
  const js = el('details', { id: 'json-report' }, el('summary', null, 'JSON report'));
  js.addEventListener('toggle', () => {
    if (!js.open || js.dataset.filled) return;
    js.dataset.filled = '1';
    const { curves, ...core } = r;  // the curves are drawn here from the event list, not sent
    const s = JSON.stringify(core, null, 1);
    js.append(el('pre', { className: 'twin' }, s.length > 400000 ? `${s.slice(0, 400000)}\n… (${int(s.length)} characters: use Export → JSON report for all of it)` : s));
  });
  return section('twins', 'The same report as Markdown and JSON', md, js);
}

export function renderReport(r, ctx) {
  const parts = [];
  for (const part of [heroSection, countSection, memorySection, batchSection, cardsSection, fitSection, servingSection, parallelSection, costSection, structureSection, checksSection, assumptionsSection, twinsSection, cliSection]) {
    try {
      parts.push(part(r, ctx));
    } catch (e) {
      parts.push(el('p', { className: 'muted' }, `(${part.name}: not shown: ${e.message})`));
    }
  }
  return parts.filter(Boolean);
}

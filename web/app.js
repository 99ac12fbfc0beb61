// web/app.js: the page's behaviour: read the config and options, call cardfit.plan, show the
// report. Not a planner: every number comes from the core's report; this file only formats it,
// and inserts config-derived text with textContent only (never innerHTML).
'use strict';
(function () {
  const DASH = '—';
  const $ = (selector) => document.querySelector(selector);
  const configBox = $('#config');
  const exampleBox = $('#example');
  const optionsBox = $('#options');
  const errorBox = $('#error');
  const reportBox = $('#report');
  const announce = $('#announce'); // a short live region: the headline, not the whole report
  const examples = JSON.parse($('#examples').textContent);
  let cardfit = null;
  let timer = 0;

  // el('td', {className: 'num'}, 'text', node, ...): strings become text nodes, never markup.
  function el(tag, props, ...children) {
    const node = Object.assign(document.createElement(tag), props || {});
    for (const child of children.flat(Infinity)) {
      if (child !== null && child !== undefined && child !== false) {
        node.append(typeof child === 'string' ? child : child instanceof Node ? child : String(child));
      }
    }
    return node;
  }

  // Formatting only: exact integers with thousands separators, bytes in GB (10^9) as the vendors.
  const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
  const int = (v) => (isNum(v) ? String(Math.trunc(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : DASH);
  const gb = (v) => (isNum(v) ? (v / 1e9).toFixed(2) + ' GB' : DASH);
  const text = (v) => (v === null || v === undefined || v === '' ? DASH : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const shape = (v) => (Array.isArray(v) ? v.join(' × ') : text(v));
  const list = (v) => (Array.isArray(v) ? v : []);
  const entries = (v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.entries(v) : []);

  function table(caption, head, rows, className) {
    return el('table', { className: className || '' },
      el('caption', null, caption),
      // A heading written '#Name' heads a numeric (right-aligned) column.
      el('thead', null, el('tr', null, head.map((h) => el('th', { scope: 'col', className: h[0] === '#' ? 'num' : '' }, h.replace(/^#/, ''))))),
      el('tbody', null, rows));
  }
  const row = (...cells) => el('tr', null, cells.flat().map((c) => (c instanceof Node ? c : el('td', null, c))));
  const num = (v) => el('td', { className: 'num' }, v);

  function section(title, ...body) {
    return el('section', null, el('h2', null, title), body);
  }

  function summary(r) {
    const model = r.model || {};
    const params = r.params || {};
    const ck = r.checkpoint;
    return el('dl', { className: 'summary' },
      el('dt', null, 'Model type'), el('dd', null, text(model.model_type), model.approximate ? el('span', { className: 'badge' }, 'approximate') : null),
      el('dt', null, 'Parameters'), el('dd', { id: 'params-total', className: 'big' }, int(params.total)),
      ck ? [el('dt', null, 'Checkpoint scalars'), el('dd', null, int(ck.scalars), ' = ', int(ck.params), ' parameters + ', int(ck.buffers), ' buffers + ', int(ck.unexplained), ' unexplained')] : null);
  }

  function memory(r) {
    const modes = entries(r.modes).map(([name, m]) => row(el('th', { scope: 'row' }, name), num(int(m.batch)), num(int(m.seq)), num(gb(m.peak_bytes)), num(gb(m.reserved_bytes))));
    const plan = r.plan || {};
    const labels = plan.component_labels || {};
    const parts = entries(plan.components).map(([name, bytes]) => row(text(labels[name] || name), num(gb(bytes))));
    return section('Memory',
      table('Batch 1, per mode', ['Mode', '#Batch', '#Tokens', '#Peak allocated', '#Card must hold'], modes),
      table(`Your plan: ${text(plan.mode)}, batch ${int(plan.batch)}, ${int(plan.seq)} tokens. Peak ${gb(plan.peak_bytes)}` +
        `${plan.peak_phase ? ` (at ${plan.peak_phase})` : ''}; the card must hold ${gb(plan.reserved_bytes)}.`,
        ['Component at the peak', '#Memory'], parts));
  }

  function cards(r) {
    const modes = ['full', 'lora', 'qlora', 'serve'];
    const fit = (card, mode) => {
      const n = (card.max_batch || {})[mode];
      const split = (card.split || {})[mode];
      if (!isNum(n)) return num(DASH);
      if (n > 0) return num(`${int(n)}${(card.borderline || {})[mode] ? ', borderline' : ''}`);
      return num(split && isNum(split.cards) ? `split: ${split.cards} cards` : 'does not fit');
    };
    const rows = list(r.cards).map((c) => row(el('th', { scope: 'row' }, text(c.name || c.id)), num(gb(c.capacity_bytes)), modes.map((m) => fit(c, m))));
    return section('Cards', table('Largest batch per card; a split is a pipeline cut between blocks, where batch 1 does not fit on one card',
      ['Card', '#Usable memory', '#Full fine-tune', '#LoRA', '#QLoRA', '#Serve'], rows));
  }

  function cost(r) {
    const c = r.cost;
    if (!c || typeof c !== 'object') return null;
    const names = Object.fromEntries(list(r.cards).map((card) => [card.id, card.name]));
    const usd = (v) => (isNum(v) && v > 0 ? `$${v.toFixed(2)}` : DASH);
    const hours = (v) => (isNum(v) && v > 0 ? v.toFixed(1) : DASH);
    const run = (x) => (x ? `${text(x.mode)} on ${int(x.cards)} × ${text(names[x.card] || x.card)}: ${usd(x.usd)}, ${hours(x.hours)} h` : DASH);
    const rows = list(c.rows).map((x) => row(el('th', { scope: 'row' }, text(names[x.card] || x.card)), text(x.mode),
      x.fits === false ? [num('does not fit'), num(DASH), num(DASH)]
        : [num(`${int(x.cards)}${x.strategy && x.strategy !== 'single' ? ` (${x.strategy})` : ''}`), num(hours(x.hours)), num(usd(x.usd))]));
    return section('Cost',
      el('p', null, `${int(c.epochs)} epochs × ${int(c.samples)} samples × ${int(c.seq)} tokens at batch ${int(c.batch)}, MFU ${text(c.mfu)} (roofline estimate).`),
      el('dl', { className: 'summary' }, el('dt', null, 'Priced on'), el('dd', null, run(c.priced)), el('dt', null, 'Cheapest that fits'), el('dd', null, run(c.cheapest))),
      table('One training run per card', ['Card', 'Mode', '#Cards', '#Hours', '#Cost'], rows));
  }

  function structure(r) {
    const graph = r.graph || {};
    const nodeRow = (n) => row(text(n.name), n.detail && n.detail !== n.op ? `${text(n.op)} (${n.detail})` : text(n.op), num(shape(n.out_shape)), num(int(n.params)), num(int(n.flops_per_token)), num(int(n.saved_bytes)));
    const blocks = Array.isArray(graph.blocks) ? graph.blocks : [{ name: 'graph', repeat: 1, nodes: graph.nodes }];
    const rows = blocks.map((b) => [
      el('tr', { className: 'block' }, el('th', { scope: 'rowgroup', colSpan: 6 }, text(b.name), isNum(b.repeat) && b.repeat > 1 ? ` × ${b.repeat}` : '')),
      list(b.nodes).map(nodeRow),
    ]);
    return section('Structure', table(`Blocks, folded where repeated, at batch 1 and ${int(graph.seq)} tokens`,
      ['Node', 'Op', 'Output shape', '#Parameters', '#FLOPs / token', '#Saved bytes / token'], rows, 'structure'));
  }

  function checks(r) {
    const items = list(r.checks).map((c) => el('li', { className: `check ${text(c.severity)}` },
      el('strong', null, text(c.severity)), ' ', text(c.message), c.fix ? el('span', { className: 'fix' }, ' Fix: ', text(c.fix)) : null));
    return section('Checks', items.length ? el('ul', { className: 'checks' }, items) : el('p', null, 'No findings.'));
  }

  function assumptions(r) {
    const rows = list(r.assumptions).map((a) => row(text(a.text), text(a.option), text(a.value), text(a.source)));
    return section('Assumptions', table('Every assumption is an option with a default', ['Assumption', 'Option', 'Value', 'Source'], rows));
  }

  function render(r, ms) {
    const parts = [el('p', { className: 'headline' }, text(r.headline)), summary(r)];
    for (const part of [memory, cards, cost, structure, checks, assumptions]) {
      try { parts.push(part(r)); } catch (e) { parts.push(el('p', { className: 'muted' }, `(${part.name}: not shown, ${e.message})`)); }
    }
    parts.push(el('p', { className: 'muted' }, `${text(r.schema)} · planned in ${ms.toFixed(1)} ms`));
    reportBox.replaceChildren(...parts);
    announce.textContent = text(r.headline);
  }

  function showError(error) {
    const e = error || {};
    const where = [e.path ? `at ${e.path}` : '', isNum(e.line) ? `line ${e.line}, column ${e.column}` : ''].filter(Boolean).join(', ');
    errorBox.replaceChildren(el('code', null, text(e.code)), ' ', text(e.message), where ? el('span', { className: 'where' }, ` (${where})`) : null);
    errorBox.hidden = false;
    reportBox.classList.add('stale');
  }

  function options() {
    const out = {};
    for (const field of optionsBox.elements) {
      if (!field.name) continue;
      if (field.type === 'checkbox') { if (field.checked) out[field.name] = true; continue; }
      const v = field.value.trim();
      if (v !== '') out[field.name] = field.type === 'number' && /^\d+$/.test(v) ? Number(v) : v;
    }
    return out;
  }

  function replan() {
    clearTimeout(timer);
    if (!cardfit) return;
    const t0 = performance.now();
    const r = cardfit.plan(configBox.value, options());
    const ms = performance.now() - t0;
    reportBox.setAttribute('aria-busy', 'false');
    if (r && r.ok) {
      errorBox.hidden = true;
      reportBox.classList.remove('stale');
      render(r, ms);
    } else {
      showError(r && r.error);
    }
  }
  const schedule = (ms) => { clearTimeout(timer); timer = setTimeout(replan, ms); };

  // The picker: the embedded examples, then the user's own text, which choosing an example never loses.
  let ownText = '';
  examples.forEach((x, i) => exampleBox.append(el('option', { value: String(i) }, x.id)));
  exampleBox.append(el('option', { value: 'own' }, 'your own config'));
  configBox.value = examples[0].text;
  exampleBox.addEventListener('change', () => {
    const x = examples[Number(exampleBox.value)];
    configBox.value = x ? x.text : ownText;
    replan();
  });
  configBox.addEventListener('input', () => { ownText = configBox.value; exampleBox.value = 'own'; schedule(150); });
  optionsBox.addEventListener('input', () => schedule(50));
  optionsBox.addEventListener('change', () => schedule(0));

  createCardfit().then((api) => { cardfit = api; replan(); }, (e) => {
    reportBox.replaceChildren(el('p', { className: 'error' }, `The planner failed to load: ${e && e.message}`));
  });
})();

// web/src/app.js: the page's wiring. Reads the model (paste, file, hub, example) and the options,
// asks the core for a plan (web/src/planner.js: in a worker), renders the report
// (web/src/render.js), keeps the share link in the URL fragment (web/src/state.js) and serves the
// exports and the compare view. Not a planner: every number comes from the core's report.
//
// One store (web/src/store.js) holds the page's state; handlers only set it (or start a plan,
// whose result they set), and each view is one render subscribed to the slices it reads (the
// "Views" section below). docs/web.md, "The store", says how to add a view.

import { HUB_DEFAULT } from './hub.js';
import { addChildren, cardNames, el, int, isNum, lineOfPath, list, modelName, planHeadline, text, units } from './format.js';
import { createStore } from './store.js';
import { LIST_OPTIONS, decodeState, encodeState } from './state.js';
import { makePlanner } from './planner.js';
import { makeHistoryPanel } from './history-panel.js';
import { hubExtras, pageHub } from './hub-panel.js';
import { readDroppedFile } from './sources.js';
import { badgeJson, cardsCsv, cliCommand, copyText, download, embedSnippet, fileStem } from './exports.js';
import { curvesFromEvents, reportAtBatch } from './batch.js';
import { renderReport } from './render.js';
import { renderCompare } from './compare.js';
import { addTrainingExports } from './export-menu.js';

const $ = (selector, root) => (root || document).querySelector(selector);
const $$ = (selector, root) => [...(root || document).querySelectorAll(selector)];

const examples = JSON.parse($('#examples').textContent);
const planner = makePlanner($('#cardfit-module').textContent);
const form = $('#options');
const reportBox = $('#report');
const compareBox = $('#compare');
const statusBox = $('#plan-status');
const announce = $('#announce');
const stateError = $('#state-error');
const embedBox = $('#embed-snippet');

// ---------------------------------------------------------------------------------------------
// Preferences: theme and units (kept in localStorage where the browser allows it).
function pref(name, value) {
  try {
    if (value === undefined) return localStorage.getItem(`cardfit.${name}`);
    localStorage.setItem(`cardfit.${name}`, value);
  } catch (e) { /* storage may be unavailable (file://, private mode) */ }
  return null;
}
function applyTheme(v) { document.documentElement.dataset.theme = v || 'auto'; }
$('#theme').value = pref('theme') || 'auto';
applyTheme($('#theme').value);
$('#theme').addEventListener('change', (e) => { applyTheme(e.target.value); pref('theme', e.target.value); });

// ---------------------------------------------------------------------------------------------
// The store. A slot (a: the model, b: compare's model B) is {text, label, hubId, header, index,
// checkpointTotal, example, hubMeta} (header/index: {name, text}; hubMeta: what the hub said, for
// its panel). results: each slot's last plan result, good or not ({ok: false, none: why} when the
// slot has no model); reports: each slot's last good report; planned: the last core report of a
// slot with the text and the options but the batch it was asked with (a batch change alone is
// re-evaluated from it: web/src/batch.js); own: what the user typed, kept when an example is
// picked; history: the revision history asked for. The hub token is not here: it stays in
// web/src/hub-panel.js's memory, out of anything that is stored or shared.
const store = createStore({
  a: null, b: null, options: {}, view: 'plan', hub: '', units: pref('units') === 'gib' ? 'gib' : 'gb',
  results: { a: null, b: null }, reports: { a: null, b: null }, planned: { a: null, b: null }, own: { a: '', b: '' },
  history: null,
});
const S = () => store.get();
const setIn = (key, slot, value) => store.set({ [key]: { ...S()[key], [slot]: value } });
units.binary = S().units === 'gib';

const historyPanel = makeHistoryPanel({ planner, endpoint: () => S().hub || HUB_DEFAULT, options: () => ({ ...S().options, checkpoint_total: undefined }) });
let generation = 0;
let lastFragment = '';
let catalogPrices = null;                   // placeholders: the catalog's price per card
let firstPlan = true;

$('#units').addEventListener('change', (e) => { pref('units', e.target.value); store.set({ units: e.target.value === 'gib' ? 'gib' : 'gb' }); });

// ---------------------------------------------------------------------------------------------
// Source panels (model A, model B): example picker, hub id, file drop, paste box. Their inputs set
// the slot; renderSource (below) shows it.
const panels = {};
function sourcePanel(slot) {
  const p = slot === 'a' ? '' : 'b-';
  const ui = {};
  ui.example = el('select', { id: `${p}example` });
  ui.hubId = el('input', { id: `${p}hub-id`, type: 'text', placeholder: 'org/name, e.g. Qwen/Qwen2.5-3B', autocomplete: 'off', spellcheck: false, 'aria-describedby': `${p}hub-status` });
  ui.hubStatus = el('div', { id: `${p}hub-status`, className: 'hub-status', 'aria-live': 'polite' });
  ui.file = el('input', { id: `${p}file`, type: 'file', multiple: true, accept: '.json,.safetensors,application/json' });
  ui.drop = el('div', { id: `${p}drop`, className: 'drop' }, ui.file,
    el('label', { for: `${p}file` }, el('strong', null, 'Drop or choose files'), ': config.json, model.safetensors (only its header is read) or model.safetensors.index.json'));
  ui.checkpoint = el('div', { id: `${p}checkpoint`, className: 'checkpoint-chips', 'aria-live': 'polite' });
  ui.config = el('textarea', { id: `${p}config`, spellcheck: false, autocomplete: 'off', rows: 12, 'aria-describedby': `${p}error`, wrap: 'off' });
  ui.error = el('div', { id: `${p}error`, className: 'error-box', 'aria-live': 'polite', hidden: true });
  ui.hubExtras = hubExtras(slot, { onHistory: (id) => store.set({ history: { id } }) });
  ui.examples = examples.map((x, i) => el('option', { value: String(i) }, x.id));
  ui.example.replaceChildren(...ui.examples, el('option', { value: 'own' }, 'your own config'));
  const hubForm = el('form', { className: 'hub', id: `${p}hub-form`, role: 'search' },
    el('label', { for: `${p}hub-id` }, 'Hub id'), ui.hubId, el('button', { type: 'submit' }, 'Fetch'));
  ui.root = el('section', { className: 'source', 'aria-labelledby': `${p}source-title` },
    el('h2', { id: `${p}source-title` }, slot === 'a' ? 'Model' : 'Model B (compare)'),
    el('div', { className: 'row' }, el('label', { for: `${p}example` }, 'Example'), ui.example),
    hubForm, ui.hubStatus, ui.hubExtras.root, ui.drop, ui.checkpoint,
    el('label', { for: `${p}config`, className: 'paste-label' }, 'config.json ', el('span', { className: 'hint' }, '(paste or edit: checked as you type)')),
    ui.config, ui.error);

  ui.example.addEventListener('change', () => {
    if (ui.example.value === 'own') setSlot(slot, { text: S().own[slot], label: '' });
    else {
      forgetLoraTargets();  // the ticked modules were another model's: the core refuses unknown names
      useExample(slot, Number(ui.example.value));
    }
    replan(slot);
  });
  let typing = 0;
  ui.config.addEventListener('input', () => {
    const s = S()[slot] || {};
    store.set({ own: { ...S().own, [slot]: ui.config.value },
      [slot]: { ...s, text: ui.config.value, label: '', hubId: '', checkpointTotal: undefined, example: '', hubMeta: null } });
    clearTimeout(typing);
    typing = setTimeout(() => replan(slot), 150);
  });
  hubForm.addEventListener('submit', (e) => { e.preventDefault(); fetchHub(slot, ui.hubId.value); });
  ui.file.addEventListener('change', () => { takeFiles(slot, [...ui.file.files]); ui.file.value = ''; });
  for (const type of ['dragenter', 'dragover']) ui.drop.addEventListener(type, (e) => { e.preventDefault(); ui.drop.classList.add('over'); });
  ui.drop.addEventListener('dragleave', () => ui.drop.classList.remove('over'));
  ui.drop.addEventListener('drop', (e) => { e.preventDefault(); e.stopPropagation(); ui.drop.classList.remove('over'); takeFiles(slot, [...e.dataTransfer.files]); });
  return ui;
}

function useExample(slot, i) {
  const x = examples[i];
  if (!x) return;
  setSlot(slot, { text: x.text, label: x.id, checkpointTotal: isNum(x.checkpoint_total) ? x.checkpoint_total : undefined, example: x.id });
}

// LoRA targets ticked for one model name that model's modules; a different model starts from the
// default (every linear but the head) instead of being refused for names it does not have.
function forgetLoraTargets() {
  for (const c of $$('#opt-lora_targets input')) c.checked = false;
  const { lora_targets: _, ...rest } = S().options;
  store.set({ options: rest });
}

// Sets a slot's source (its panel shows it: renderSource).
function setSlot(slot, s) {
  const next = { text: '', label: '', hubId: '', header: null, index: null, example: '', hubMeta: null, ...s };
  const isExample = examples.some((x) => x.id === next.example && x.text === next.text);
  store.set({ [slot]: next, ...(isExample ? {} : { own: { ...S().own, [slot]: next.text } }) });
}

const setSlotFields = (slot, fields) => store.set({ [slot]: { ...(S()[slot] || { text: '', label: '' }), ...fields } });

async function takeFiles(slot, files) {
  const ui = panels[slot];
  if (!files.length) return;
  const said = [];
  for (const f of files) {
    try {
      const got = await readDroppedFile(f);
      const s = S()[slot] || {};
      if (got.kind === 'config') {
        setSlot(slot, { text: got.text, label: got.name, header: s.header, index: s.index });
        said.push(`${got.name}: config`);
      } else if (got.kind === 'safetensors') {
        setSlotFields(slot, { header: { name: `${got.name} (header, ${int(got.text.length)} bytes)`, text: got.text }, index: null });
        said.push(`${got.name}: read its ${int(got.text.length)}-byte header, not the weights`);
      } else {
        setSlotFields(slot, { index: { name: got.name, text: got.text }, header: null });
        said.push(`${got.name}: index`);
      }
    } catch (e) {
      said.push(e.message);
    }
  }
  ui.hubStatus.textContent = said.join('. ');
  replan(slot);
}

async function fetchHub(slot, input) {
  const ui = panels[slot];
  ui.hubStatus.classList.remove('bad');
  // Another hub id is another model: the ticked LoRA targets named the previous one's modules.
  if (String(input).trim() !== ((S()[slot] || {}).hubId || '')) forgetLoraTargets();
  try {
    const got = await pageHub(S().hub || HUB_DEFAULT).fetchModel(input, (msg) => { ui.hubStatus.textContent = msg; });
    const label = got.revision && got.revision !== 'main' ? `${got.id}@${got.revision}` : got.id;
    const hubTotal = got.info && isNum(got.info.safetensorsTotal) ? got.info.safetensorsTotal : undefined;
    setSlot(slot, { text: got.config, label, hubId: label, header: got.header, index: got.index, checkpointTotal: hubTotal, hubMeta: { got, label } });
    ui.hubStatus.textContent = [`Fetched ${label}: config.json${got.index ? ' and the checkpoint index' : got.header ? ' and the safetensors header (two range requests, no weights)' : ''}.`, ...got.notes].join(' ');
    replan(slot);
  } catch (e) {
    ui.hubStatus.classList.add('bad');
    ui.hubStatus.textContent = e.message || String(e);
    // The hub could not be asked (offline, unreachable, timeout, rate limit, not an id): the model
    // on screen stays, and the status says it is still the previous one.
    if (e && ['offline', 'unreachable', 'timeout', 'rate_limited', 'bad_id'].includes(e.kind)) {
      const prev = (S()[slot] || {}).label;
      if (prev && S().reports[slot]) ui.hubStatus.textContent += ` The plan shown is still ${prev}'s.`;
      return;
    }
    // The hub answered that it has no such model for us: nothing of the previous model stays on
    // screen (its config, checkpoint chip and plan would read as this id's).
    setSlot(slot, { text: '', label: '' });
    ui.hubId.value = String(input);
    noPlan(slot, `No plan: ${String(input).trim()} could not be fetched (${e.message || e}). Paste its config.json, drop the file, or pick an example.`);
  }
}

// A slot without a model (a failed fetch): its report is replaced by `why` (renderPlan).
function noPlan(slot, why) {
  store.set({ results: { ...S().results, [slot]: { ok: false, none: why } }, reports: { ...S().reports, [slot]: null }, planned: { ...S().planned, [slot]: null } });
  if (slot === 'a') {
    statusBox.textContent = 'Not planned: no model';
    if (firstPlan) { firstPlan = false; document.documentElement.dataset.ready = 'true'; }
  }
}

// Files dropped anywhere on the page go to model A (or B when dropped on B's panel).
window.addEventListener('dragover', (e) => e.preventDefault());
window.addEventListener('drop', (e) => {
  e.preventDefault();
  const slot = e.target.closest && e.target.closest('#source-b') ? 'b' : 'a';
  if (e.dataTransfer && e.dataTransfer.files.length) takeFiles(slot, [...e.dataTransfer.files]);
});

// ---------------------------------------------------------------------------------------------
// Options: the form ↔ store.options (the core's snake_case names; empty = the core's default).
// The form is where options are typed, so it is written only when options arrive from elsewhere
// (a share link, the reset button), never re-rendered from the store while someone types.
function readOptions() {
  const out = {};
  for (const f of form.elements) {
    if (!f.name || f.name === 'view') continue;
    if (f.type === 'radio') { if (f.checked) out[f.name] = f.value; continue; }
    if (f.type === 'checkbox') { if (f.checked) out[f.name] = true; continue; }
    const v = String(f.value).trim();
    if (v === '') continue;
    if (LIST_OPTIONS.has(f.name)) out[f.name] = v.split(',').map((x) => x.trim()).filter(Boolean);
    else if (f.tagName === 'SELECT' && (v === 'true' || v === 'false')) out[f.name] = v === 'true';
    else if (f.type === 'number') out[f.name] = Number.isFinite(Number(v)) ? Number(v) : v;
    else out[f.name] = v;
  }
  const targets = $('#opt-lora_targets');
  if (targets.dataset.built) {
    const ticked = $$('input[type=checkbox]:checked', targets).map((c) => c.value);
    if (ticked.length) out.lora_targets = ticked;
  } else if (S().options.lora_targets) out.lora_targets = S().options.lora_targets;
  const prices = $('#opt-prices');
  if (prices.dataset.built) {
    const p = {};
    for (const i of $$('input', prices)) if (i.value.trim() !== '' && Number.isFinite(Number(i.value))) p[i.dataset.card] = Number(i.value);
    if (Object.keys(p).length) out.prices = p;
  } else if (S().options.prices) out.prices = S().options.prices;
  return out;
}

function writeOptions(o) {
  for (const f of form.elements) {
    if (!f.name || f.name === 'view') continue;
    const v = o[f.name];
    if (f.type === 'radio') f.checked = v === undefined ? f.value === 'full' : f.value === String(v);
    else if (f.type === 'checkbox') f.checked = v === true;
    else if (f.tagName === 'SELECT' && v !== undefined && ![...f.options].some((x) => x.value === String(v))) f.append(el('option', { value: String(v) }, String(v)));
    if (f.type !== 'radio' && f.type !== 'checkbox') f.value = v === undefined ? '' : Array.isArray(v) ? v.join(',') : String(v);
  }
  for (const c of $$('#opt-lora_targets input')) c.checked = list(o.lora_targets).includes(c.value);
  for (const i of $$('#opt-prices input')) i.value = o.prices && isNum(o.prices[i.dataset.card]) ? String(o.prices[i.dataset.card]) : '';
}

function optionsFor(slot) {
  const s = S()[slot] || {};
  const o = { ...S().options };
  if (s.header && s.header.text) o.safetensors_header = s.header.text;
  else if (s.index && s.index.text) {
    o.safetensors_index = s.index.text;
    // The index names tensors; the hub's safetensors.total gives the count it then reconciles.
    if (o.checkpoint_total === undefined && isNum(s.checkpointTotal)) o.checkpoint_total = s.checkpointTotal;
  } else if (o.checkpoint_total === undefined && isNum(s.checkpointTotal)) o.checkpoint_total = s.checkpointTotal;
  return o;
}

form.addEventListener('submit', (e) => e.preventDefault());
form.addEventListener('input', (e) => { if (e.target.name !== 'view') optionsChanged(); });
form.addEventListener('change', (e) => { if (e.target.name !== 'view' && e.target.type !== 'text' && e.target.type !== 'number') optionsChanged(); });
$('#reset-options').addEventListener('click', () => { store.set({ options: {} }); writeOptions({}); optionsChanged(true); });
let lastOptionsJson = '{}';
function optionsChanged(force) {
  const o = readOptions();
  const j = JSON.stringify(o);
  if (j === lastOptionsJson && !force) return;
  lastOptionsJson = j;
  store.set({ options: o });
  replan('a');
  if (S().view === 'compare') replan('b');
}

// The option fields that depend on the model: the priced card, the LoRA targets, the prices.
function updateModelFields(r) {
  const cardSel = $('#opt-card');
  const priced = ((r.cost || {}).priced || {}).card;
  const want = S().options.card || '';
  const ids = list(r.cards).map((c) => c.id).join(',');
  if (cardSel.dataset.ids !== ids) {
    cardSel.dataset.ids = ids;
    cardSel.replaceChildren(el('option', { value: '' }, 'default'), ...list(r.cards).map((c) => el('option', { value: c.id }, text(c.name))));
    cardSel.value = want;
  }
  const fitSel = $('#opt-fit_card');  // "make it fit on": the same cards (web/src/fit.js renders the section)
  if (fitSel.dataset.ids !== ids) {
    fitSel.dataset.ids = ids;
    fitSel.replaceChildren(el('option', { value: '' }, 'none'), ...list(r.cards).map((c) => el('option', { value: c.id }, text(c.name))));
    fitSel.value = S().options.fit_card || '';
  }
  const nameOf = cardNames(r.cards);
  if (!want && priced) cardSel.options[0].textContent = `default (${nameOf(list(r.cards).find((c) => c.id === priced) || { id: priced, name: priced })})`;
  // The QLoRA base's defaults as planned: nf4 with double quantization, or a bitsandbytes
  // checkpoint's own (core/plan/checkpoint_quant.cpp).
  const plan = r.plan || {};
  if (plan.qlora_quant) $('#opt-qlora_quant').options[0].textContent = `default (${plan.qlora_quant})`;
  if (typeof plan.double_quant === 'boolean') $('#opt-double_quant').options[0].textContent = `default (${plan.double_quant})`;

  const names = list(r.linear_names);
  const box = $('#opt-lora_targets');
  if (box.dataset.names !== names.join(',')) {
    const ticked = list(S().options.lora_targets);
    box.dataset.names = names.join(',');
    box.dataset.built = '1';
    box.replaceChildren(...names.map((n) => el('label', { className: 'check' }, el('input', { type: 'checkbox', value: n, checked: ticked.includes(n) }), el('code', null, n))));
  }

  const prices = $('#opt-prices');
  if (!catalogPrices && !S().options.prices) catalogPrices = Object.fromEntries(list(r.cards).map((c) => [c.id, c.usd_per_gpu_hr]));
  if (prices.dataset.ids !== ids) {
    prices.dataset.ids = ids;
    prices.dataset.built = '1';
    const have = S().options.prices || {};
    prices.replaceChildren(...list(r.cards).map((c) => {
      const id = `opt-price-${c.id}`;
      const ph = catalogPrices && isNum(catalogPrices[c.id]) ? catalogPrices[c.id].toFixed(3) : 'none';
      return el('div', { className: 'price' }, el('label', { for: id }, nameOf(c)),
        el('input', { id, type: 'number', min: '0', step: '0.01', inputmode: 'decimal', placeholder: ph, value: isNum(have[c.id]) ? String(have[c.id]) : '', dataset: { card: c.id } }));
    }));
  }

  // Placeholders show the defaults the core used.
  const ph = { seq: (r.modes || {}).full?.seq, serve_seq: (r.modes || {}).serve?.seq, lora_rank: (r.plan || {}).lora_rank,
    samples: (r.cost || {}).samples, epochs: (r.cost || {}).epochs, cost_batch: (r.cost || {}).batch, mfu: (r.cost || {}).mfu };
  for (const [k, v] of Object.entries(ph)) { const f = form.elements[k]; if (f && isNum(v)) f.placeholder = String(v); }
  const ckField = form.elements.checkpoint_total;
  const s = S().a || {};
  ckField.placeholder = isNum(s.checkpointTotal) ? `${s.checkpointTotal} (hub)` : 'none';
}


// ---------------------------------------------------------------------------------------------
// Views: each a render of the store's slices, subscribed at the start (the bottom of this file).
// Helpers first: links to option fields, the open/closed state of disclosures across renders.
function optionLink(name, label) {
  const base = String(name).split('.')[0];
  const field = document.getElementById(`opt-${base}`);
  if (!field) return el('code', null, text(label));
  return el('a', { href: `#opt-${base}`, className: 'option-link', onclick: (e) => {
    e.preventDefault();
    const more = field.closest('details');
    if (more) more.open = true;
    field.scrollIntoView({ block: 'center' });
    field.focus();
  } }, el('code', null, text(label)));
}

function openKeys(root) {
  return new Set($$('details[open]', root).map((d) => d.id || (d.querySelector('summary .bname') || d.querySelector('summary') || {}).textContent));
}
function restoreOpen(root, keys) {
  for (const d of $$('details', root)) {
    const k = d.id || (d.querySelector('summary .bname') || d.querySelector('summary') || {}).textContent;
    if (keys.has(k)) d.open = true;
  }
}

function lineStart(textValue, line) {
  let pos = 0;
  for (let l = 1; l < line && pos >= 0; l++) pos = textValue.indexOf('\n', pos) + 1 || -1;
  return Math.max(0, pos);
}

// The source panel of a slot: the text in its box, the example picker, the checkpoint chips, the
// hub's facts. Reads: the slot.
function renderSource(slot) {
  const s = S()[slot] || {};
  const ui = panels[slot];
  const textValue = s.text || '';
  if (ui.config.value !== textValue) ui.config.value = textValue;  // never while typing: same text
  const i = examples.findIndex((x) => x.id === s.example && x.text === s.text);
  ui.example.value = i >= 0 ? String(i) : 'own';
  if (s.hubMeta) ui.hubExtras.show(s.hubMeta.got, s.hubMeta.label);
  else ui.hubExtras.clear();
  const chips = [];
  const chip = (label, fields) => el('span', { className: 'chip' }, label,
    el('button', { type: 'button', className: 'chip-x', 'aria-label': `Remove ${label}`, onclick: () => { setSlotFields(slot, fields); replan(slot); } }, '×'));
  if (s.header) chips.push(chip(`Checkpoint: ${s.header.name}`, { header: null }));
  if (s.index) chips.push(chip(`Checkpoint: ${s.index.name}`, { index: null }));
  if (!s.header && !s.index && isNum(s.checkpointTotal)) chips.push(chip(`Checkpoint total: ${int(s.checkpointTotal)} scalars (hub)`, { checkpointTotal: undefined }));
  ui.checkpoint.replaceChildren(...chips);
}

// A slot's error box (and the option field an option error names). Reads: the slot's result.
function renderSlotError(slot) {
  const r = S().results[slot];
  if (!r || r.none) return;
  if (r.ok) clearError(slot);
  else showError(slot, r.error);
}

function showError(slot, error) {
  const e = error || {};
  const ui = panels[slot];
  const isOption = /^options\./.test(e.code || '') || (e.path && document.getElementById(`opt-${String(e.path).split('.')[0]}`) && !/^\$/.test(e.path));
  $$('[aria-invalid=true]').forEach((f) => f.removeAttribute('aria-invalid'));
  if (isOption) {
    const field = document.getElementById(`opt-${String(e.path).split('.')[0]}`);
    if (field) field.setAttribute('aria-invalid', 'true');
    stateError.replaceChildren();
    stateError.dataset.kind = 'option';
    addChildren(stateError, [el('code', null, text(e.code)), ' ', text(e.message), field ? [' ', optionLink(e.path, `go to ${e.path}`)] : '']);
    stateError.hidden = false;
    ui.error.hidden = true;
  } else {
    const src = (S()[slot] || {}).text || '';
    const line = isNum(e.line) ? e.line : lineOfPath(src, e.path);
    const where = [e.path && e.path !== '$' ? e.path : '', line ? `line ${line}${isNum(e.column) ? `, column ${e.column}` : ''}` : ''].filter(Boolean).join(', ');
    ui.config.setAttribute('aria-invalid', 'true');
    ui.error.replaceChildren();
    addChildren(ui.error, [el('code', null, text(e.code)), ' ', text(e.message), where ? el('span', { className: 'where' }, ` (${where})`) : '',
      line ? [' ', el('button', { type: 'button', className: 'linkish', onclick: () => {
        const start = lineStart(src, line);
        const end = src.indexOf('\n', start);
        ui.config.focus();
        ui.config.setSelectionRange(start, end < 0 ? src.length : end);
        const lh = parseFloat(getComputedStyle(ui.config).lineHeight) || 16;
        ui.config.scrollTop = Math.max(0, (line - 3) * lh);
      } }, `Go to line ${line}`)] : '']);
    ui.error.hidden = false;
    stateError.hidden = true;
  }
  (slot === 'a' ? reportBox : compareBox).classList.add('stale');
}

function clearError(slot) {
  panels[slot].error.hidden = true;
  panels[slot].config.removeAttribute('aria-invalid');
  // A share-link error stays up when the page plans its default instead (it explains why).
  if (slot === 'a') { if (stateError.dataset.kind !== 'link') stateError.hidden = true; $$('#options [aria-invalid=true]').forEach((f) => f.removeAttribute('aria-invalid')); }
}

// Which of the two views shows. Reads: view.
function renderLayout() {
  const view = S().view;
  for (const r of $$('input[name=view]')) r.checked = r.value === view;
  const compare = view === 'compare';
  $('#source-b').hidden = !compare;
  compareBox.hidden = !compare;
  reportBox.hidden = compare;
}

// The plan view: model A's report. Reads: A's result (a new plan, an error: the last good report
// stays, dimmed; no model) and the units (the same report in the other unit).
function renderPlan(state, previous) {
  const r = state.results.a;
  if (previous.units !== state.units) { showReport(); return; }
  if (!r || (!r.ok && !r.none)) return;
  reportBox.classList.remove('stale');
  if (r.none) {
    reportBox.setAttribute('aria-busy', 'false');
    reportBox.replaceChildren(el('p', { className: 'no-plan', id: 'no-plan' }, r.none));
    reportBox.dataset.generation = String(++generation);
    return;
  }
  showReport();
}

function showReport() {
  const r = S().reports.a;
  if (!r) return;
  const a = S().a || {};
  const keys = openKeys(reportBox);
  const file = a.label ? `${fileStem(a.label)}-config.json` : 'config.json';
  // The curves are drawn from the report's event list (web/src/batch.js), not asked of the core.
  const shown = { ...r, curves: curvesFromEvents(r) };
  reportBox.replaceChildren(...renderReport(shown, { prefix: 'a', optionLink, cli: cliCommand(S().options, file), load: loadSection, name: modelName(a.label, a.text) }));
  restoreOpen(reportBox, keys);
  reportBox.dataset.generation = String(++generation);
}

// The option fields that depend on the model, the embed snippet and the announcement. Reads: A's
// last good report.
function renderModelFields() {
  const r = S().reports.a;
  if (!r) return;
  updateModelFields(r);
  embedBox.value = embedSnippet(S().a, S().options);
  announce.textContent = planHeadline(r, modelName((S().a || {}).label, (S().a || {}).text));
}

// The compare view. Reads: both results, the units; drawn only while it is the view.
function renderCompareView(state) {
  if (state.view !== 'compare') return;
  const { a, b } = state.results;
  compareBox.classList.toggle('stale', !(a && a.ok && b && b.ok) && !(a && a.none) && !(b && b.none));
  if (b && b.none) compareBox.setAttribute('aria-busy', 'false');
  showCompare();
}

function showCompare() {
  const s = S();
  const result = (r) => (r && !r.none ? r : null);
  renderCompare(compareBox, { a: s.a || {}, b: s.b || {}, reportA: result(s.results.a), reportB: result(s.results.b), planner, optionsA: optionsFor('a') });
  compareBox.dataset.generation = String(++generation);
}

// The revision history panel. Reads: history (set by a source panel's button).
function renderHistory() {
  const h = S().history;
  if (h) historyPanel.open(h.id);
}

// An on-request section of model A's current plan (graph, tensors, markdown): asked of the core
// only when its part of the page is opened or an export needs it.
function loadSection(kind) {
  const s = S().a || {};
  return planner.call(kind, s.text || '', optionsFor('a'), `${kind}:a`).then((res) => res && res.report);
}

// ---------------------------------------------------------------------------------------------
// Planning: asks the core (or re-evaluates a batch change) and sets the result; the views follow.
async function replan(slot) {
  const s = S()[slot];
  if (!s) return;
  const t0 = performance.now();
  const options = optionsFor(slot);
  // A change of the batch alone: re-evaluated here from the last core report's event list
  // (web/src/batch.js), exactly as the core would, without a call.
  const { batch, ...rest } = options;
  const planned = S().planned[slot];
  const sameBut = planned && planned.text === s.text && planned.rest === JSON.stringify(rest);
  const batchInRange = batch === undefined || (Number.isInteger(batch) && batch >= 1 && batch <= 1 << 20);  // else the core judges it
  let res;
  if (sameBut && batchInRange) {
    res = { report: reportAtBatch(planned.report, isNum(batch) ? batch : 1), ms: 0, local: true };
  } else {
    statusBox.textContent = 'Planning…';
    reportBox.setAttribute('aria-busy', 'true');
    res = await planner.plan(s.text, options, `main:${slot}`);
    if (!res) return;  // replaced by a newer request
    setIn('planned', slot, res.report && res.report.ok ? { text: s.text, rest: JSON.stringify(rest), report: res.report } : null);
  }
  const r = res.report;
  reportBox.setAttribute('aria-busy', 'false');
  const ok = !!(r && r.ok);
  store.set({ results: { ...S().results, [slot]: r }, ...(ok ? { reports: { ...S().reports, [slot]: r } } : {}) });
  const ms = performance.now() - t0;
  statusBox.textContent = !ok ? 'Not planned: see the error'
    : res.local ? 'Re-evaluated for the new batch from the plan\'s memory events (no re-plan needed)'
      : `Planned in ${res.ms.toFixed(0)} ms${planner.inWorker ? ' (in a worker)' : ''}`;
  reportBox.dataset.planMs = res.ms.toFixed(1);
  reportBox.dataset.roundTripMs = ms.toFixed(1);
  if (firstPlan && ok && slot === 'a') {
    firstPlan = false;
    performance.mark('cardfit:first-plan');
    document.documentElement.dataset.ready = 'true';
    planner.warmUp(s.text, optionsFor(slot), 4);
  }
}

// ---------------------------------------------------------------------------------------------
// The view switch.
function setView(view) {
  store.set({ view: view === 'compare' ? 'compare' : 'plan' });
  if (S().view !== 'compare') return;
  const a = S().a;
  if (!S().b) setSlot('b', { ...(a || {}), hubMeta: null, label: a && a.label ? `${a.label} (copy: edit it)` : 'copy of A' });
  replan('b');
}
for (const r of $$('input[name=view]')) r.addEventListener('change', () => setView(r.value));

// ---------------------------------------------------------------------------------------------
// Share link and exports. The fragment follows the state it carries (a subscriber, below).
let fragmentTimer = 0;
function scheduleFragment() {
  clearTimeout(fragmentTimer);
  fragmentTimer = setTimeout(writeFragment, 200);
}
async function writeFragment() {
  const s = S();
  const hash = await encodeState({ a: s.a, b: s.view === 'compare' ? s.b : null, options: s.options, view: s.view, hub: s.hub, units: s.units === 'gib' ? 'gib' : '' });
  lastFragment = hash;
  if (location.hash !== hash) {
    try { history.replaceState(null, '', hash); } catch (e) { /* some contexts forbid it */ }
  }
  return hash;
}

$('#copy-link').addEventListener('click', async () => {
  await writeFragment();
  const ok = await copyText(location.href);
  statusBox.textContent = ok ? 'Share link copied: it carries the config and options, and nothing reaches a server.' : 'Copy the link from the address bar.';
});

for (const b of $$('[data-export]')) {
  b.addEventListener('click', async () => {
    const r = S().reports.a;
    const kind = b.dataset.export;
    if (kind === 'copy-embed') { statusBox.textContent = (await copyText(embedBox.value)) ? 'Embed snippet copied.' : 'Select the snippet and copy it.'; return; }
    if (!r) return;
    const stem = `${fileStem((S().a || {}).label)}.cardfit`;
    // Markdown is asked of the core only for an export.
    const markdown = async () => { const a = await loadSection('markdown'); return a && a.ok ? a.markdown : ''; };
    if (kind === 'markdown') download(`${stem}.md`, await markdown(), 'text/markdown');
    else if (kind === 'json') download(`${stem}.json`, JSON.stringify(r, null, 2) + '\n', 'application/json');
    else if (kind === 'csv') download(`${stem}.cards.csv`, cardsCsv(r), 'text/csv');
    else if (kind === 'badge') download(`${stem}.badge.json`, badgeJson(r), 'application/json');
    else if (kind === 'copy-markdown') statusBox.textContent = (await copyText(await markdown())) ? 'Markdown copied.' : 'Copy failed: use the download.';
  });
}
addTrainingExports(store, (message) => { statusBox.textContent = message; });

// ---------------------------------------------------------------------------------------------
// Start: the fragment's state if there is one, else the first example.
async function applyFragment(hash) {
  let st = null;
  try {
    st = await decodeState(hash);
  } catch (e) {
    linkError(/share-link format/.test(e.message) ? `${e.message} Showing the default plan instead.` : `This share link could not be read (${e.message}); showing the default plan instead.`);
  }
  if (!st) return false;
  store.set({ hub: st.hub || '', ...(st.units ? { units: st.units === 'gib' ? 'gib' : 'gb' } : {}), options: st.options || {} });
  writeOptions(S().options);
  lastOptionsJson = JSON.stringify(readOptions());
  for (const slot of ['a', 'b']) {
    const s = st[slot];
    if (!s) { if (slot === 'b') store.set({ b: null }); continue; }
    if (s.example) {
      const i = examples.findIndex((x) => x.id === s.example);
      if (i >= 0) useExample(slot, i);
      else {
        linkError(`This share link names the example "${s.example}", which this page does not have (it has ${examples.map((x) => x.id).join(', ')}); showing ${examples[0].id} instead.`);
        useExample(slot, 0);
      }
    } else if (s.hubId && !s.text) {
      setSlot(slot, { text: '', label: s.hubId, hubId: s.hubId });  // the link's own id: its LoRA targets stay
      panels[slot].hubId.value = s.hubId;
      fetchHub(slot, s.hubId);
    } else {
      const i = examples.findIndex((x) => x.text === s.text && x.id === s.label);
      setSlot(slot, { ...s, example: i >= 0 ? examples[i].id : '' });
    }
  }
  if (!S().a) useExample('a', 0);
  setView(st.view);
  if (S().a.text) replan('a');
  return true;
}

// A share link the page cannot follow says so above the results (and stays up while the default plans).
function linkError(message) {
  stateError.replaceChildren(message);
  stateError.dataset.kind = 'link';
  stateError.hidden = false;
}

window.addEventListener('hashchange', () => {
  if (location.hash && location.hash !== lastFragment) applyFragment(location.hash);
});

panels.a = sourcePanel('a');
panels.b = sourcePanel('b');
$('#source-a').replaceChildren(panels.a.root);
$('#source-b').replaceChildren(panels.b.root);

// The views, in the order they draw: the unit first (every number reads it), each slot's panel
// and error, the layout, then the plan and compare views and what follows them.
store.subscribe(['units'], (s) => { units.binary = s.units === 'gib'; $('#units').value = s.units; });
for (const slot of ['a', 'b']) {
  store.subscribe([slot], () => renderSource(slot));
  store.subscribe([`results.${slot}`], () => renderSlotError(slot));
}
store.subscribe(['view'], renderLayout);
store.subscribe(['results.a', 'units'], renderPlan);
store.subscribe(['reports.a'], renderModelFields);
store.subscribe(['results.a', 'results.b', 'units'], renderCompareView);
store.subscribe(['history'], renderHistory);
store.subscribe(['a', 'b', 'options', 'view', 'hub', 'units'], scheduleFragment);
$('#units').value = S().units;

// A page saved with "Save page as…" carries the last rendered DOM: start from a clean slate.
delete document.documentElement.dataset.ready;
reportBox.replaceChildren(el('p', null, 'Loading the planner…'));
compareBox.replaceChildren();
for (const id of ['#opt-lora_targets', '#opt-prices']) { $(id).replaceChildren(); delete $(id).dataset.built; delete $(id).dataset.names; delete $(id).dataset.ids; }
$('#opt-card').replaceChildren(el('option', { value: '' }, 'default'));
delete $('#opt-card').dataset.ids;
$('#opt-fit_card').replaceChildren(el('option', { value: '' }, 'none'));
delete $('#opt-fit_card').dataset.ids;

applyFragment(location.hash).then((used) => {
  if (used) return;
  writeOptions({});
  lastOptionsJson = JSON.stringify(readOptions());
  store.set({ options: readOptions() });
  useExample('a', 0);
  setView('plan');
  replan('a');
});

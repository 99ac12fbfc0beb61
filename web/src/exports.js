// web/src/exports.js: what leaves the page as files or clipboard text: the Markdown twin and the
// JSON report (both exactly as the core wrote them), the card table as CSV, a badge in the shields.io
// endpoint format, and the embed snippet for <cardfit-plan>. Not a planner: fields of the report,
// reformatted.

import { MODES, bytes, el, list } from './format.js';
import { OPTION_SPECS, optionToString } from './state.js';
import { stageBlocks } from './fit-cell.js';

export function csvCell(v) {
  const s = v === null || v === undefined ? '' : String(v);
  // Quote fields with separators, and neutralise spreadsheet formulas from config-derived names.
  const safe = /^[=+\-@\t\r]/.test(s) && !/^-?\d/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

// Serving columns: [name, read(row, section)]; priced figures blank where the row is not priced.
const SERVING_COLUMNS = [
  ['engine', (_, s) => s.engine],
  ['tp', (_, s) => s.tp],
  ['fits', (x) => (x.fits ? 'true' : 'false')],
  ['budget_bytes', (x) => x.budget_bytes],
  ['weights_bytes', (x) => x.weights_bytes],
  ['activation_bytes', (x) => x.activation_bytes],
  ['kv_bytes', (x) => x.kv_bytes],
  ['blocks', (x) => x.blocks],
  ['kv_tokens', (x) => x.kv_tokens],
  ['concurrency', (x) => x.concurrency],
  ['output_tokens_per_second', (x) => (x.priced ? x.output_tokens_per_second : '')],
  ['usd_per_m_output', (x) => (x.priced ? x.usd_per_m_output : '')],
  ['usd_per_m_input', (x) => (x.priced ? x.usd_per_m_input : '')],
];

export function cardsCsv(r) {
  const head = ['card_id', 'card', 'capacity_bytes', 'usd_per_gpu_hr'];
  for (const m of MODES) head.push(`${m}_max_batch`, `${m}_safe_batch`, `${m}_borderline`, `${m}_split_cards`, `${m}_split_strategy`, `${m}_split_stage_blocks`);
  // The serving section (engine, tp) per card: its KV budget, concurrency and roofline cost.
  head.push(...SERVING_COLUMNS.map(([name]) => `serving_${name}`));
  const serving = r.serving || {};
  const servingRows = new Map(list(serving.rows).map((s) => [s.card, s]));
  // Training throughput at the planned batch and the run's cost (the core's cost rows, requested mode).
  head.push('bf16', 'dense_tflops', 'mem_bw_gbps', 'train_cards', 'train_step_seconds', 'train_tokens_per_s', 'run_hours', 'run_usd');
  const costRows = Object.fromEntries(list((r.cost || {}).rows).map((x) => [x.card, x]));
  const rows = [head];
  for (const c of list(r.cards)) {
    const row = [c.id, c.name, c.capacity_bytes, c.usd_per_gpu_hr ?? ''];
    for (const m of MODES) {
      const s = (c.split || {})[m];
      row.push((c.max_batch || {})[m] ?? '', (c.safe_batch || {})[m] ?? '', (c.borderline || {})[m] ? 'true' : 'false',
        s ? s.cards : '', s ? s.strategy : '', s ? stageBlocks(s).join('+') : '');
    }
    const sr = servingRows.get(c.id);
    for (const [name, read] of SERVING_COLUMNS) row.push(sr ? read(sr, serving) ?? '' : '');
    const x = costRows[c.id] || {};
    const rate = x.fits && x.tokens_per_s > 0;
    row.push(c.bf16 === false ? 'false' : 'true', c.dense_tflops || '', c.mem_bw_gbps || '', x.fits ? x.cards : '',
      rate ? x.step_seconds : '', rate ? x.tokens_per_s : '', rate ? x.hours : '', x.priced ? x.usd : '');
    rows.push(row);
  }
  return rows.map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

// shields.io endpoint JSON (https://shields.io/badges/endpoint-badge): label, message, color.
export function badgeJson(r) {
  const modes = r.modes || {};
  const parts = [];
  if (modes.full) parts.push(`full ${bytes(modes.full.reserved_bytes)}`);
  if (modes.lora) parts.push(`LoRA ${bytes(modes.lora.reserved_bytes)}`);
  if (modes.serve) parts.push(`serve ${bytes(modes.serve.reserved_bytes)}`);
  return JSON.stringify({ schemaVersion: 1, label: 'GPU memory (cardfit)', message: parts.join(' · ') || 'n/a', color: 'blue', cacheSeconds: 86400 }, null, 2) + '\n';
}

// The embed snippet: a hub id when the model came from the hub, else the config inline (its JSON
// escaped so it cannot close the script element).
export function embedSnippet(slot, options) {
  const attrs = [];
  const attr = (name, v) => attrs.push(`${name}="${String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')}"`);
  if (slot && slot.hubId) attr('hub-id', slot.hubId);
  for (const [k, v] of Object.entries(options || {})) {
    if (['safetensors_header', 'safetensors_index'].includes(k)) continue;  // file texts stay out of a page
    attr(k.replace(/_/g, '-'), optionToString(k, v));  // as the widget reads it back (web/src/widget.js)
  }
  const open = `<cardfit-plan${attrs.length ? ' ' + attrs.join(' ') : ''}>`;
  const script = '<script src="cardfit-widget.js" defer><\/script>';
  if (slot && slot.hubId) return `${script}\n${open}</cardfit-plan>\n`;
  let compact = slot && slot.text ? slot.text : '{}';
  try { compact = JSON.stringify(JSON.parse(compact)); } catch (e) { /* keep the text as typed */ }
  return `${script}\n${open}\n  <script type="application/json">${compact.replace(/</g, '\\u003c')}<\/script>\n</cardfit-plan>\n`;
}

export function download(name, textBody, type) {
  const url = URL.createObjectURL(new Blob([textBody], { type }));
  const a = el('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

export async function copyText(s) {
  try {
    await navigator.clipboard.writeText(s);
    return true;
  } catch (e) {
    // file:// pages may lack clipboard permission: fall back to a selected textarea.
    const t = el('textarea', { value: s, 'aria-hidden': 'true', className: 'offscreen' });
    document.body.append(t);
    t.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch (e2) { ok = false; }
    t.remove();
    return ok;
  }
}

// A file name from the model's label: "Qwen/Qwen2.5-3B" → "Qwen2.5-3B".
export function fileStem(label) {
  return (String(label || 'model').split('/').pop() || 'model').replace(/[^\w.-]+/g, '_').slice(0, 80) || 'model';
}

// The same plan from the command line: each option as its flag of the core's schema.
export function cliCommand(options, file) {
  const args = ['scripts/cardfit'];
  for (const [k, v] of Object.entries(options || {})) {
    const spec = OPTION_SPECS.get(k);
    if (!spec || spec.flag_reads || v === undefined) continue;  // files cannot travel in a command line
    if (spec.type === 'boolean' && !spec.flag_arg) { if (v === true) args.push(spec.flag); continue; }  // a switch
    if (Array.isArray(v)) args.push(spec.flag, v.join(','));
    else if (spec.type === 'map') args.push(spec.flag, Object.entries(v).map(([a, b]) => `${a}=${b}`).join(','));
    else args.push(spec.flag, String(v));
  }
  args.push(/^[\w./-]+$/.test(file) ? file : `'${String(file).replace(/'/g, "'\\''")}'`);
  return args.join(' ');
}

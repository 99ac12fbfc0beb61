// web/src/format.js: DOM and number formatting shared by the page and the widget. Not a planner:
// nothing here computes memory or cost; it turns the core's exact integers into text. Every string
// that can come from a config goes into the DOM as a text node (never as markup).

export const DASH = '—';
const SVG_NS = 'http://www.w3.org/2000/svg';

// el('td', {className: 'num', 'aria-label': 'x'}, 'text', node, [more]): strings become text nodes.
// Keys with a dash (aria-*, data-*) and 'for'/'role' are attributes; the rest are DOM properties.
export function el(tag, props, ...children) {
  const node = document.createElement(tag);
  setProps(node, props);
  return addChildren(node, children);
}

export function svgEl(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined && v !== false) node.setAttribute(k, String(v));
  }
  return addChildren(node, children);
}

function setProps(node, props) {
  for (const [k, v] of Object.entries(props || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.includes('-') || k === 'for' || k === 'role') node.setAttribute(k, v === true ? '' : String(v));
    else if (k === 'dataset') Object.assign(node.dataset, v);
    else node[k] = v;
  }
}

export function addChildren(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
export const list = (v) => (Array.isArray(v) ? v : []);
export const entries = (v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.entries(v) : []);
export const text = (v) => (v === null || v === undefined || v === '' ? DASH : typeof v === 'object' ? JSON.stringify(v) : String(v));

// Exact integers with thousands separators: 124439808 → "124,439,808" (beyond 2^53 the JSON
// number is already rounded by JSON.parse; counts that large do not occur).
export const int = (v) => (isNum(v) ? String(Math.trunc(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : DASH);

// A share of a whole, one decimal: percent(1, 8) → "12.5%"; a dash when there is no whole.
export const percent = (part, whole) => (isNum(part) && isNum(whole) && whole ? `${(100 * part / whole).toFixed(1)}%` : DASH);

// Units: GB (10^9, as the vendors and the reference pages) or GiB (2^30); one choice for the whole
// view, so a table never mixes the two.
export const units = { binary: false };
function sig3(x) {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}
export function bytes(v) {
  if (!isNum(v)) return DASH;
  const [giga, mega, g, m] = units.binary ? [2 ** 30, 2 ** 20, 'GiB', 'MiB'] : [1e9, 1e6, 'GB', 'MB'];
  if (Math.abs(v) >= giga || v === 0) return `${sig3(v / giga)} ${g}`;
  return `${sig3(v / mega)} ${m}`;
}
// A number of bytes on an axis or in a table column, always in the big unit.
export function gbNumber(v) {
  return isNum(v) ? v / (units.binary ? 2 ** 30 : 1e9) : NaN;
}
export const unitName = () => (units.binary ? 'GiB' : 'GB');
export const usd = (v) => (isNum(v) && v > 0 ? `$${v >= 1000 ? int(Math.round(v)) : v.toFixed(2)}` : DASH);
export const hours = (v) => (isNum(v) && v > 0 ? (v >= 100 ? int(Math.round(v)) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) : DASH);
export const shape = (v) => (Array.isArray(v) ? v.join(' × ') : text(v));
// 2.45e13 → "24.5 T": FLOPs and other large counts where exact digits do not help.
export function si(v) {
  if (!isNum(v)) return DASH;
  const steps = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  for (const [k, s] of steps) if (Math.abs(v) >= k) return `${sig3(v / k)} ${s}`;
  return String(v);
}
// The card name without the vendor prefix and memory suffix: "NVIDIA A10G 24GB (AWS)" → "A10G".
export function shortCard(name) {
  return String(name || '').replace(/^(NVIDIA|AMD Instinct|AMD)\s+/, '').replace(/^GeForce\s+/, '')
    .replace(/\s+\d+\s*GB.*$/i, '').trim() || String(name || '');
}
// Short names for a set of cards that stay distinct: the GPU ("H100"), then its form factor where
// two share a GPU ("H100 PCIe", "H100 SXM5"), then its memory ("A100 40GB", "A100 80GB").
// → (card) => label.
export function cardNames(cards) {
  const parts = (name) => {
    const bare = String(name || '').replace(/^(NVIDIA|AMD Instinct|AMD)\s+/, '').replace(/^GeForce\s+/, '');
    const m = bare.match(/^(.*?)\s+(\d+\s*GB)\b\s*(.*)$/i);
    const form = m ? (m[3].match(/\b(SXM\d*|PCIe|NVL)\b/i) || [])[1] || '' : '';
    return { base: shortCard(name), mem: m ? m[2].replace(/\s+/g, '') : '', form };
  };
  const all = list(cards).map((c) => ({ c, ...parts(c.name) }));
  const names = new Map();
  for (const x of all) {
    const same = all.filter((y) => y.base === x.base);
    const unique = (f) => new Set(same.map(f)).size === same.length;
    const join = (...a) => a.filter(Boolean).join(' ');
    names.set(x.c.id, same.length === 1 ? x.base : unique((y) => y.form) ? join(x.base, x.form)
      : unique((y) => y.mem) ? join(x.base, x.mem) : join(x.base, x.mem, x.form));
  }
  return (c) => names.get(c && c.id) || shortCard(c && c.name);
}

// One unit for a column of byte counts (never "0.00 GB" beside "58.7 MB"): the big unit when any
// value reaches it, else the small one. → (bytes) => text.
export function bytesColumn(values) {
  const [giga, mega, g, m] = units.binary ? [2 ** 30, 2 ** 20, 'GiB', 'MiB'] : [1e9, 1e6, 'GB', 'MB'];
  const big = list(values).some((v) => isNum(v) && Math.abs(v) >= giga);
  return (v) => (!isNum(v) ? DASH : big ? `${sig3(v / giga)} ${g}` : v === 0 ? `0 ${m}` : `${sig3(v / mega)} ${m}`);
}

// The model's name for a sentence: the hub id or example name it came from, else the config's
// _name_or_path, else '' (the sentence then says "this <model_type> model").
export function modelName(label, configText) {
  const l = String(label || '').replace(/ \(copy: edit it\)$/, '');
  if (l && !/\.json$/i.test(l) && l !== 'copy of A') return l;
  try {
    const n = JSON.parse(configText || '')._name_or_path;
    if (typeof n === 'string' && n.trim() && !/^[./]/.test(n.trim())) return n.trim();
  } catch (e) { /* not JSON: no name */ }
  return '';
}

// The headline for the plan as chosen (its mode, batch, precision), from the report's numbers:
// what the card must hold at the peak and the smallest card that holds that batch.
export function planHeadline(r, name) {
  const p = r.plan || {};
  const mode = p.mode || 'full';
  const batch = isNum(p.batch) ? p.batch : 1;
  const who = name || `this ${text((r.model || {}).model_type)} model`;
  const cards = list(r.cards);
  const fits = cards.find((c) => ((c.max_batch || {})[mode] || 0) >= batch);
  let where;
  if (fits) where = `fits one ${text(fits.name)}${batch === 1 && (fits.borderline || {})[mode] ? ', borderline' : ''}`;
  else {
    const cut = batch === 1 && cards.find((c) => (c.split || {})[mode]);
    where = cut ? `needs ${cut.split[mode].cards} × ${text(cut.name)}` : batch === 1 ? 'does not fit on any card of the catalog' : `no card holds batch ${int(batch)}`;
  }
  // The weights' dtype as the core labels its component ("Frozen base (bf16)", "Weights (int4)").
  const wLabel = ((p.component_labels || {}).weights || '');
  const wDtype = (wLabel.match(/\(([^)]+)\)/) || [])[1] || '';
  const size = `about ${bytes(p.peak_bytes)} of GPU memory at its peak`;
  const shape = `at batch ${int(batch)} and ${int(p.seq)} tokens`;
  if (mode === 'serve') return `Serving ${who} ${shape} of context${wDtype ? ` with ${wDtype} weights` : ''} takes ${size} (${where}).`;
  const how = mode === 'full' ? `A full fine-tune of ${who}` : mode === 'lora' ? `LoRA r=${text(p.lora_rank)} on ${who}` : `QLoRA r=${text(p.lora_rank)} on ${who}`;
  const base = mode === 'full' ? '' : wDtype ? `, ${wDtype} base` : '';
  return `${how} ${shape} in ${text(p.precision)}${base} takes ${size} (${where}).`;
}

export const MODE_LABELS = { full: 'Full fine-tune', lora: 'LoRA', qlora: 'QLoRA', serve: 'Serve' };
export const MODES = ['full', 'lora', 'qlora', 'serve'];
export const modeLabel = (m) => MODE_LABELS[m] || text(m);

// The line of the key a JSON path names ("$.text_config.hidden_size") in the text as typed, so an
// error can point at it; 0 when not found. A small scanner, not a parser: the core validates.
export function lineOfPath(src, path) {
  const want = String(path || '').replace(/^\$\.?/, '');
  if (!want) return 0;
  const stack = [];          // keys of the open containers ('' for arrays and the root)
  let pendingKey = null;     // a key read, its value not yet begun
  let line = 1;
  for (let i = 0; i < src.length; i++) {
    const ch = src[i];
    if (ch === '\n') { line++; continue; }
    if (ch === '"') {
      const keyLine = line;
      let j = i + 1, s = '';
      while (j < src.length && src[j] !== '"') {
        if (src[j] === '\\') { s += src[j + 1] || ''; j += 2; continue; }
        if (src[j] === '\n') line++;
        s += src[j++];
      }
      let k = j + 1;
      while (k < src.length && /\s/.test(src[k])) k++;
      if (src[k] === ':' && stack.length && stack[stack.length - 1].obj) {
        for (let x = j + 1; x < k; x++) if (src[x] === '\n') line++;
        const p = [...stack.slice(1).map((x) => x.key).filter((x) => x !== ''), s].join('.');
        if (p === want) return keyLine;
        pendingKey = s;
        i = k;
      } else {
        pendingKey = null;
        i = j;
      }
      continue;
    }
    if (ch === '{' || ch === '[') { stack.push({ obj: ch === '{', key: pendingKey === null ? '' : pendingKey }); pendingKey = null; continue; }
    if (ch === '}' || ch === ']') { stack.pop(); pendingKey = null; continue; }
    if (ch === ',') pendingKey = null;
  }
  return 0;
}

// web/src/charts.js: the two charts, drawn as plain SVG (docs/web.md says why: no dependency, a few
// kilobytes, text that screen readers get through <title>/<desc>, colours from CSS variables so
// light and dark themes need no code). Not a planner: every point comes from the report
// (modes.*.components for the bars, curves.* and cards[] for the batch chart).

import { MODES, bytes, cardNames, el, entries, gbNumber, int, isNum, list, modeLabel, svgEl, unitName } from './format.js';

// Component colours: fixed per component so a component keeps its colour across modes and models.
// Training-only and serving-only components share colours (they never meet in one bar).
const COMPONENT_ORDER = ['weights', 'weight_cast_cache', 'adapters', 'gradients', 'optimizer_states',
  'optimizer_temporaries', 'activations', 'checkpoints', 'recompute', 'logits', 'working_set',
  'prefill_working_set', 'kv_cache', 'ssm_state', 'library_workspace', 'ddp_buckets'];
const COMPONENT_COLOURS = { weights: 0, weight_cast_cache: 1, adapters: 2, gradients: 3, optimizer_states: 4,
  optimizer_temporaries: 5, activations: 6, checkpoints: 7, recompute: 8, logits: 9, working_set: 10,
  prefill_working_set: 10, kv_cache: 8, ssm_state: 7, library_workspace: 11, ddp_buckets: 12 };
const OVERHEAD_LABELS = { allocator_reserve: 'Allocator reserve (cached, not allocated)', cuda_context: 'CUDA context' };
export function componentColor(id) {
  if (id === 'allocator_reserve') return 'var(--c-reserve)';
  if (id === 'cuda_context') return 'var(--c-context)';
  const i = id in COMPONENT_COLOURS ? COMPONENT_COLOURS[id] : 13;
  return `var(--c${i})`;
}
const MODE_STROKES = { full: ['var(--m-full)', ''], lora: ['var(--m-lora)', '7 4'], qlora: ['var(--m-qlora)', '2 3'], serve: ['var(--m-serve)', '9 3 2 3'] };

// Round axis steps: 1, 2, 2.5, 5 × 10^k.
function niceStep(range, ticks) {
  const raw = range / Math.max(1, ticks);
  const p = 10 ** Math.floor(Math.log10(raw || 1));
  for (const m of [1, 2, 2.5, 5, 10]) if (raw <= m * p) return m * p;
  return 10 * p;
}

// The parts of one mode's memory at its peak: components (non-zero) then the overheads, in bytes.
export function memoryParts(m) {
  const labels = m.component_labels || {};
  const parts = entries(m.components).filter(([, b]) => isNum(b) && b > 0)
    .sort(([a], [b]) => (COMPONENT_ORDER.indexOf(a) >>> 0) - (COMPONENT_ORDER.indexOf(b) >>> 0))
    .map(([id, b]) => ({ id, label: labels[id] || id, bytes: b }));
  for (const [id, b] of entries(m.overheads)) if (isNum(b) && b > 0) parts.push({ id, label: OVERHEAD_LABELS[id] || id, bytes: b });
  return parts;
}

// Horizontal stacked bars: one row per {label, parts, total}; returns {svg, legend}.
// Phone widths get a narrower drawing, so its text stays readable when scaled to the screen.
export const narrow = () => typeof matchMedia === 'function' && matchMedia('(max-width: 40rem)').matches;

export function memoryBars(rows, { title, desc, idPrefix }) {
  const small = narrow();
  const W = small ? 440 : 720, left = small ? 112 : 150, right = small ? 58 : 70, rowH = 26, gap = 10, top = 8, axisH = 26;
  const H = top + rows.length * (rowH + gap) + axisH;
  const max = Math.max(1, ...rows.map((r) => gbNumber(r.total)));
  const step = niceStep(max, 5);
  const xmax = Math.ceil(max / step) * step;
  const x = (v) => left + (v / xmax) * (W - left - right);
  const tid = `${idPrefix}-title`, did = `${idPrefix}-desc`;
  const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart bars', role: 'img', 'aria-labelledby': `${tid} ${did}` },
    svgEl('title', { id: tid }, title), svgEl('desc', { id: did }, desc));
  for (let v = 0; v <= xmax + 1e-9; v += step) {
    svg.append(svgEl('line', { x1: x(v), x2: x(v), y1: top - 4, y2: H - axisH + 2, class: 'grid' }),
      svgEl('text', { x: x(v), y: H - 8, class: 'tick', 'text-anchor': 'middle' }, `${+v.toFixed(2)}`));
  }
  svg.append(svgEl('text', { x: W - right + 8, y: H - 8, class: 'tick' }, unitName()));
  const seen = new Map();
  rows.forEach((r, i) => {
    const y = top + i * (rowH + gap);
    svg.append(svgEl('text', { x: left - 8, y: y + rowH / 2 + 4, 'text-anchor': 'end', class: 'label' }, r.label));
    let acc = 0;
    for (const p of r.parts) {
      const w = x(acc + gbNumber(p.bytes)) - x(acc);
      svg.append(svgEl('rect', { x: x(acc), y, width: Math.max(0.5, w), height: rowH, fill: componentColor(p.id), class: `seg seg-${p.id}` },
        svgEl('title', null, `${r.label}: ${p.label}, ${bytes(p.bytes)}`)));
      acc += gbNumber(p.bytes);
      if (!seen.has(p.id)) seen.set(p.id, p.label);
    }
    svg.append(svgEl('text', { x: x(acc) + 6, y: y + rowH / 2 + 4, class: 'value' }, bytes(r.total)));
  });
  const legend = el('ul', { className: 'legend', 'aria-label': 'Components' },
    [...seen].map(([id, label]) => el('li', null, el('span', { className: 'swatch', style: `background:${componentColor(id)}` }), label)));
  return { svg, legend };
}

// Cards that share one line on the batch chart: the same usable memory as the table prints it and
// the same largest batch of the selected mode. Every line sits at its cards' own usable bytes, so
// the chart never says a card lacks memory the card table gives it.
function capacityGroups(cards, mode) {
  const sorted = list(cards).filter((c) => isNum(c.capacity_bytes)).slice().sort((a, b) => a.capacity_bytes - b.capacity_bytes);
  const groups = [];
  for (const c of sorted) {
    const g = groups[groups.length - 1];
    const batch = (c.max_batch || {})[mode] || 0;
    if (g && bytes(c.capacity_bytes) === bytes(g.capacity) && batch === groupBatch(g, mode)) g.cards.push(c);
    else groups.push({ capacity: c.capacity_bytes, cards: [c] });
  }
  return groups;
}

// The largest batch of a line's cards (one value: the group requires it).
const groupBatch = (g, mode) => ((g.cards[0] || {}).max_batch || {})[mode] || 0;

// Memory the card must hold (reserved bytes) against batch, log-scaled batch axis, one line per
// mode, one dashed line per card capacity group, dots where the selected mode's largest batch is.
export function batchChart(report, selected, { idPrefix }) {
  const curves = report.curves || {};
  const modes = MODES.filter((m) => curves[m] && list(curves[m].points).length);
  const sel0 = MODES.filter((m) => curves[m] && list(curves[m].points).length);
  const groups = capacityGroups(report.cards, sel0.includes(selected) ? selected : sel0[0]);
  const nameOf = cardNames(report.cards);
  const small = narrow();
  const W = small ? 420 : 720, H = small ? 300 : 330, left = small ? 36 : 52, right = small ? 146 : 178, top = 12, bottom = 40;
  const pw = W - left - right, ph = H - top - bottom;
  const sel = modes.includes(selected) ? selected : modes[0];
  // The batch axis spans the selected mode's curve (serving batches run far beyond training ones).
  const maxBatch = Math.max(2, sel ? list(curves[sel].points).at(-1).batch : 2);
  const capMax = groups.length ? gbNumber(groups.at(-1).capacity) : 0;
  // The y axis ends just above the largest card: a curve that leaves the top does not fit anywhere.
  const curveTop = Math.max(1, ...modes.map((m) => gbNumber(list(curves[m].points).at(-1).reserved_bytes)));
  const ymaxRaw = capMax > 0 ? capMax * 1.06 : curveTop;
  const step = niceStep(ymaxRaw, 5);
  const ymax = Math.ceil(ymaxRaw / step) * step;
  const x = (b) => left + (Math.log2(b) / Math.log2(maxBatch)) * pw;
  const y = (v) => top + ph - (Math.min(v, ymax * 1.02) / ymax) * ph;
  const tid = `${idPrefix}-title`, did = `${idPrefix}-desc`;
  const fitText = groups.map((g) => {
    const b = groupBatch(g, sel);
    return `${bytes(g.capacity)} (${g.cards.map(nameOf).join(', ')}): ${b > 0 ? `batch ${b}` : 'batch 1 does not fit'}`;
  }).join('; ');
  const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart curve', role: 'img', 'aria-labelledby': `${tid} ${did}` },
    svgEl('title', { id: tid }, `Memory the card must hold against batch size, ${modeLabel(sel)} highlighted`),
    svgEl('desc', { id: did }, `Largest ${modeLabel(sel)} batch by card memory: ${fitText}.`),
    svgEl('defs', null, svgEl('clipPath', { id: `${idPrefix}-clip` }, svgEl('rect', { x: left, y: top, width: pw, height: ph }))));
  // Axes and grid.
  for (let v = 0; v <= ymax + 1e-9; v += step) {
    svg.append(svgEl('line', { x1: left, x2: left + pw, y1: y(v), y2: y(v), class: 'grid' }),
      svgEl('text', { x: left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'tick' }, `${+v.toFixed(1)}`));
  }
  svg.append(svgEl('text', { x: 4, y: top + 4, class: 'tick', transform: `rotate(90 4 ${top + 4})` }, unitName()));
  for (let b = 1; b <= maxBatch; b *= 2) {
    svg.append(svgEl('line', { x1: x(b), x2: x(b), y1: top, y2: top + ph, class: 'grid' }),
      svgEl('text', { x: x(b), y: top + ph + 16, 'text-anchor': 'middle', class: 'tick' }, b >= 1024 ? `${b / 1024}k` : String(b)));
  }
  svg.append(svgEl('text', { x: left + pw / 2, y: H - 4, 'text-anchor': 'middle', class: 'tick' }, 'batch (sequences per step), log scale'));
  // Capacity lines with labels pushed apart so they never overlap, and kept inside the drawing:
  // pushed up from the bottom, then down from the top where the stack would leave it.
  const labels = groups.map((g) => ({ g, y: y(gbNumber(g.capacity)) })).sort((a, b) => b.y - a.y);
  const gapY = 12, minY = 10, maxY = H - 4;
  labels.forEach((l, i) => { l.ly = Math.min(l.y, maxY, i ? labels[i - 1].ly - gapY : Infinity); });
  for (let i = labels.length - 1; i >= 0; i--) labels[i].ly = Math.max(labels[i].ly, i === labels.length - 1 ? minY : labels[i + 1].ly + gapY);
  // Label text fits the right margin (11px text, about 6.2 units a character).
  const room = Math.floor((right - 12) / 6.2);
  for (const { g, y: gy, ly } of labels) {
    const names = g.cards.map(nameOf);
    let n = Math.min(2, names.length), label;
    for (;;) {
      label = `${bytes(g.capacity)} ${names.slice(0, n).join(', ')}${names.length > n ? ` +${names.length - n}` : ''}`;
      if (label.length <= room || n <= 1) break;
      n--;
    }
    if (label.length > room) label = `${label.slice(0, room - 1)}…`;
    svg.append(svgEl('line', { x1: left, x2: left + pw, y1: gy, y2: gy, class: 'capacity' }),
      svgEl('line', { x1: left + pw, x2: left + pw + 6, y1: gy, y2: ly, class: 'capacity leader' }),
      svgEl('text', { x: left + pw + 8, y: ly + 4, class: 'cap-label' }, svgEl('title', null, g.cards.map((c) => `${c.name}: ${bytes(c.capacity_bytes)}, largest ${modeLabel(sel)} batch ${(c.max_batch || {})[sel] || 0}`).join('\n')), label));
  }
  // One line per mode; the selected one drawn last and thicker.
  const plot = svgEl('g', { 'clip-path': `url(#${idPrefix}-clip)` });
  for (const m of [...modes.filter((m) => m !== sel), sel]) {
    const pts = list(curves[m].points).map((p) => `${x(p.batch).toFixed(1)},${y(gbNumber(p.reserved_bytes)).toFixed(1)}`).join(' ');
    const [stroke, dash] = MODE_STROKES[m] || ['currentColor', ''];
    plot.append(svgEl('polyline', { points: pts, fill: 'none', stroke, 'stroke-dasharray': dash || null, class: `mode-line${m === sel ? ' selected' : ''}`, 'data-mode': m },
      svgEl('title', null, `${modeLabel(m)} at ${curves[m].seq} tokens`)));
  }
  svg.append(plot);
  // Where the selected mode's largest batch sits on each capacity line.
  for (const g of groups) {
    const b = groupBatch(g, sel);
    if (b < 1 || b > maxBatch) continue;
    const cx = x(b), cy = y(gbNumber(g.capacity));
    svg.append(svgEl('circle', { cx, cy, r: 3.5, class: 'fit-dot' }, svgEl('title', null, `${bytes(g.capacity)}: largest ${modeLabel(sel)} batch ${b}`)),
      svgEl('text', { x: cx - 4, y: cy - 6, 'text-anchor': 'end', class: 'dot-label' }, String(b)));
  }
  const legend = el('ul', { className: 'legend', 'aria-label': 'Modes' }, modes.map((m) => el('li', { className: m === sel ? 'selected' : '' },
    svgEl('svg', { viewBox: '0 0 28 8', width: 28, height: 8, 'aria-hidden': 'true' },
      svgEl('line', { x1: 0, x2: 28, y1: 4, y2: 4, stroke: MODE_STROKES[m][0], 'stroke-width': 2.5, 'stroke-dasharray': MODE_STROKES[m][1] || null })),
    `${modeLabel(m)} (${int(curves[m].seq)} tokens)`)));
  return { svg, legend };
}

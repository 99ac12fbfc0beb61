// web/src/fit.js: the "make it fit" panel: the core's fit section (options fit_card and
// fit_cards) as a table of changes, each re-planned by the core, with the bytes it saves, whether
// it fits alone and what it costs; the best combination; the longest sequence per card. Not a
// planner: every number is the report's. fitLine() is the widget's one-line summary.

import { DASH, bytes, el, int, list, modeLabel, text } from './format.js';
import { num, rowHead, section, table, td } from './render.js';

export function fitChangeText(c) {
  if (!c) return '';
  return `${text(c.title)} (saves ${bytes(c.saved_bytes)})`;
}

// "to fit on A10G: QLoRA (4-bit NF4 base) (saves 12.3 GB), or …"; '' without a fit section.
export function fitLine(r, shortName) {
  const f = r && r.fit;
  if (!f || typeof f !== 'object') return '';
  const name = (shortName || ((x) => x))(f.card_name || f.card);
  if (f.fits) return `fits on ${name} as planned`;
  const alone = list(f.changes).filter((c) => c.available && c.fits).sort((a, b) => (a.time_factor - b.time_factor) || (b.saved_bytes - a.saved_bytes));
  if (alone.length) return `to fit on ${name}: ${alone.slice(0, 2).map(fitChangeText).join(', or ')}`;
  if (f.best) return `to fit on ${name}: ${list(f.best.ids).join(' + ')} together`;
  return `does not fit on ${name} with any change listed`;
}

export function fitSection(r) {
  const f = r.fit;
  if (!f || typeof f !== 'object') return null;
  const rows = list(f.changes).map((c) => el('tr', { className: c.available === false ? 'muted' : c.fits ? 'fits' : '', dataset: { change: c.id } },
    rowHead(text(c.title)),
    c.available === false ? [num(DASH), num(DASH), td('not modelled'), num(DASH)]
      : [num(bytes(c.reserved_bytes)), num(bytes(c.saved_bytes)),
        td(c.fits ? (c.cards > 1 ? `yes, on ${int(c.cards)} cards` : 'yes') : (c.cards > 1 ? `no (needs ${int(c.cards)} cards)` : 'no')),
        num(`×${Number(c.time_factor).toFixed(2)}`)],
    td(el('span', null, text(c.cost), c.source ? el('small', { className: 'muted' }, ` ${text(c.source)}`) : null))));
  const best = f.best ? el('p', { id: 'fit-best' }, 'No single change fits; together: ', el('strong', null, list(f.best.ids).join(' + ')),
    ` (${bytes(f.best.reserved_bytes)} per card, step FLOPs ×${Number(f.best.time_factor).toFixed(2)}).`) : null;
  const names = Object.fromEntries(list(r.cards).map((c) => [c.id, c.name]));
  const seqRows = list(f.longest_seq).map((s) => el('tr', null, rowHead(text(names[s.card] || s.card)), num(s.longest_seq > 0 ? int(s.longest_seq) : 'none')));
  return section('fit', `Make it fit: ${text(f.card_name || f.card)}${f.cards > 1 ? ` × ${int(f.cards)}` : ''}`,
    el('p', { id: 'fit-summary' }, `The requested plan (${modeLabel(f.mode)}, batch ${int(f.batch)}, ${int(f.seq)} tokens) reserves ${bytes(f.reserved_bytes)} per card; the card holds ${bytes(f.capacity_bytes)}: `,
      el('strong', null, f.fits ? 'it fits.' : 'it does not fit.'), ' Each change is re-planned by the core.'),
    table(null, ['Change', '#Reserved', '#Saves', 'Fits alone', '#Step FLOPs', 'Cost and caveats'], rows, 'fit'),
    best,
    table(`Longest sequence at batch ${int(f.batch)} on each card`, ['Card', '#Tokens'], seqRows, 'fit-seq'));
}

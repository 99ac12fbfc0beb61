// web/src/fit-cell.js: one card × mode cell of the card table, as text: the core's largest batch
// ("batch 4 (2 with margin)"), its borderline flag ("batch 1, borderline"), the cut across cards
// ("3 cards, pipeline cut: 10 + 11 + 11 blocks") or "does not fit". One pure function for the
// page's card table (web/src/render.js), the compare view (web/src/compare.js) and the widget
// (web/src/widget.js, the `short` form); the CSV export writes the raw fields instead. Not a
// planner: it reads card.max_batch, safe_batch, borderline and split of the report.

import { bytes, int, isNum, list, text } from './format.js';

const STRATEGY_LABELS = { pipeline: 'pipeline cut', zero1: 'ZeRO-1', zero2: 'ZeRO-2', zero3: 'ZeRO-3', tensor: 'tensor parallel', single: 'one card' };
export const strategyLabel = (s) => STRATEGY_LABELS[s] || text(s);

// A pipeline cut's blocks per stage, from the report's runs ([[blocks, stages], ...]): [10, 11, 11].
export function stageBlocks(split) {
  const out = [];
  for (const r of list((split || {}).stage_runs)) for (let i = 0; i < r[1]; i++) out.push(r[0]);
  return out;
}

// The stages in words, as the Markdown writes them: each listed up to 12 stages ("10 + 11 + 11"),
// the runs above that ("1 × 1000 + 2 × 7": 1,000 stages of 1 block, then 7 of 2).
export function stageText(split) {
  const runs = list((split || {}).stage_runs);
  if (runs.reduce((n, r) => n + r[1], 0) <= 12) return stageBlocks(split).join(' + ');
  return runs.map(([blocks, n]) => (n > 1 ? `${blocks} × ${n}` : `${blocks}`)).join(' + ');
}

// fitCell(card, mode) → {kind: 'fits'|'borderline'|'split'|'none', text (the whole cell in words),
// main and sub (the page's two lines), title (its tooltip), short and shortTitle (the widget's)}.
export function fitCell(card, mode) {
  const n = (card.max_batch || {})[mode];
  const safe = (card.safe_batch || {})[mode];
  const split = (card.split || {})[mode];
  if (isNum(n) && n > 0) {
    if ((card.borderline || {})[mode]) {
      return { kind: 'borderline', text: `batch ${int(n)}, borderline`, main: int(n), sub: 'borderline', title: 'Holds batch 1 on the estimate but not with the error margin: measure one step before reserving it.',
        short: `${int(n)} ⚠`, shortTitle: 'borderline: holds batch 1 only within the estimate\'s error' };
    }
    const margin = isNum(safe) && safe < n;
    return { kind: 'fits', text: `batch ${int(n)}${margin ? ` (${int(safe)} with margin)` : ''}`, main: int(n), sub: margin ? `${int(safe)} with margin` : '',
      title: margin ? `Largest batch on the estimate ${int(n)}; ${int(safe)} still fits at the estimate × the borderline factor.` : '', short: int(n), shortTitle: '' };
  }
  if (split && isNum(split.cards)) {
    const stages = stageBlocks(split);
    const all = stageText(split);
    const cut = !stages.length ? '' : stages.length <= 6 ? `: ${all} blocks`
      : `: ${Math.min(...stages)}–${Math.max(...stages)} blocks per card`;
    const alts = list(split.alternatives).filter((a) => a.strategy !== split.strategy).map((a) => `${strategyLabel(a.strategy)} on ${a.cards}`);
    const title = [`${split.cards} cards, ${strategyLabel(split.strategy)}${all ? `: ${all} blocks` : ''}; fullest card holds ${bytes(split.per_card_bytes)}.`,
      alts.length ? `Also fits: ${alts.join(', ')}.` : '',
      split.cheapest && split.cheapest !== split.strategy ? `Fewest card-hours: ${strategyLabel(split.cheapest)}.` : ''].filter(Boolean).join(' ');
    return { kind: 'split', text: `${split.cards} cards, ${strategyLabel(split.strategy)}${cut}`, main: `${split.cards} cards`, sub: `${strategyLabel(split.strategy)}${cut}`, title,
      short: `${split.cards} cards`, shortTitle: `${split.cards} cards, ${split.strategy}${all ? `: ${all} blocks` : ''}` };
  }
  return { kind: 'none', text: 'does not fit', main: 'does not fit', sub: '', title: 'Batch 1 does not fit one card, and no cut across cards of this type holds it.',
    short: '—', shortTitle: 'does not fit' };
}

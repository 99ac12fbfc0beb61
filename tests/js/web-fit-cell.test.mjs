// tests/js/web-fit-cell.test.mjs: the card-table cell (web/src/fit-cell.js), the one function the
// page's table, the compare view and the widget print: each kind of cell from the report's card
// fields, and the same text for a real report's cards as the core's own numbers say.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { importWeb } from './web-loader.mjs';

const { fitCell, stageBlocks, stageText, strategyLabel } = await importWeb('fit-cell.js');

test('a batch that fits, with and without a smaller batch at the margin', () => {
  const c = { max_batch: { full: 12, lora: 4 }, safe_batch: { full: 9, lora: 4 } };
  const full = fitCell(c, 'full');
  assert.deepEqual([full.kind, full.text, full.main, full.sub, full.short], ['fits', 'batch 12 (9 with margin)', '12', '9 with margin', '12']);
  assert.match(full.title, /Largest batch on the estimate 12; 9 still fits/);
  const lora = fitCell(c, 'lora');
  assert.deepEqual([lora.text, lora.sub, lora.title, lora.shortTitle], ['batch 4', '', '', '']);
  assert.equal(fitCell({ max_batch: { full: 1234 } }, 'full').text, 'batch 1,234');
});

test('borderline: batch 1 only on the estimate', () => {
  const f = fitCell({ max_batch: { serve: 1 }, borderline: { serve: true } }, 'serve');
  assert.deepEqual([f.kind, f.text, f.main, f.sub, f.short], ['borderline', 'batch 1, borderline', '1', 'borderline', '1 ⚠']);
  assert.match(f.shortTitle, /^borderline/);
});

test('a cut across cards: strategy, stages (or their range), alternatives and the cheapest in the tooltip', () => {
  const split = { cards: 3, strategy: 'pipeline', stage_runs: [[10, 1], [11, 2]], per_card_bytes: 70e9, cheapest: 'zero3',
    alternatives: [{ strategy: 'pipeline', cards: 3 }, { strategy: 'zero3', cards: 4 }] };
  const f = fitCell({ max_batch: { full: 0 }, split: { full: split } }, 'full');
  assert.deepEqual([f.kind, f.text, f.main, f.sub, f.short], ['split', '3 cards, pipeline cut: 10 + 11 + 11 blocks', '3 cards', 'pipeline cut: 10 + 11 + 11 blocks', '3 cards']);
  assert.equal(f.title, '3 cards, pipeline cut: 10 + 11 + 11 blocks; fullest card holds 70.0 GB. Also fits: ZeRO-3 on 4. Fewest card-hours: ZeRO-3.');
  assert.equal(f.shortTitle, '3 cards, pipeline: 10 + 11 + 11 blocks');
  const many = fitCell({ split: { full: { cards: 8, strategy: 'pipeline', stage_runs: [[7, 1], [8, 6], [6, 1]] } } }, 'full');
  assert.equal(many.text, '8 cards, pipeline cut: 6–8 blocks per card');
  assert.equal(fitCell({ split: { full: { cards: 2, strategy: 'zero3' } } }, 'full').text, '2 cards, ZeRO-3');
  assert.equal(strategyLabel('tensor'), 'tensor parallel');
  const deep = { cards: 1011, strategy: 'pipeline', stage_runs: [[1, 1000], [2, 7], [3, 4]] };
  assert.equal(stageBlocks(deep).length, 1011);
  assert.deepEqual(stageBlocks(deep).slice(998, 1002), [1, 1, 2, 2]);
  assert.equal(stageText(deep), '1 × 1000 + 2 × 7 + 3 × 4');
  assert.equal(fitCell({ split: { full: deep } }, 'full').title, '1011 cards, pipeline cut: 1 × 1000 + 2 × 7 + 3 × 4 blocks; fullest card holds —.');
});

test('does not fit', () => {
  const f = fitCell({ max_batch: { full: 0 } }, 'full');
  assert.deepEqual([f.kind, f.text, f.short, f.shortTitle], ['none', 'does not fit', '—', 'does not fit']);
});

test('a real report: every cell follows the card\'s max_batch, borderline and split', async () => {
  const root = new URL('../../', import.meta.url);
  const api = await createRequire(import.meta.url)(new URL('dist/cardfit.js', root).pathname).createCardfit();
  const r = api.plan(readFileSync(new URL('web/examples/gemma-2-9b-it.json', root), 'utf8'), {});
  assert.ok(r.ok);
  const kinds = new Set();
  for (const card of r.cards) {
    for (const mode of ['full', 'lora', 'qlora', 'serve']) {
      const f = fitCell(card, mode);
      kinds.add(f.kind);
      const n = card.max_batch[mode];
      if (n > 0) assert.equal(f.main, n.toLocaleString('en-US'), `${card.id} ${mode}`);
      else if (card.split && card.split[mode]) assert.equal(f.main, `${card.split[mode].cards} cards`, `${card.id} ${mode}`);
      else assert.equal(f.kind, 'none');
      assert.equal(f.kind === 'borderline', n > 0 && !!(card.borderline || {})[mode], `${card.id} ${mode}`);
    }
  }
  assert.ok(kinds.has('fits') && kinds.has('split'), [...kinds].join(' '));  // gemma-2-9b's full fine-tune is cut across cards
});

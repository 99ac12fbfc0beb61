// tests/js/web-format.test.mjs: the page's formatting (web/src/format.js) on its own: bytes in
// GB (10^9) or GiB (2^30) with three significant figures, one unit per column, exact integers
// with separators, percentages, money and hours, short card names that stay distinct, and the
// line of a JSON path in the text as typed (for errors that name a field).
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { importWeb } from './web-loader.mjs';

const f = await importWeb('format.js');
afterEach(() => { f.units.binary = false; });

test('bytes: GB by default, GiB with the switch; MB/MiB below one big unit; a dash for no number', () => {
  assert.equal(f.bytes(85_899_345_920), '85.9 GB');      // an "80GB" card: 80 GiB
  assert.equal(f.bytes(1_500_000_000), '1.50 GB');
  assert.equal(f.bytes(123_456_789_012), '123 GB');
  assert.equal(f.bytes(58_700_000), '58.7 MB');
  assert.equal(f.bytes(0), '0.00 GB');
  assert.equal(f.bytes(undefined), '—');
  assert.equal(f.unitName(), 'GB');
  f.units.binary = true;
  assert.equal(f.bytes(85_899_345_920), '80.0 GiB');
  assert.equal(f.bytes(3 * 2 ** 20), '3.00 MiB');
  assert.equal(f.unitName(), 'GiB');
  assert.equal(f.gbNumber(2 ** 31), 2);
});

test('a column of bytes keeps one unit: the big one once any value reaches it', () => {
  const col = f.bytesColumn([58_700_000, 2_000_000_000]);
  assert.deepEqual([col(58_700_000), col(2_000_000_000), col(0)], ['0.06 GB', '2.00 GB', '0.00 GB']);
  const small = f.bytesColumn([58_700_000, 1_000]);
  assert.deepEqual([small(58_700_000), small(0), small(null)], ['58.7 MB', '0 MB', '—']);
});

test('integers, percentages, dollars, hours and SI counts', () => {
  assert.equal(f.int(124439808), '124,439,808');
  assert.equal(f.int(999), '999');
  assert.equal(f.int(-1234567), '-1,234,567');
  assert.equal(f.int(12.9), '12');
  assert.equal(f.int('12'), '—');
  assert.equal(f.percent(1, 8), '12.5%');
  assert.equal(f.percent(2, 3), '66.7%');
  assert.equal(f.percent(5, 0), '—');
  assert.equal(f.usd(2.5), '$2.50');
  assert.equal(f.usd(12345.6), '$12,346');
  assert.equal(f.usd(0), '—');
  assert.equal(f.hours(3.14159), '3.14');
  assert.equal(f.hours(123.4), '123');
  assert.equal(f.si(2.45e13), '24.5 T');
  assert.equal(f.si(512), '512');
});

test('card names: short, and distinct where two share a GPU', () => {
  const cards = [{ id: 'p', name: 'NVIDIA H100 80GB PCIe' }, { id: 's', name: 'NVIDIA H100 80GB SXM5' },
    { id: 'a4', name: 'NVIDIA A100 40GB' }, { id: 'a8', name: 'NVIDIA A100 80GB' }, { id: 'g', name: 'NVIDIA A10G 24GB (AWS)' }];
  const name = f.cardNames(cards);
  assert.deepEqual(cards.map(name), ['H100 PCIe', 'H100 SXM5', 'A100 40GB', 'A100 80GB', 'A10G']);
  assert.equal(f.shortCard('AMD Instinct MI300X 192GB'), 'MI300X');
});

test('line of a JSON path: nested keys, arrays, escaped quotes, a key that only looks alike', () => {
  const src = [
    '{',
    '  "model_type": "llava",',
    '  "note": "a \\"text_config\\": {",',
    '  "vision_config": {"hidden_size": 1024},',
    '  "layers": [{"hidden_size": 1}, 2],',
    '  "text_config": {',
    '    "hidden_size": 4096,',
    '    "rope_scaling": {',
    '      "factor": 8',
    '    }',
    '  }',
    '}'].join('\n');
  assert.equal(f.lineOfPath(src, '$.model_type'), 2);
  assert.equal(f.lineOfPath(src, '$.vision_config.hidden_size'), 4);
  assert.equal(f.lineOfPath(src, '$.text_config'), 6);
  assert.equal(f.lineOfPath(src, '$.text_config.hidden_size'), 7);
  assert.equal(f.lineOfPath(src, 'text_config.rope_scaling.factor'), 9);
  assert.equal(f.lineOfPath(src, '$.hidden_size'), 0);     // only nested ones exist
  assert.equal(f.lineOfPath(src, '$.missing'), 0);
  assert.equal(f.lineOfPath(src, '$'), 0);
});

// tests/js/web-changes.test.mjs: the config diff (web/src/changes.js) on its own: nested fields by
// JSON path, added and removed fields, arrays compared whole, what is not a JSON object refused;
// one field of B applied to A (or removed from it) for the "this field alone" what-if; the
// measures that moved between two reports. (tests/js/changes.test.mjs runs it with the core.)
import { test } from 'node:test';
import assert from 'node:assert/strict';

const { configDiff, withField, measureDeltas } = await import(new URL('../../web/src/changes.js', import.meta.url).href);

test('the fields that differ, by path, with which side has them', () => {
  const a = '{"n_layer": 12, "rope": {"theta": 10000, "type": "linear"}, "ids": [1, 2], "same": {"x": 1}, "gone": true}';
  const b = '{"n_layer": 24, "rope": {"theta": 10000, "type": "yarn"}, "ids": [1, 2, 3], "same": {"x": 1}, "new": {}}';
  const d = configDiff(a, b);
  assert.deepEqual(d.diffs.map((x) => x.path).sort(), ['$.gone', '$.ids', '$.n_layer', '$.new', '$.rope.type']);
  const by = Object.fromEntries(d.diffs.map((x) => [x.path, x]));
  assert.deepEqual([by['$.n_layer'].a, by['$.n_layer'].b], [12, 24]);
  assert.deepEqual([by['$.gone'].inA, by['$.gone'].inB], [true, false]);
  assert.deepEqual([by['$.new'].inA, by['$.new'].inB, by['$.new'].b], [false, true, {}]);
  assert.deepEqual(by['$.ids'].b, [1, 2, 3]);
  assert.deepEqual(configDiff(a, a).diffs, []);
});

test('not JSON, or not an object: no diff (null)', () => {
  assert.equal(configDiff('{"a": 1', '{}'), null);
  assert.equal(configDiff('{}', '7'), null);
  assert.equal(configDiff('null', '{}'), null);
});

test('one field of B applied to A, or removed where B has none; A itself untouched', () => {
  const d = configDiff('{"a": 1, "t": {"h": 2, "k": 3}}', '{"a": 1, "t": {"h": 5}, "n": {"m": 1}}');
  const by = Object.fromEntries(d.diffs.map((x) => [x.path, x]));
  assert.deepEqual(JSON.parse(withField(d.a, by['$.t.h'])), { a: 1, t: { h: 5, k: 3 } });
  assert.deepEqual(JSON.parse(withField(d.a, by['$.t.k'])), { a: 1, t: { h: 2 } });
  assert.deepEqual(JSON.parse(withField(d.a, by['$.n.m'])), { a: 1, t: { h: 2, k: 3 }, n: { m: 1 } });
  assert.deepEqual(d.a, { a: 1, t: { h: 2, k: 3 } });
});

test('measures that moved between two reports, and only those', () => {
  const report = (total, full, usd) => ({ ok: true, params: { total }, modes: { full: { reserved_bytes: full } }, plan: { reserved_bytes: full },
    cost: { cheapest: { usd } } });
  const moved = measureDeltas(report(100, 5e9, 10), report(150, 5e9, 12.5));
  assert.deepEqual(moved.map((m) => [m.key, m.delta]), [['parameters', 50], ['cost.cheapest', 2.5]]);
  assert.deepEqual(measureDeltas(report(1, 2, 3), { ok: false }), []);
});

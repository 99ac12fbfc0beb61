// tests/js/web-store.test.mjs: the page's store (web/src/store.js): a subscriber runs once per
// change of the slices it names and not for others, sees the values before the change, a set that
// changes nothing tells no one, the state cannot be changed behind set's back, and a render that
// sets state does not make others run twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { importWeb } from './web-loader.mjs';

const { createStore } = await importWeb('store.js');

test('subscribers run for their own slices only, with the previous values', () => {
  const store = createStore({ view: 'plan', units: 'gb', results: { a: null, b: null } });
  const calls = [];
  store.subscribe(['results.a', 'units'], (s, prev) => calls.push(['plan', s.results.a, prev['results.a'], prev.units]));
  store.subscribe(['results.b'], (s) => calls.push(['b', s.results.b]));
  store.subscribe(['view'], (s) => calls.push(['view', s.view]));
  store.set({ results: { ...store.get().results, a: 1 } });
  store.set({ units: 'gib' });
  store.set({ results: { ...store.get().results, b: 2 } });
  store.set({ view: 'plan' });                      // the same value: nobody
  store.set({ results: { ...store.get().results } }); // a new object, same slices: nobody
  assert.deepEqual(calls, [['plan', 1, null, 'gb'], ['plan', 1, 1, 'gb'], ['b', 2]]);
});

test('the state is frozen and set merges top-level keys', () => {
  const store = createStore({ a: 1, b: 2 });
  assert.throws(() => { 'use strict'; store.get().a = 5; }, TypeError);
  store.set({ b: 3 });
  assert.deepEqual(store.get(), { a: 1, b: 3 });
  store.set((s) => ({ a: s.a + s.b }));
  assert.deepEqual(store.get(), { a: 4, b: 3 });
});

test('a subscriber that sets state: each other subscriber runs once, with the final state', () => {
  const store = createStore({ x: 0, y: 0 });
  const seen = [];
  store.subscribe(['x'], (s) => { if (s.x === 1) store.set({ y: 10 }); });
  store.subscribe(['x', 'y'], (s) => seen.push([s.x, s.y]));
  store.set({ x: 1 });
  assert.deepEqual(seen, [[1, 10]]);
});

test('unsubscribe stops the calls', () => {
  const store = createStore({ x: 0 });
  let n = 0;
  const off = store.subscribe(['x'], () => { n++; });
  store.set({ x: 1 });
  off();
  store.set({ x: 2 });
  assert.equal(n, 1);
});

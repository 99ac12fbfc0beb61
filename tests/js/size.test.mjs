// tests/js/size.test.mjs: the size budget of the shipped files (gzipped, as served). Not a speed test.
// Raise a budget only on purpose, with the reason in the commit: the page loads all of it at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const budgets = { 'dist/cardfit.js': 730_000, 'dist/index.html': 800_000 }; // bytes, gzip -9
for (const [file, budget] of Object.entries(budgets)) {
  test(`${file} stays under ${budget / 1000} kB gzipped`, () => {
    const size = gzipSync(readFileSync(new URL(`../../${file}`, import.meta.url)), { level: 9 }).length;
    assert.ok(size <= budget, `${file} is ${size} bytes gzipped, over its budget of ${budget}`);
  });
}

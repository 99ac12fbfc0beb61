// tests/browser/input.test.mjs: files into the page: a config.json chosen with the file picker, a
// model.safetensors dropped on the drop zone (only its 8-byte length and JSON header may be read,
// never the weights behind them: every Blob read is recorded), and a model.safetensors.index.json.
// The core reconciles the traced count with the checkpoint; the page shows it. Offline throughout.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, context, openPage, rerendered, waitForText, readText, safetensorsFixture, indexFixture, T } from './helpers.mjs';

let browser, ctx, page, fixture;

before(async () => {
  browser = await launch();
  ctx = await context(browser);
  // Record every read of file contents: Blob.slice ranges and whole-blob reads.
  await ctx.addInitScript(() => {
    const reads = (window.__reads = []);
    const slice = Blob.prototype.slice;
    Blob.prototype.slice = function (start, end, type) {
      const part = slice.call(this, start, end, type);
      part.__range = [start ?? 0, end ?? this.size, this.size, this.name || (this.__range ? 'slice' : 'blob')];
      return part;
    };
    for (const m of ['arrayBuffer', 'text', 'stream']) {
      const orig = Blob.prototype[m];
      Blob.prototype[m] = function (...args) {
        reads.push({ method: m, range: this.__range || [0, this.size, this.size, this.name || 'blob'] });
        return orig.apply(this, args);
      };
    }
  });
  page = await openPage(ctx);
  fixture = await safetensorsFixture({ weightBytes: 1 << 20 });
}, T);

after(async () => { await browser?.close(); });

async function drop(selector, files) {
  const dt = await page.evaluateHandle((list) => {
    const d = new DataTransfer();
    for (const f of list) {
      const bin = atob(f.b64);
      const bytesArr = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytesArr[i] = bin.charCodeAt(i);
      d.items.add(new File([bytesArr], f.name, { type: f.type || '' }));
    }
    return d;
  }, files.map((f) => ({ name: f.name, type: f.type, b64: f.buffer.toString('base64') })));
  await page.locator(selector).dispatchEvent('drop', { dataTransfer: dt });
}

test('a config.json chosen with the file picker is planned', T, async () => {
  await rerendered(page, () => page.locator('#file').setInputFiles({ name: 'config.json', mimeType: 'application/json', buffer: Buffer.from(readText('web/examples/Qwen2.5-7B.json')) }));
  await waitForText(page, '#params-total', '7,615,616,512');
  assert.match(await page.locator('#hub-status').textContent(), /config\.json: config/);
});

test('a dropped model.safetensors: only its header is read, and the count is reconciled with it', T, async () => {
  await rerendered(page, () => page.locator('#example').selectOption({ label: 'openai-community/gpt2' }));
  await page.evaluate(() => { window.__reads.length = 0; });
  await rerendered(page, () => drop('#drop', [{ name: 'model.safetensors', buffer: fixture.file }]));
  await waitForText(page, '#checkpoint-scalars', '137,022,720');
  assert.equal(await page.locator('#reconciliation').textContent(), '137,022,720 = 124,439,808 parameters + 12,582,912 buffers + 0 unexplained');
  assert.match(await page.locator('#count').textContent(), /read from the model\.safetensors header/);
  assert.match(await page.locator('#checkpoint').textContent(), /model\.safetensors \(header/);
  const reads = (await page.evaluate(() => window.__reads)).filter((r) => r.range[3] === 'model.safetensors');
  assert.ok(reads.length >= 2, JSON.stringify(reads));
  const end = 8 + fixture.headerLength;
  for (const r of reads) {
    assert.ok(r.range[1] <= end, `read ${JSON.stringify(r)} goes past the header (ends at byte ${end} of ${fixture.file.length})`);
  }
  assert.deepEqual(reads.map((r) => r.range.slice(0, 2)), [[0, 8], [8, end]]);
});

test('a safetensors header that disagrees with the config lists what is missing and extra', T, async () => {
  const header = JSON.parse(fixture.headerText);
  header['transformer.h.0.attn.extra_bias'] = { dtype: 'F32', shape: [7], data_offsets: [0, 28] };
  delete header['transformer.ln_f.weight'];
  const text = JSON.stringify(header);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(Buffer.byteLength(text)));
  await rerendered(page, () => drop('#drop', [{ name: 'model.safetensors', buffer: Buffer.concat([len, Buffer.from(text)]) }]));
  await page.locator('#count details summary', { hasText: 'In the file but not traced (1)' }).click();
  assert.match(await page.locator('#count').textContent(), /transformer\.h\.0\.attn\.extra_bias/);
  assert.match(await page.locator('#count').textContent(), /Traced but not in the file \(1\)/);
  assert.match(await page.locator('#reconciliation').textContent(), /^137,021,959 = /);
});

test('a dropped model.safetensors.index.json reconciles from its total_size', T, async () => {
  const index = indexFixture(fixture.headerText);
  await rerendered(page, () => drop('#drop', [{ name: 'model.safetensors.index.json', type: 'application/json', buffer: Buffer.from(index) }]));
  // The index names the tensors; the example's published total (still set) is the count.
  assert.match(await page.locator('#count').textContent(), /the stated total \(checkpoint_total.*tensor names from model\.safetensors\.index\.json/);
  assert.match(await page.locator('#checkpoint').textContent(), /model\.safetensors\.index\.json/);
  // Removing the index falls back to the example's published total; removing that too leaves the
  // count unreconciled.
  await rerendered(page, () => page.locator('#checkpoint .chip-x').first().click());
  assert.match(await page.locator('#count').textContent(), /the stated checkpoint total/);
  await rerendered(page, () => page.locator('#checkpoint .chip-x').first().click());
  assert.equal(await page.locator('#checkpoint-scalars').count(), 0);
  assert.match(await page.locator('#count').textContent(), /Not given\. Drop the model\.safetensors/);
});

test('config and header dropped together; a file that is not safetensors is refused with a reason', T, async () => {
  await rerendered(page, () => drop('#drop', [
    { name: 'config.json', type: 'application/json', buffer: Buffer.from(readText('web/examples/gpt2.json')) },
    { name: 'model.safetensors', buffer: fixture.file },
  ]));
  await waitForText(page, '#checkpoint-scalars', '137,022,720');
  const junk = Buffer.alloc(16, 0xff);
  await drop('#drop', [{ name: 'model.safetensors', buffer: junk }]);
  await page.waitForFunction(() => /Not a safetensors file/.test(document.querySelector('#hub-status').textContent));
  assert.deepEqual(ctx.refused, []);
  assert.deepEqual(ctx.errors, []);
});

// tests/browser/fit.test.mjs: the "make it fit" panel (web/src/fit.js) and "only the cards I have"
// in the page: gemma-2-9b-it LoRA on an A10G lists the core's changes, each with its saving; the
// cards filter and the fit card travel in the share link and come back in a fresh page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, context, openPage, rerendered, waitForText, pageUrl, T } from './helpers.mjs';

let browser, ctx, page;
before(async () => {
  browser = await launch();
  ctx = await context(browser);
  page = await openPage(ctx);
}, T);
after(async () => { await browser?.close(); });

test('the fit panel: gemma-2-9b-it LoRA on an A10G, changes re-planned by the core', T, async () => {
  await waitForText(page, '#params-total', '124,439,808');
  await rerendered(page, () => page.locator('#example').selectOption({ label: 'google/gemma-2-9b-it' }));
  await waitForText(page, '#params-total', '9,241,705,984');
  await rerendered(page, () => page.locator('input[name=mode][value=lora]').check());
  assert.equal(await page.locator('#fit').count(), 0, 'no fit panel until a card is chosen');
  await rerendered(page, () => page.locator('#opt-fit_card').selectOption('a10g'));
  await page.locator('#fit').waitFor();
  assert.match(await page.locator('#fit-h').textContent(), /Make it fit: NVIDIA A10G/);
  assert.match(await page.locator('#fit-summary').textContent(), /does not fit/);
  for (const id of ['grad_ckpt', 'qlora', 'zero3']) {
    const row = page.locator(`#fit tr[data-change=${id}]`);
    assert.equal(await row.count(), 1, id);
    assert.match(await row.locator('td').nth(1).textContent(), /\d/, `${id} saves bytes`);
  }
  assert.ok(await page.locator('#fit table.fit-seq tbody tr').count() >= 10, 'the longest sequence on each card');
});

test('only the cards I have: the table keeps them, and the share link carries the filter and the fit card', T, async () => {
  await rerendered(page, () => page.locator('#opt-cards').fill('t4,rtx3090,a10g'));
  await page.waitForFunction(() => document.querySelectorAll('#cards table.cards tbody tr').length === 3);
  await page.waitForFunction(() => /cards=t4%2Crtx3090%2Ca10g|cards=t4,rtx3090,a10g/.test(location.hash));
  const link = await page.evaluate(() => location.href);
  assert.match(link, /fit_card=a10g/);
  const fresh = await openPage(ctx, link);
  await waitForText(fresh, '#params-total', '9,241,705,984');
  assert.equal(await fresh.locator('#opt-cards').inputValue(), 't4,rtx3090,a10g');
  assert.equal(await fresh.locator('#cards table.cards tbody tr').count(), 3);
  await fresh.locator('#fit').waitFor();
  assert.match(await fresh.locator('#fit-h').textContent(), /A10G/);
  await fresh.close();
  assert.deepEqual(ctx.refused, []);
  assert.ok(pageUrl);
});

// tests/browser/examples-tier1.test.mjs: the 2026 tier-1 examples in the page's picker (web/examples,
// issue 10): each one picked plans in the page and shows its exact total (examples.json params_total,
// the golden file's hand-derived or published count), formatted as the page writes it.
import { test, before, after } from 'node:test';
import { launch, context, openPage, rerendered, waitForText, examples, T } from './helpers.mjs';

const tier1 = ['Qwen/Qwen3.5-9B', 'Qwen/Qwen3.5-35B-A3B', 'google/gemma-4-E2B-it', 'google/gemma-4-12B',
  'Qwen/Qwen2.5-VL-7B-Instruct', 'openai/whisper-large-v3-turbo'];

let browser, ctx, page;
before(async () => {
  browser = await launch();
  ctx = await context(browser);
  page = await openPage(ctx);
}, T);
after(async () => { await browser?.close(); });

test('each tier-1 example plans in the page with its exact parameter count', T, async () => {
  await waitForText(page, '#params-total', '124,439,808');
  for (const id of tier1) {
    const x = examples.find((e) => e.id === id);
    if (!x) throw new Error(`${id} is not in web/examples/examples.json`);
    await rerendered(page, () => page.locator('#example').selectOption({ label: id }));
    await waitForText(page, '#params-total', x.params_total.toLocaleString('en-US'));
  }
});

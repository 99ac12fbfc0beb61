// tests/browser/widget.test.mjs: dist/cardfit-widget.js on plain pages served from 127.0.0.1 (and
// the demo page from disk): <cardfit-plan> with its config inline, by URL and by hub id (against the
// mock hub), options as attributes (changing one re-plans), style isolation in a shadow root, no
// global left behind but the element, loading the script twice, errors shown in the element.
// Takes the widget's screenshot (see helpers.mjs screenshotDir).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, mkdirSync } from 'node:fs';
import { launch, context, readText, startServer, safetensorsFixture, root, T, screenshotDir, screenshotPath } from './helpers.mjs';

let browser, ctx, server;
const gpt2 = JSON.stringify(JSON.parse(readText('web/examples/gpt2.json')));
const qwen = readText('web/examples/Qwen2.5-3B.json');

const plainPage = (body) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>plain</title>
<style>table, td, th { border: 4px solid rgb(255, 0, 255) !important; color: rgb(255, 0, 255); } * { font-family: serif; }</style>
<script>window.__globalsBefore = Object.getOwnPropertyNames(window);</script></head><body>${body}</body></html>`;

before(async () => {
  const fixture = await safetensorsFixture();
  server = await startServer({
    dir: new URL('dist/', root),
    repos: { 'openai-community/gpt2': { files: { 'config.json': readText('web/examples/gpt2.json'), 'model.safetensors': fixture.file } } },
    pages: {
      '/qwen/config.json': qwen,
      '/widget.html': plainPage(`
<h1>A model card</h1>
<cardfit-plan id="inline" label="openai-community/gpt2"><script type="application/json">${gpt2}</script></cardfit-plan>
<cardfit-plan id="by-url" config-url="/qwen/config.json" mode="lora" lora-rank="8" seq="1024"></cardfit-plan>
<cardfit-plan id="by-hub" hub-id="openai-community/gpt2" hub="HUB"></cardfit-plan>
<cardfit-plan id="broken"><script type="application/json">{"model_type": "gpt2",</script></cardfit-plan>
<script src="/static/cardfit-widget.js"></script>
<script src="/static/cardfit-widget.js"></script>`),
    },
  });
  browser = await launch();
  ctx = await context(browser, { allow: [server.base], viewport: { width: 820, height: 900 } });
}, T);

after(async () => {
  await browser?.close();
  await server?.close();
});

const shadowText = (page, id, sel) => page.evaluate(([i, s]) => document.getElementById(i).shadowRoot.querySelector(s)?.textContent, [id, sel]);
const waitShadow = (page, id, sel, re) => page.waitForFunction(([i, s, r]) => new RegExp(r).test(document.getElementById(i)?.shadowRoot?.querySelector(s)?.textContent || ''), [id, sel, re.source], { timeout: 30_000 });

test('inline, by URL and by hub id; options as attributes; errors inside the element', T, async () => {
  // The hub attribute points the third widget at the mock hub instead of huggingface.co.
  server.pages['/widget.html'] = server.pages['/widget.html'].replace('hub="HUB"', `hub="${server.base}"`);
  const page = await ctx.newPage();
  await page.goto(`${server.base}/widget.html`);
  await waitShadow(page, 'inline', '.count', /^124,439,808$/);
  await waitShadow(page, 'by-url', '.count', /^3,085,938,688$/);
  await waitShadow(page, 'by-hub', '.count', /^124,439,808$/);
  await waitShadow(page, 'broken', '.error', /config\.json_syntax/);
  assert.match(await shadowText(page, 'by-url', '.headline'), /LoRA r=8 .*1,024 tokens/);
  assert.equal(await page.evaluate(() => document.getElementById('inline').shadowRoot.querySelectorAll('tbody tr').length), 15);

  // Style isolation both ways: the page's table rule does not reach the widget's table, and the
  // widget's styles do not reach the page.
  const border = await page.evaluate(() => getComputedStyle(document.getElementById('inline').shadowRoot.querySelector('td')).borderTopColor);
  assert.notEqual(border, 'rgb(255, 0, 255)');
  assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('h1')).fontFamily), 'serif');

  // Nothing global but the custom element; the script loaded twice did not throw.
  const added = await page.evaluate(() => Object.getOwnPropertyNames(window).filter((k) => k !== '__globalsBefore' && !window.__globalsBefore.includes(k)));
  assert.deepEqual(added, []);
  assert.equal(await page.evaluate(() => typeof customElements.get('cardfit-plan')), 'function');

  // An attribute change re-plans.
  await page.evaluate(() => document.getElementById('inline').setAttribute('mode', 'serve'));
  await page.evaluate(() => document.getElementById('inline').setAttribute('seq', '256'));
  await waitShadow(page, 'inline', '.headline', /256 tokens/);

  await page.evaluate(() => document.getElementById('inline').scrollIntoView());
  mkdirSync(screenshotDir, { recursive: true });
  const shotPath = screenshotPath('widget.png');
  await page.locator('#inline').screenshot({ path: shotPath });
  assert.ok(statSync(shotPath).size < 300_000);
  assert.deepEqual(ctx.errors, []);
  await page.close();
});

test('the demo page works from disk with the network off (inline examples)', T, async () => {
  const offline = await context(browser, { offline: true });
  const page = await offline.newPage();
  await page.goto(new URL('dist/widget-demo.html', root).href);
  await waitShadow(page, 'demo-gpt2', '.count', /^124,439,808$/);
  await waitShadow(page, 'demo-qwen', '.count', /^3,085,938,688$/);
  // The hub example needs the network: it says so inside its box.
  await page.waitForFunction(() => /could not be reached|offline/.test(document.querySelectorAll('cardfit-plan')[2].shadowRoot.textContent));
  const href = await page.evaluate(() => document.getElementById('demo-gpt2').shadowRoot.querySelector('footer a')?.getAttribute('href'));
  assert.match(href, /^index\.html#v1&a=[zj]\./, 'the widget links to the full page with the plan in the fragment');
  assert.deepEqual(offline.refused.filter((u) => !u.includes('huggingface.co')), []);
  await offline.close();
});

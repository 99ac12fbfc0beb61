// tests/browser/helpers.mjs: what the browser tests share: Debian's Chromium launched headless with
// no background traffic (never a downloaded browser), a context that refuses every request except
// file: and the loopback ports a test opts into, a small static server with real HTTP Range support
// (206 + Content-Range) that mimics the Hugging Face hub's URL layout, and the fixtures built from
// the shipped examples. Every wait is bounded. Not a test itself.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

export const root = new URL('../../', import.meta.url);
export const pageUrl = new URL('dist/index.html', root).href;
export const T = { timeout: 60_000 };
// Screenshots go to build-screenshots/ (ignored), so a test run changes no tracked file; with
// CARDFIT_UPDATE_SCREENSHOTS=1 they replace the README's pictures in docs/img/.
export const screenshotDir = new URL(process.env.CARDFIT_UPDATE_SCREENSHOTS === '1' ? 'docs/img/' : 'build-screenshots/', root);
export const screenshotPath = (name) => new URL(name, screenshotDir).pathname;
export const readText = (rel) => readFileSync(new URL(rel, root), 'utf8');
export const examples = JSON.parse(readText('web/examples/examples.json'));

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CARDFIT_CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic', '--disable-default-apps', '--disable-extensions'],
    timeout: 30_000,
  });
}

// A context that lets through file:, blob:, data: and the loopback origins in `allow` (e.g.
// 'http://127.0.0.1:4321'); everything else is aborted and recorded in ctx.refused.
export async function context(browser, { allow = [], offline = false, ...options } = {}) {
  const ctx = await browser.newContext({ viewport: { width: 1200, height: 820 }, colorScheme: 'light', acceptDownloads: true, ...options });
  ctx.setDefaultTimeout(15_000);
  ctx.refused = [];
  ctx.errors = [];
  await ctx.route('**', (route) => {
    const url = route.request().url();
    if (/^(file|blob|data):/.test(url) || allow.some((a) => url.startsWith(a))) return route.continue();
    ctx.refused.push(url);
    return route.abort('internetdisconnected');
  });
  if (offline) await ctx.setOffline(true);
  ctx.on('page', (p) => {
    p.on('pageerror', (e) => ctx.errors.push(`pageerror: ${e.message}`));
    p.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) ctx.errors.push(`console: ${m.text()}`); });
  });
  return ctx;
}

export async function openPage(ctx, url = pageUrl) {
  const page = await ctx.newPage();
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('html[data-ready=true]', { timeout: 30_000 });
  return page;
}

// Waits until the report has been rendered again after `action` (the page bumps
// #report[data-generation] on every render).
export async function rerendered(page, action, selector = '#report') {
  const before = await page.evaluate((s) => document.querySelector(s).dataset.generation || '0', selector);
  await action();
  await page.waitForFunction(([s, g]) => (document.querySelector(s).dataset.generation || '0') !== g, [selector, before]);
}

export const waitForText = (page, selector, want) => page.waitForFunction(
  ([s, w]) => document.querySelector(s)?.textContent === w, [selector, want]);

// ---------------------------------------------------------------------------------------------
// Fixtures: a safetensors file built from the core's own tensor list for gpt2 (names and shapes as
// in the published checkpoint, causal-mask buffers included), with a few bytes of fake weights.
let reportCache = null;
export async function gpt2Report() {
  if (reportCache) return reportCache;
  const require = createRequire(import.meta.url);
  const { createCardfit } = require(new URL('dist/cardfit.js', root).pathname);
  const api = await createCardfit();
  reportCache = api.plan(readText('web/examples/gpt2.json'), {});
  return reportCache;
}

export async function safetensorsFixture({ weightBytes = 4096 } = {}) {
  const r = await gpt2Report();
  const header = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const t of [...r.params.tensors.filter((x) => !x.tied), ...r.params.buffers]) {
    const n = t.count * 4;
    header[t.name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + n] };
    offset += n;
  }
  const headerText = JSON.stringify(header);
  const headerBytes = Buffer.from(headerText, 'utf8');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(headerBytes.length));
  // The real file would hold `offset` bytes of weights; a stand-in tail is enough to show the page
  // never reads past the header.
  return { headerText, headerLength: headerBytes.length, file: Buffer.concat([len, headerBytes, Buffer.alloc(weightBytes, 0xab)]) };
}

export function indexFixture(headerText) {
  const header = JSON.parse(headerText);
  const weightMap = {};
  let total = 0;
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    weightMap[name] = name.includes('.h.1') ? 'model-00002-of-00002.safetensors' : 'model-00001-of-00002.safetensors';
    total += t.data_offsets[1] - t.data_offsets[0];
  }
  return JSON.stringify({ metadata: { total_size: total }, weight_map: weightMap }, null, 2);
}

// ---------------------------------------------------------------------------------------------
// The mock hub (and static server): tests/mock-hub.mjs, shared with the CLI tests.
export { startServer } from '../mock-hub.mjs';

// WCAG contrast of each visible element matched by `selectors` against the nearest opaque
// background behind it: [{selector, ratio, fg, bg}] (computed in the page).
export function contrasts(page, selectors) {
  return page.evaluate((sels) => {
    const parse = (c) => { const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null; const v = m[1].split(',').map(Number); return { r: v[0], g: v[1], b: v[2], a: v.length > 3 ? v[3] : 1 }; };
    const lum = ({ r, g, b }) => { const f = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
    const bgOf = (e) => { for (let n = e; n; n = n.parentElement) { const c = parse(getComputedStyle(n).backgroundColor); if (c && c.a > 0.9) return c; } return parse(getComputedStyle(document.documentElement).backgroundColor) || { r: 255, g: 255, b: 255 }; };
    const out = [];
    for (const s of sels) {
      const e = [...document.querySelectorAll(s)].find((x) => x.offsetParent !== null);
      if (!e) { out.push({ selector: s, ratio: null }); continue; }
      const fg = parse(getComputedStyle(e).color), bg = bgOf(e);
      const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
      out.push({ selector: s, ratio: Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100, fg: getComputedStyle(e).color });
    }
    return out;
  }, selectors);
}

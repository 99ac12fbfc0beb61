// web/src/widget.js: the <cardfit-plan> custom element (dist/cardfit-widget.js). It takes a config
// inline (a child <script type="application/json">), by URL (config-url) or by hub id (hub-id),
// options as attributes (every option of the core's schema, its name with dashes: mode, seq,
// batch, lora-rank, ...),
// plans it with the wasm core in the page, and shows a compact view sized for a model card inside a
// shadow root (its styles cannot leak in or out). The script defines nothing global: the element
// registration is all it leaves, and loading it twice is harmless. Not a planner: it renders the
// core's report. Documented in docs/web.md ("The embed widget").

import createCardfit from 'cardfit:core';
import WIDGET_CSS from 'cardfit:widget-css';
import { MODES, bytes, cardNames, el, hours, int, isNum, list, modeLabel, modelName, planHeadline, shortCard, text, usd } from './format.js';
import { memoryBars, memoryParts } from './charts.js';
import { fitCell } from './fit-cell.js';
import { fitLine } from './fit.js';
import { HUB_DEFAULT, HUB_TIMEOUT_MS, SourceError, fetchFromHub } from './hub.js';
import { encodeState } from './state.js';
import { OPTION_ATTRS, SOURCE_ATTRS, attrOptions } from './widget-attrs.js';

const TAG = 'cardfit-plan';
let apiPromise = null;
const getApi = () => apiPromise || (apiPromise = createCardfit());

class CardfitPlan extends HTMLElement {
  static get observedAttributes() { return [...OPTION_ATTRS, ...SOURCE_ATTRS]; }

  constructor() {
    super();
    this._gen = 0;
    this._pending = false;
    const root = this.attachShadow({ mode: 'open' });
    const style = document.createElement('style');
    style.textContent = WIDGET_CSS;
    this._box = el('div', { className: 'cf', part: 'container', 'aria-live': 'polite' }, el('p', { className: 'muted' }, 'cardfit: planning…'));
    root.append(style, this._box);
    // An inline config edited later (by a page script) re-plans.
    this._observer = new MutationObserver(() => this._schedule());
  }

  connectedCallback() {
    this._observer.observe(this, { childList: true, subtree: true, characterData: true });
    this._schedule();
  }

  disconnectedCallback() { this._observer.disconnect(); }

  attributeChangedCallback() { if (this.isConnected) this._schedule(); }

  _schedule() {
    if (this._pending) return;
    this._pending = true;
    // While the document is still being parsed the inline config may not be there yet.
    const go = () => { this._pending = false; this._run(); };
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', go, { once: true });
    else queueMicrotask(go);
  }

  async _source() {
    const inline = this.querySelector('script[type="application/json"]');
    if (inline && inline.textContent.trim()) return { text: inline.textContent, label: this.getAttribute('label') || '' };
    const url = this.getAttribute('config-url');
    if (url) {
      let res;
      try {
        res = await fetch(new URL(url, document.baseURI), { credentials: 'omit', signal: AbortSignal.timeout(HUB_TIMEOUT_MS) });
      } catch (e) {
        throw new SourceError('network', `The config at ${url} could not be fetched (offline or blocked).`);
      }
      if (!res.ok) throw new SourceError('http', `The config at ${url} answered HTTP ${res.status}.`);
      return { text: await res.text(), label: this.getAttribute('label') || url.split('/').slice(-2, -1)[0] || url };
    }
    const hubId = this.getAttribute('hub-id');
    if (hubId) {
      const got = await fetchFromHub(this.getAttribute('hub') || HUB_DEFAULT, hubId);
      return { text: got.config, label: hubId, hubId, header: got.header, index: got.index };
    }
    throw new SourceError('none', 'No config: give <cardfit-plan> a hub-id, a config-url, or a child <script type="application/json"> with the config.');
  }

  async _run() {
    const gen = ++this._gen;
    try {
      const src = await this._source();
      const options = attrOptions(this);
      if (src.header) options.safetensors_header = src.header.text;
      else if (src.index) options.safetensors_index = src.index.text;
      const api = await getApi();
      if (gen !== this._gen) return;
      const r = api.plan(src.text, options);
      if (gen !== this._gen) return;
      if (r && r.ok) this._render(r, src, options);
      else this._error(r && r.error);
    } catch (e) {
      if (gen === this._gen) this._error({ code: e && e.code ? e.code : 'widget.failed', message: (e && e.message) || String(e) });
    }
  }

  _error(e) {
    const err = e || {};
    this._box.replaceChildren(el('p', { className: 'error' }, el('strong', null, 'cardfit: '), el('code', null, text(err.code)), ' ', text(err.message),
      err.path && err.path !== '$' ? ` (${err.path}${isNum(err.line) ? `, line ${err.line}` : ''})` : ''));
    this.dispatchEvent(new CustomEvent('cardfit-error', { detail: err }));
  }

  async _render(r, src, options) {
    const theme = this.getAttribute('theme');
    this._box.dataset.theme = theme === 'dark' || theme === 'light' ? theme : 'auto';
    const modes = r.modes || {};
    const rows = MODES.filter((m) => modes[m]).map((m) => ({ label: modeLabel(m), parts: memoryParts(modes[m]), total: modes[m].reserved_bytes }));
    const bars = memoryBars(rows, { idPrefix: `cf${this._gen}-bars`, title: 'Memory the card must hold per mode, batch 1', desc: rows.map((x) => `${x.label}: ${bytes(x.total)}`).join('; ') });
    const nameOf = cardNames(r.cards);  // distinct: "H100 PCIe" and "H100 SXM5", not two "H100"
    const cardRows = list(r.cards).map((c) => el('tr', null, el('th', { scope: 'row', title: text(c.name) }, nameOf(c), el('span', { className: 'cap' }, ` ${bytes(c.capacity_bytes)}`)),
      MODES.map((m) => { const f = fitCell(c, m); return el('td', { className: `fit ${f.kind}`, title: f.shortTitle || null }, f.short); })));
    const cost = r.cost || {};
    const cheapest = cost.cheapest;
    const cardName = (id) => nameOf(list(r.cards).find((c) => c.id === id) || { id, name: id });
    const headline = planHeadline(r, modelName(src.label || src.hubId, src.text));
    let link = null;
    const page = this.getAttribute('page-url');
    if (page) {
      const hash = src.hubId ? `#v1&a=${encodeURIComponent(`hub:${src.hubId}`)}` : await encodeState({ a: { text: src.text, label: src.label }, options: attrOptions(this), view: 'plan' });
      link = el('a', { href: `${page.replace(/#.*$/, '')}${hash}`, target: '_blank', rel: 'noopener' }, 'Open the full plan');
    }
    this._box.replaceChildren(
      el('header', null, el('span', { className: 'brand' }, 'cardfit'), src.label ? el('span', { className: 'name' }, text(src.label)) : null,
        el('span', { className: 'params' }, el('strong', { className: 'count' }, int(r.params.total)), ' parameters')),
      el('p', { className: 'headline' }, headline),
      el('figure', null, bars.svg, el('figcaption', null, bars.legend)),
      el('div', { className: 'table-wrap' }, el('table', null,
        el('caption', null, `Largest batch per card: training at ${int(modes.full?.seq)} tokens, serving at ${int(modes.serve?.seq)}`),
        el('thead', null, el('tr', null, el('th', { scope: 'col' }, 'Card'), MODES.map((m) => el('th', { scope: 'col', className: 'num' }, modeLabel(m))))),
        el('tbody', null, cardRows))),
      r.fit ? el('p', { className: 'fit-line' }, fitLine(r, shortCard)) : null,
      cheapest ? el('p', { className: 'cost' }, 'Cheapest run that fits: ', el('strong', null, `${usd(cheapest.usd)}`),
        ` (${modeLabel(cheapest.mode)} on ${int(cheapest.cards)} × ${cardName(cheapest.card)}, ${hours(cheapest.hours)} h; ${int(cost.epochs)} epochs × ${int(cost.samples)} samples)`) : null,
      el('footer', null, 'Estimated from the model\'s structure in your browser, not measured. ', link));
    this.dispatchEvent(new CustomEvent('cardfit-plan', { detail: { total: r.params.total, headline } }));
  }
}

if (typeof customElements !== 'undefined' && !customElements.get(TAG)) customElements.define(TAG, CardfitPlan);

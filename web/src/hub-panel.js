// web/src/hub-panel.js: the hub's facts in a source panel: a token field (for gated models; the
// token lives in this variable only: never in the state, the share link or storage), the model's
// metadata after a fetch (downloads, likes, last modified, gated, library, pipeline tag, the hub's
// safetensors total), a button that opens the revision history (web/src/history-panel.js), and
// a note while the browser is offline. Not a planner; the hub client is web/src/hub.js.

import { DASH, el, int, isNum, text } from './format.js';
import { HUB_DEFAULT, hubClient } from './hub.js';

let hubToken = '';

// The page's client for an endpoint, with the token as it is now.
export function pageHub(endpoint) {
  const c = hubClient(endpoint || HUB_DEFAULT);
  c.setToken(hubToken);
  return c;
}

const compactCount = (n) => (!isNum(n) ? DASH : n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}K` : String(n));
const gatedText = (g) => (g === false ? 'no' : g === null || g === undefined ? DASH : `yes (${g === true ? 'gated' : g})`);

// hubExtras(slot, {onHistory(input)}) → {root, show(got, label), clear()}
export function hubExtras(slot, ctx) {
  const p = slot === 'a' ? '' : 'b-';
  const meta = el('dl', { id: `${p}hub-meta`, className: 'hub-meta', hidden: true });
  const offline = el('p', { id: `${p}hub-offline`, className: 'hub-status bad', hidden: typeof navigator === 'undefined' || navigator.onLine !== false },
    'You are offline: fetching from the hub, its metadata and the revision history need a connection. Everything else works.');
  const historyButton = el('button', { type: 'button', id: `${p}history-open`, hidden: true }, 'Revision history: what changed upstream');
  let current = '';
  historyButton.addEventListener('click', () => ctx.onHistory(current));
  const parts = [offline, meta, historyButton];
  if (slot === 'a') {
    const token = el('input', { id: 'hub-token', type: 'password', autocomplete: 'off', spellcheck: false, placeholder: 'hf_… (gated or private models)' });
    token.addEventListener('input', () => { hubToken = token.value.trim(); });
    parts.unshift(el('details', { className: 'hub-token' }, el('summary', null, 'Hub token'),
      el('label', { for: 'hub-token' }, 'Read token, kept in this tab\'s memory only (never in the share link or storage)'), token));
  }
  window.addEventListener('offline', () => { offline.hidden = false; });
  window.addEventListener('online', () => { offline.hidden = true; });
  return {
    root: el('div', { className: 'hub-extras' }, parts),
    show(got, label) {
      current = label;
      const i = got.info;
      historyButton.hidden = false;
      if (!i) { meta.hidden = true; return; }
      const row = (name, value, title) => [el('dt', null, name), el('dd', { dataset: { field: name.toLowerCase().replace(/\W+/g, '-') }, title: title || null }, value)];
      meta.replaceChildren(...row('Downloads', compactCount(i.downloads), isNum(i.downloads) ? int(i.downloads) : null), ...row('Likes', compactCount(i.likes)),
        ...row('Last modified', i.lastModified ? String(i.lastModified).slice(0, 10) : DASH, i.lastModified || null), ...row('Gated', gatedText(i.gated)),
        ...row('Library', text(i.library)), ...row('Pipeline', text(i.pipelineTag)),
        ...row('Hub parameter total', isNum(i.safetensorsTotal) ? int(i.safetensorsTotal) : DASH, 'safetensors.total from the hub API: reconciled as checkpoint_total'));
      meta.hidden = false;
    },
    clear() { current = ''; meta.hidden = true; historyButton.hidden = true; },
  };
}

// web/src/state.js: the share link. The whole state (the config text of each model, its
// checkpoint header or index if one was given, every option, the view) lives in the URL fragment,
// which browsers never send to a server. Format (docs/web.md, "Share links"):
//
//   #v1&a=<text>&an=<label>&ax=<hub id>&ac=<checkpoint total>&ah=<text>&ai=<text>&b=...&bn=...
//      &view=compare&hub=<url>&<option>=<value>...
//
// URLSearchParams syntax. A <text> is "j.<base64url of UTF-8>" (plain) or "z.<base64url of
// deflate-raw>" (compressed with the browser's CompressionStream; chosen when shorter), or, as
// input only, "ex:<example id>" / "hub:<org/name>[@revision]" (short links that name a source).
// Options keep the core's snake_case names; lists are comma-separated, prices "id:usd,id:usd",
// booleans true/false. Not a planner: it only moves text in and out of the URL.

import { OPTION_SCHEMA } from 'cardfit:option-schema';
import { isNum } from './format.js';

export const FRAGMENT_VERSION = 'v1';
const SLOT_KEYS = { a: ['a', 'an', 'ah', 'ai', 'ac', 'ax'], b: ['b', 'bn', 'bh', 'bi', 'bc', 'bx'] };

function b64url(bytesArr) {
  let s = '';
  for (let i = 0; i < bytesArr.length; i += 0x8000) s += String.fromCharCode.apply(null, bytesArr.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
function unb64url(s) {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
async function pipeBytes(data, stream) {
  const res = new Response(new Blob([data]).stream().pipeThrough(stream));
  return new Uint8Array(await res.arrayBuffer());
}

export async function packText(str) {
  const raw = new TextEncoder().encode(str);
  const plain = `j.${b64url(raw)}`;
  if (raw.length < 160 || typeof CompressionStream !== 'function') return plain;
  const z = `z.${b64url(await pipeBytes(raw, new CompressionStream('deflate-raw')))}`;
  return z.length < plain.length ? z : plain;
}

export async function unpackText(s) {
  if (s.startsWith('j.')) return new TextDecoder('utf-8', { fatal: true }).decode(unb64url(s.slice(2)));
  if (s.startsWith('z.')) {
    if (typeof DecompressionStream !== 'function') throw new Error('this browser cannot decompress the link (no DecompressionStream)');
    return new TextDecoder('utf-8', { fatal: true }).decode(await pipeBytes(unb64url(s.slice(2)), new DecompressionStream('deflate-raw')));
  }
  throw new Error(`unknown text encoding "${s.slice(0, 2)}"`);
}

// Options as the fragment spells them, typed by the core's option schema (OPTION_SCHEMA: the
// cardfit:option-schema module that scripts/build-web.mjs makes from cardfit.describe).
export const OPTION_SPECS = new Map(OPTION_SCHEMA.options.map((o) => [o.name, o]));
export const LIST_OPTIONS = new Set(OPTION_SCHEMA.options.filter((o) => o.type === 'names').map((o) => o.name));
export function optionToString(name, v) {
  if (Array.isArray(v)) return v.join(',');
  if (v && typeof v === 'object') return Object.entries(v).map(([k, p]) => `${k}:${p}`).join(',');
  return String(v);
}
// Text → the JSON type the schema names. What does not read as that type stays text, so the core
// refuses it with its own code and message; an unknown name is kept for the core to name.
export function optionFromString(name, s) {
  const spec = OPTION_SPECS.get(name);
  switch (spec && spec.type) {
    case 'names': return s ? s.split(',').map((x) => x.trim()).filter(Boolean) : [];
    case 'boolean': return s === 'true' || s === '1' ? true : s === 'false' || s === '0' ? false : s;
    case 'map': {
      const out = {};
      for (const pair of s.split(',').filter(Boolean)) { const i = pair.lastIndexOf(':'); out[pair.slice(0, i)] = Number(pair.slice(i + 1)); }
      return out;
    }
    case 'integer': return /^-?\d+$/.test(s) ? Number(s) : s;
    case 'number': return /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(s) ? Number(s) : s;
    case 'enum': case 'text': return s;
    default: return /^-?\d+(\.\d+)?(e-?\d+)?$/i.test(s) ? Number(s) : s;
  }
}
// state: {a: slot, b: slot|null, options: {}, view, hub}; slot: {text, label, hubId, checkpointTotal,
// header, index} (header/index: {name, text} or null). Returns the fragment, starting with "#".
export async function encodeState(state) {
  const p = new URLSearchParams();
  p.append(FRAGMENT_VERSION, '');
  for (const slot of ['a', 'b']) {
    const s = state[slot];
    if (!s || !s.text) continue;
    const [k, kn, kh, ki, kc, kx] = SLOT_KEYS[slot];
    p.append(k, await packText(s.text));
    if (s.label) p.append(kn, s.label);
    if (s.hubId) p.append(kx, s.hubId);
    if (isNum(s.checkpointTotal)) p.append(kc, String(s.checkpointTotal));
    if (s.header && s.header.text) p.append(kh, await packText(s.header.text));
    if (s.index && s.index.text) p.append(ki, await packText(s.index.text));
  }
  if (state.view && state.view !== 'plan') p.append('view', state.view);
  if (state.hub) p.append('hub', state.hub);
  if (state.units) p.append('units', state.units);
  for (const [name, v] of Object.entries(state.options || {})) p.append(name, optionToString(name, v));
  return `#${p.toString().replace(/^v1=/, 'v1')}`;
}

// → {state, errors: [..]}; sources named by "ex:" or "hub:" come back as {example} / {hubId}.
export async function decodeState(hash) {
  const raw = String(hash || '').replace(/^#/, '');
  if (!raw) return null;
  const p = new URLSearchParams(raw);
  const first = raw.split('&')[0].split('=')[0];
  if (!/^v\d+$/.test(first)) return null;  // not a cardfit fragment (e.g. an in-page anchor)
  if (first !== FRAGMENT_VERSION) throw new Error(`This link uses share-link format ${first}; this page reads ${FRAGMENT_VERSION}. Open it with a newer cardfit.`);
  const state = { a: null, b: null, options: {}, view: 'plan', hub: '' };
  const reserved = new Set([first, 'view', 'hub', 'units', ...SLOT_KEYS.a, ...SLOT_KEYS.b]);
  for (const slot of ['a', 'b']) {
    const [k, kn, kh, ki, kc, kx] = SLOT_KEYS[slot];
    const v = p.get(k);
    if (!v) continue;
    const s = { text: '', label: p.get(kn) || '', header: null, index: null, hubId: p.get(kx) || '' };
    if (/^\d+$/.test(p.get(kc) || '')) s.checkpointTotal = Number(p.get(kc));
    if (v.startsWith('ex:')) s.example = v.slice(3);
    else if (v.startsWith('hub:')) s.hubId = v.slice(4);
    else s.text = await unpackText(v);
    if (p.get(kh)) s.header = { name: 'model.safetensors (from the link)', text: await unpackText(p.get(kh)) };
    if (p.get(ki)) s.index = { name: 'model.safetensors.index.json (from the link)', text: await unpackText(p.get(ki)) };
    state[slot] = s;
  }
  state.view = p.get('view') === 'compare' ? 'compare' : 'plan';
  state.hub = p.get('hub') || '';
  state.units = p.get('units') === 'gib' ? 'gib' : '';
  for (const [name, v] of p) if (!reserved.has(name)) state.options[name] = optionFromString(name, v);
  return state;
}

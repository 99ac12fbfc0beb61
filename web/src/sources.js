// web/src/sources.js: where a config comes from besides the paste box. Files: config.json, a
// model.safetensors (only its header is read, with File.slice: 8 bytes of length, then the JSON
// header; never the weights) or a model.safetensors.index.json. The hub: the user's browser
// fetches {hub}/{org}/{name}/resolve/{revision}/config.json and the checkpoint's index or the
// safetensors header with HTTP Range requests. Not a planner: it returns text for the core.

const HUB_DEFAULT = 'https://huggingface.co';
const MAX_HEADER = 100 * 1024 * 1024;  // a safetensors header larger than this is not a header
const HUB_TIMEOUT_MS = 20000;

class SourceError extends Error {
  constructor(kind, message) { super(message); this.kind = kind; }
}

// The header length: the first 8 bytes, a little-endian unsigned 64-bit integer.
function headerLength(buf) {
  if (buf.byteLength < 8) throw new SourceError('safetensors', 'The file is shorter than a safetensors header (8 bytes).');
  const v = new DataView(buf instanceof ArrayBuffer ? buf : buf.buffer, buf.byteOffset || 0, 8);
  const lo = v.getUint32(0, true), hi = v.getUint32(4, true);
  const n = hi * 2 ** 32 + lo;
  if (hi > 0 || n < 2 || n > MAX_HEADER) throw new SourceError('safetensors', `Not a safetensors file: its first 8 bytes give a header length of ${n} bytes.`);
  return n;
}

// What a dropped or chosen file is: 'safetensors', 'index' or 'config' (by name, then content).
async function readDroppedFile(file) {
  const name = file.name || 'file';
  if (/\.safetensors$/i.test(name)) {
    const n = headerLength(await file.slice(0, 8).arrayBuffer());
    if (8 + n > file.size) throw new SourceError('safetensors', `${name}: the header claims ${n} bytes but the file has ${file.size}.`);
    const text = await file.slice(8, 8 + n).text();
    return { kind: 'safetensors', name, text };
  }
  if (file.size > 64 * 1024 * 1024) throw new SourceError('file', `${name} is ${Math.round(file.size / 1e6)} MB: not a config.json. Drop a config.json, a model.safetensors or its index.`);
  const text = await file.text();
  let json = null;
  try { json = JSON.parse(text); } catch (e) { /* the core reports the syntax error with line and column */ }
  if (/\.index\.json$/i.test(name) || (json && typeof json === 'object' && json.weight_map && typeof json.weight_map === 'object')) {
    return { kind: 'index', name, text };
  }
  return { kind: 'config', name, text };
}

// "org/name", "org/name@rev", "https://huggingface.co/org/name/tree/rev" → {id, revision}.
function parseHubId(input) {
  let s = String(input || '').trim();
  let revision = 'main';
  const url = s.match(/^https?:\/\/[^/]+\/(.+)$/);
  if (url) {
    const parts = url[1].split('/');
    s = parts.slice(0, 2).join('/');
    if ((parts[2] === 'tree' || parts[2] === 'blob' || parts[2] === 'resolve') && parts[3]) revision = decodeURIComponent(parts[3]);
  }
  const at = s.lastIndexOf('@');
  if (at > 0) { revision = s.slice(at + 1) || 'main'; s = s.slice(0, at); }
  if (!/^[A-Za-z0-9][\w.-]*(\/[A-Za-z0-9][\w.-]*)?$/.test(s) || s.includes('..')) {
    throw new SourceError('id', `"${String(input).trim().slice(0, 80)}" is not a hub id: write it as org/name (e.g. Qwen/Qwen2.5-3B), optionally @revision.`);
  }
  return { id: s, revision };
}

function hubUrl(base, id, revision, file) {
  return `${String(base || HUB_DEFAULT).replace(/\/+$/, '')}/${id}/resolve/${encodeURIComponent(revision)}/${file}`;
}

async function hubFetch(url, init, what, id) {
  let res;
  try {
    res = await fetch(url, { ...init, credentials: 'omit', cache: 'no-store', redirect: 'follow', signal: init.signal || AbortSignal.timeout(HUB_TIMEOUT_MS) });
  } catch (e) {
    if (e && (e.name === 'TimeoutError' || e.name === 'AbortError')) throw new SourceError('timeout', `The hub did not answer within ${HUB_TIMEOUT_MS / 1000} s for ${what}. Paste the config instead.`);
    if (typeof navigator !== 'undefined' && navigator.onLine === false) throw new SourceError('offline', 'You are offline: the hub cannot be reached. Paste the config.json or pick an example; everything else works offline.');
    throw new SourceError('network', `The hub could not be reached for ${what} (offline, blocked, or refused by the network). Paste the config.json instead.`);
  }
  if (res.status === 401 || res.status === 403) {
    throw new SourceError('gated', `${id} is gated or private: the hub wants you to sign in and accept its terms before it serves ${what}. Paste its config.json instead (copy it from the model page once you have access).`);
  }
  if (res.status === 404) throw new SourceError('missing', `${what} was not found for ${id} (HTTP 404): check the id and the revision.`);
  if (!res.ok) throw new SourceError('http', `The hub answered HTTP ${res.status} for ${what}.`);
  return res;
}

// Reads the first `n` bytes of a response body and stops (a server that ignores Range answers 200
// with the whole file: never read the weights).
async function readPrefix(res, n) {
  if (!res.body) return new Uint8Array(await res.arrayBuffer()).slice(0, n);
  const reader = res.body.getReader();
  const out = new Uint8Array(n);
  let got = 0;
  while (got < n) {
    const { done, value } = await reader.read();
    if (done) break;
    const take = Math.min(value.length, n - got);
    out.set(value.subarray(0, take), got);
    got += take;
  }
  reader.cancel().catch(() => {});
  return out.subarray(0, got);
}

// fetchFromHub(base, input, onProgress) → {id, revision, config, header|null, index|null, notes[]}
async function fetchFromHub(base, input, onProgress) {
  const { id, revision } = parseHubId(input);
  const say = onProgress || (() => {});
  say(`Fetching ${id} config.json…`);
  const configRes = await hubFetch(hubUrl(base, id, revision, 'config.json'), {}, 'config.json', id);
  const config = await configRes.text();
  const notes = [];
  let header = null, index = null;
  // Sharded checkpoints have an index; single-file ones a model.safetensors whose header is read
  // with two Range requests (8 bytes of length, then the header).
  say(`Reading ${id}'s checkpoint index or safetensors header…`);
  try {
    const res = await hubFetch(hubUrl(base, id, revision, 'model.safetensors.index.json'), {}, 'model.safetensors.index.json', id);
    index = { name: 'model.safetensors.index.json', text: await res.text() };
  } catch (e) {
    if (e.kind !== 'missing') notes.push(e.message);
  }
  if (!index) {
    try {
      const url = hubUrl(base, id, revision, 'model.safetensors');
      const first = await hubFetch(url, { headers: { Range: 'bytes=0-7' } }, 'the safetensors header', id);
      const n = headerLength((await readPrefix(first, 8)).slice().buffer);
      const second = await hubFetch(url, { headers: { Range: `bytes=8-${8 + n - 1}` } }, 'the safetensors header', id);
      const bytesRead = await readPrefix(second, n);
      if (bytesRead.length < n) throw new SourceError('safetensors', 'The safetensors header was cut short.');
      header = { name: 'model.safetensors (header)', text: new TextDecoder().decode(bytesRead) };
    } catch (e) {
      notes.push(e.kind === 'missing' ? 'No model.safetensors or index on the hub: the count is not reconciled with a checkpoint.' : e.message);
    }
  }
  return { id, revision, config, header, index, notes };
}

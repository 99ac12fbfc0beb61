// web/src/hub.js: the Hugging Face hub client shared by the page, the widget (imported into
// their bundles by scripts/build-web.mjs) and the CLI (require()d by scripts/cardfit,
// using Node 20's global fetch). It reads, never writes:
//   {hub}/api/models/{id}[/revision/{rev}]     metadata: downloads, likes, lastModified, gated,
//                                              library_name, pipeline_tag, safetensors.total
//   {hub}/api/models/{id}/commits/{rev}        the commit list, paginated by the Link header
//   {hub}/{id}/resolve/{rev}/config.json       and model.safetensors.index.json
//   {hub}/{id}/resolve/{rev}/model.safetensors two Range requests: 8 bytes of length, then the
//                                              JSON header (never the weights)
// Response shapes as huggingface_hub's ModelInfo / GitCommitInfo and huggingface.js's
// listCommits read them (checked 2026-12). Every failure is a HubError with a stable code
// (hub.gated, hub.unauthorized, hub.forbidden, hub.repo_not_found, hub.revision_not_found,
// hub.not_found (a file), hub.rate_limited, hub.timeout, hub.offline, hub.unreachable, hub.http,
// hub.bad_id, hub.bad_response, safetensors.invalid). A token is kept
// in the client's closure only: never stored, never put in a URL. Not a planner.

export const HUB_DEFAULT = 'https://huggingface.co';
export const HUB_TIMEOUT_MS = 20000;
const HUB_MAX_COMMIT_PAGES = 10;            // 10 pages of 100 commits: enough for any config history
const SAFETENSORS_MAX_HEADER = 100 * 1024 * 1024;  // a larger "header" is not a safetensors header

export class HubError extends Error {
  constructor(kind, message, status) {
    super(message);
    this.kind = kind;
    this.code = kind === 'safetensors' ? 'safetensors.invalid' : `hub.${kind}`;
    if (status) this.status = status;
  }
}
export const SourceError = HubError;  // the page's file readers (web/src/sources.js) throw the same kind

// The header length: the first 8 bytes, a little-endian unsigned 64-bit integer.
export function headerLength(buf) {
  if (buf.byteLength < 8) throw new HubError('safetensors', 'The file is shorter than a safetensors header (8 bytes).');
  const v = new DataView(buf instanceof ArrayBuffer ? buf : buf.buffer, buf.byteOffset || 0, 8);
  const lo = v.getUint32(0, true), hi = v.getUint32(4, true);
  const n = hi * 2 ** 32 + lo;
  if (hi > 0 || n < 2 || n > SAFETENSORS_MAX_HEADER) throw new HubError('safetensors', `Not a safetensors file: its first 8 bytes give a header length of ${n} bytes.`);
  return n;
}

// "org/name", "org/name@rev", "https://huggingface.co/org/name/tree/rev" → {id, revision}.
export function parseHubId(input) {
  let s = String(input || '').trim();
  let revision = 'main';
  const url = s.match(/^https?:\/\/[^/]+\/(.+)$/);
  if (url) {
    const parts = url[1].split('/');
    s = parts.slice(0, 2).join('/');
    if ((parts[2] === 'tree' || parts[2] === 'blob' || parts[2] === 'resolve' || parts[2] === 'commit') && parts[3]) revision = decodeURIComponent(parts[3]);
  }
  const at = s.lastIndexOf('@');
  if (at > 0) { revision = s.slice(at + 1) || 'main'; s = s.slice(0, at); }
  if (!/^[A-Za-z0-9][\w.-]*(\/[A-Za-z0-9][\w.-]*)?$/.test(s) || s.includes('..')) {
    throw new HubError('bad_id', `"${String(input).trim()}" is not a hub id: write it as org/name (e.g. Qwen/Qwen2.5-3B), optionally @revision.`);
  }
  return { id: s, revision };
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

// RFC 8288 Link header → the URL of rel="next", or null.
export function nextLink(header) {
  for (const part of String(header || '').split(',')) {
    const m = part.match(/<([^>]*)>\s*;(.*)$/);
    if (m && /\brel\s*=\s*"?next"?/i.test(m[2])) return m[1];
  }
  return null;
}

// The revision named in a hub URL, for messages.
function revisionOf(url) {
  const m = String(url).match(/\/(?:resolve|revision|commits)\/([^/?]+)/);
  return m ? decodeURIComponent(m[1]) : 'main';
}

function isOffline() {
  return typeof navigator !== 'undefined' && navigator.onLine === false;
}

// makeHubClient({endpoint, token, timeoutMs, fetch}) → the client. Results are cached per
// endpoint, id and revision (a failure is not, but for a missing file).
export function makeHubClient(settings) {
  const endpoint = String((settings && settings.endpoint) || HUB_DEFAULT).replace(/\/+$/, '');
  const timeoutMs = (settings && settings.timeoutMs) || HUB_TIMEOUT_MS;
  const fetchFn = (settings && settings.fetch) || ((...a) => fetch(...a));
  // What to do instead when the hub fails: the page's paste box, the CLI's file argument.
  const instead = (settings && settings.instead) || 'Paste the config.json instead.';
  const tokenHint = (settings && settings.tokenHint) || 'Give a read token (kept in this tab\'s memory only).';
  let token = (settings && settings.token) || '';
  const cache = new Map();

  function cached(key, make) {
    if (!cache.has(key)) {
      const p = make();
      cache.set(key, p);
      // A missing file stays missing for the visit; other failures (offline, 429, timeout) retry.
      p.catch((e) => { if (!e || e.kind !== 'not_found') cache.delete(key); });
    }
    return cache.get(key);
  }

  const fileUrl = (id, revision, file) => `${endpoint}/${id}/resolve/${encodeURIComponent(revision)}/${file}`;
  const apiUrl = (id, revision, what) => `${endpoint}/api/models/${id}${what}${revision && revision !== 'main' && what === '' ? `/revision/${encodeURIComponent(revision)}` : ''}`;

  async function request(url, what, id, headers) {
    const h = { ...(headers || {}) };
    if (token) h.Authorization = `Bearer ${token}`;
    let res;
    try {
      res = await fetchFn(url, { headers: h, credentials: 'omit', cache: 'no-store', redirect: 'follow', signal: AbortSignal.timeout(timeoutMs) });
    } catch (e) {
      if (e && (e.name === 'TimeoutError' || e.name === 'AbortError')) throw new HubError('timeout', `The hub at ${endpoint} did not answer within ${timeoutMs / 1000} s for ${what}. ${instead}`);
      if (isOffline()) throw new HubError('offline', 'You are offline: the hub cannot be reached. Paste the config.json or pick an example; everything else works offline.');
      const cause = e && e.cause && e.cause.code ? ` (${e.cause.code})` : '';
      throw new HubError('unreachable', `The hub at ${endpoint} could not be reached for ${what}${cause}: offline, blocked, or refused by the network. ${instead}`);
    }
    if (res.ok || res.status === 206) return res;
    // The hub names the failure in X-Error-Code (huggingface_hub's hf_raise_for_status reads the
    // same): a missing or private repo is 401 RepoNotFound to a signed-out user (it does not say
    // which), a gated one 401/403 GatedRepo, a missing file 404 EntryNotFound.
    const code = res.headers.get('X-Error-Code') || '';
    const message = res.headers.get('X-Error-Message') || '';
    const http = `HTTP ${res.status}${code ? ` ${code}` : ''}`;
    if (res.body && res.body.cancel) res.body.cancel().catch(() => {});
    if (res.status === 401 && token && /invalid credentials/i.test(message)) {
      throw new HubError('unauthorized', `The hub refused the token (${http}: ${message}). ${instead}`, 401);
    }
    if (code === 'GatedRepo' || (!code && (res.status === 401 || res.status === 403))) {
      const why = token
        ? (res.status === 401 ? 'the token was refused: check it.' : 'the token has no access: accept the model\'s terms on its hub page first.')
        : `the hub serves ${what} only to a signed-in user who accepted its terms. ${tokenHint}`;
      throw new HubError(code === 'GatedRepo' ? 'gated' : res.status === 401 ? 'unauthorized' : 'forbidden', `${id} is gated or private (${http}): ${why} ${instead}`, res.status);
    }
    if (code === 'RepoNotFound') {
      throw new HubError('repo_not_found', `${id} was not found on the hub (${http}): check the id${token ? '' : '; a private repo needs a token with access'}.`, res.status);
    }
    if (code === 'RevisionNotFound') throw new HubError('revision_not_found', `${id} has no revision "${revisionOf(url)}" (${http}).`, res.status);
    if (res.status === 404) throw new HubError('not_found', `${what} was not found for ${id} (${http}): check the id and the revision.`, 404);
    if (res.status === 429) {
      const after = res.headers.get('Retry-After');
      throw new HubError('rate_limited', `The hub is rate-limiting these requests (HTTP 429)${after ? `; it asks to wait ${after} s` : ''}. Try again later; signed-in users (a token) get a larger quota.`, 429);
    }
    throw new HubError('http', `The hub answered HTTP ${res.status} for ${what} of ${id}.`, res.status);
  }

  async function json(res, what) {
    try { return await res.json(); } catch (e) { throw new HubError('bad_response', `The hub's answer for ${what} is not JSON.`); }
  }

  // Metadata of the model at a revision: the fields cardfit shows, as the API names them.
  function modelInfo(id, revision) {
    return cached(`info|${id}@${revision}`, async () => {
      const j = await json(await request(apiUrl(id, revision, ''), 'the model\'s metadata', id), 'the model\'s metadata');
      const st = j && typeof j.safetensors === 'object' && j.safetensors ? j.safetensors : null;
      return {
        id: j.id || j.modelId || id, sha: j.sha || null, downloads: hubNumber(j.downloads), likes: hubNumber(j.likes),
        lastModified: j.lastModified || null, gated: j.gated === undefined ? null : j.gated, private: !!j.private,
        library: j.library_name || null, pipelineTag: j.pipeline_tag || null,
        safetensorsTotal: st && Number.isSafeInteger(st.total) ? st.total : null,
        safetensorsParameters: st && st.parameters && typeof st.parameters === 'object' ? st.parameters : null,
      };
    });
  }

  // The commits of a revision, newest first: [{id, title, date, authors}], following Link: next
  // until `max` commits are read (all, up to HUB_MAX_COMMIT_PAGES pages, when not given).
  function commits(id, revision, max) {
    const most = Number.isSafeInteger(max) && max > 0 ? max : Infinity;
    return cached(`commits|${id}@${revision}|${most}`, async () => {
      let url = `${apiUrl(id, revision, `/commits/${encodeURIComponent(revision || 'main')}`)}?limit=100`;
      const out = [];
      for (let page = 0; url && page < HUB_MAX_COMMIT_PAGES && out.length < most; page++) {
        const res = await request(url, 'the commit history', id);
        const list = await json(res, 'the commit history');
        if (!Array.isArray(list)) throw new HubError('bad_response', 'The hub\'s commit history is not a list.');
        for (const c of list) {
          out.push({ id: String(c.id || ''), title: String(c.title || ''), date: c.date || null,
            authors: Array.isArray(c.authors) ? c.authors.map((a) => a && a.user).filter(Boolean) : [] });
        }
        const next = nextLink(res.headers.get('Link'));
        url = next ? new URL(next, url).href : null;
      }
      return out.slice(0, most);
    });
  }

  // A small text file of the repo (config.json, the index); 404 → HubError not_found.
  function file(id, revision, name) {
    return cached(`file|${id}@${revision}|${name}`, async () => (await request(fileUrl(id, revision, name), name, id)).text());
  }

  // The JSON header of model.safetensors, by two Range requests.
  function safetensorsHeader(id, revision) {
    return cached(`header|${id}@${revision}`, async () => {
      const url = fileUrl(id, revision, 'model.safetensors');
      const first = await request(url, 'the safetensors header', id, { Range: 'bytes=0-7' });
      const n = headerLength((await readPrefix(first, 8)).slice().buffer);
      const second = await request(url, 'the safetensors header', id, { Range: `bytes=8-${8 + n - 1}` });
      const got = await readPrefix(second, n);
      if (got.length < n) throw new HubError('safetensors', 'The safetensors header was cut short.');
      return new TextDecoder().decode(got);
    });
  }

  // Everything a plan of a hub id uses: config, checkpoint index or header, metadata.
  // → {id, revision, config, header|null, index|null, info|null, notes[]}
  async function fetchModel(input, onProgress) {
    const { id, revision } = parseHubId(input);
    const say = onProgress || (() => {});
    say(`Fetching ${id} config.json…`);
    const config = await file(id, revision, 'config.json');
    const notes = [];
    let header = null, index = null, info = null;
    // The metadata is optional: a mirror may not serve the API, and the plan does not need it.
    const infoP = modelInfo(id, revision).catch((e) => { notes.push(`No hub metadata: ${e.message}`); return null; });
    say(`Reading ${id}'s checkpoint index or safetensors header…`);
    try {
      index = { name: 'model.safetensors.index.json', text: await file(id, revision, 'model.safetensors.index.json') };
    } catch (e) {
      if (e.kind !== 'not_found') notes.push(e.message);
    }
    if (!index) {
      try {
        header = { name: 'model.safetensors (header)', text: await safetensorsHeader(id, revision) };
      } catch (e) {
        notes.push(e.kind === 'not_found' ? 'No model.safetensors or index on the hub: the count is not reconciled with a checkpoint.' : e.message);
      }
    }
    info = await infoP;
    return { id, revision, config, header, index, info, notes };
  }

  return {
    endpoint,
    setToken(t) {
      const next = String(t || '').trim();
      if (next !== token) { token = next; cache.clear(); }
    },
    get hasToken() { return !!token; },
    modelInfo, commits, file, safetensorsHeader, fetchModel,
  };
}

const hubNumber = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

// The page's and the widget's entry point (one client per endpoint, so the cache lasts the visit).
const hubClients = new Map();
export function hubClient(endpoint) {
  const key = String(endpoint || HUB_DEFAULT);
  if (!hubClients.has(key)) hubClients.set(key, makeHubClient({ endpoint: key }));
  return hubClients.get(key);
}
export function fetchFromHub(base, input, onProgress) {
  return hubClient(base).fetchModel(input, onProgress);
}

// The package's "cardfit/hub" entry has offered these as one object (its default export) since
// it was CommonJS; named imports are the same functions.
export default { HUB_DEFAULT, HubError, headerLength, parseHubId, nextLink, makeHubClient };

// tests/mock-hub.mjs: a small HTTP server on 127.0.0.1 that answers as the Hugging Face hub does,
// for the browser tests (through tests/browser/helpers.mjs) and the CLI tests. Not a test itself.
//   GET /{org}/{name}/resolve/{rev}/{file}   200, or 206 + Content-Range for a Range request; 302 to
//                                            /cdn/... for LFS files (redirect: true); X-Repo-Commit
//   GET /api/models/{org}/{name}[/revision/{rev}]   the model's metadata (huggingface_hub ModelInfo)
//   GET /api/models/{org}/{name}/commits/{rev}?limit=&p=   a page of commits, newest first, with
//                                            Link: <...&p=N+1>; rel="next" while more remain
// Errors as the hub sends them, with X-Error-Code / X-Error-Message: an unknown repo is 401
// RepoNotFound (the hub does not tell a signed-out user whether it exists), a gated one 401
// GatedRepo without a token (403 with a token that has not accepted the terms), a bad token 401
// "Invalid credentials in Authorization header", a missing file 404 EntryNotFound, a missing
// revision 404 RevisionNotFound, rate limiting 429 + Retry-After. delayMs answers late (timeouts).
// CORS as the hub's: any origin, Range and Authorization allowed, the headers a client reads exposed.
// Also serves `dir` under /static/ and `pages` by path. Every request is logged in server.log.
import { createServer } from 'node:http';
import { readFileSync, statSync } from 'node:fs';
import { extname } from 'node:path';
import { createHash } from 'node:crypto';

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.json': 'application/json', '.css': 'text/css' };
const EXPOSED = 'Content-Range, Content-Length, Accept-Ranges, Link, ETag, Retry-After, X-Error-Code, X-Error-Message, X-Repo-Commit';

export const sha = (s) => createHash('sha1').update(String(s)).digest('hex');

// repos: {"org/name": {files: {name: Buffer|string}, revisions?: {rev: {files}}, commits?: [{id,
// title, date, authors}] (newest first), info?: {...ModelInfo fields}, status?: 401|403|429,
// errorCode?, token?: 'hf_...', redirect?: bool, delayMs?: n, pageSize?: n}}.
export async function startServer({ repos = {}, dir = null, pages = {} } = {}) {
  const log = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    log.push({ method: req.method, path: url.pathname, query: url.search, range: req.headers.range || null, auth: req.headers.authorization || null });
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', EXPOSED);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'Access-Control-Allow-Headers': 'Range, Authorization', 'Access-Control-Allow-Methods': 'GET, HEAD' });
      return res.end();
    }
    if (pages[url.pathname]) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      return res.end(pages[url.pathname]);
    }
    if (dir && url.pathname.startsWith('/static/')) {
      const file = new URL(url.pathname.slice('/static/'.length), dir);
      try {
        statSync(file);
        res.writeHead(200, { 'Content-Type': TYPES[extname(file.pathname)] || 'application/octet-stream' });
        return res.end(readFileSync(file));
      } catch (e) {
        res.writeHead(404);
        return res.end('not found');
      }
    }
    const fail = (status, code, message, extra = {}) => {
      res.writeHead(status, { 'Content-Type': 'application/json', ...(code ? { 'X-Error-Code': code } : {}), 'X-Error-Message': message, ...extra });
      return res.end(JSON.stringify({ error: message }));
    };
    const json = (body, extra = {}) => {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', ...extra });
      return res.end(JSON.stringify(body));
    };

    // Which repo, and which part of the hub.
    let m, kind, repoId, rest = null, rev = 'main';
    if ((m = url.pathname.match(/^\/cdn\/(.+?)\/([^/]+)$/))) [kind, repoId, rest] = ['cdn', decodeURIComponent(m[1]), m[2]];
    else if ((m = url.pathname.match(/^\/api\/models\/([^/]+\/[^/]+)\/commits\/([^/]+)$/))) [kind, repoId, rev] = ['commits', m[1], decodeURIComponent(m[2])];
    else if ((m = url.pathname.match(/^\/api\/models\/([^/]+\/[^/]+)\/revision\/([^/]+)$/))) [kind, repoId, rev] = ['info', m[1], decodeURIComponent(m[2])];
    else if ((m = url.pathname.match(/^\/api\/models\/([^/]+\/[^/]+)$/))) [kind, repoId] = ['info', m[1]];
    else if ((m = url.pathname.match(/^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/))) [kind, repoId, rev, rest] = ['file', m[1], decodeURIComponent(m[2]), m[3]];
    else return fail(404, null, 'Not found');
    const repo = repos[repoId];
    if (!repo) return fail(401, 'RepoNotFound', 'Repository not found');
    if (repo.delayMs) await new Promise((r) => setTimeout(r, repo.delayMs));
    if (repo.status === 429) return fail(429, null, 'You have been rate-limited; you can retry this action in about 1 minute.', { 'Retry-After': '60' });
    if (repo.status) return fail(repo.status, repo.errorCode || null, 'Access to this model is restricted.');
    if (repo.token) {
      const auth = req.headers.authorization || '';
      if (!auth) return fail(401, 'GatedRepo', 'Access to model ' + repoId + ' is restricted. You must have access to it and be authenticated to access it. Please log in.');
      if (auth !== `Bearer ${repo.token}`) return fail(401, null, 'Invalid credentials in Authorization header');
    }
    const commits = repo.commits || [{ id: sha(repoId), title: 'initial commit', date: '2024-01-01T00:00:00.000Z', authors: [{ user: 'someone', avatar: '' }] }];
    const known = rev === 'main' || (repo.revisions ? !!repo.revisions[rev] : true) || commits.some((c) => c.id === rev);
    if (kind !== 'cdn' && !known) return fail(404, 'RevisionNotFound', `Invalid rev id: ${rev}`);
    const filesAt = (r) => (repo.revisions && repo.revisions[r] ? repo.revisions[r].files : repo.files || {});
    const shaAt = (r) => (repo.revisions && repo.revisions[r] ? r : commits[0].id);

    if (kind === 'commits') {
      const limit = Math.min(Number(url.searchParams.get('limit')) || 50, repo.pageSize || 1000);
      const page = Number(url.searchParams.get('p')) || 0;
      const start = commits.findIndex((c) => c.id === rev);
      const list = commits.slice(start > 0 ? start : 0);
      const body = list.slice(page * limit, (page + 1) * limit).map((c) => ({ id: c.id, title: c.title, message: c.message || '', authors: c.authors || [], date: c.date }));
      const more = (page + 1) * limit < list.length;
      const next = `http://${req.headers.host}/api/models/${repoId}/commits/${encodeURIComponent(rev)}?limit=${limit}&p=${page + 1}`;
      return json(body, more ? { Link: `<${next}>; rel="next"` } : {});
    }
    if (kind === 'info') {
      const files = filesAt(rev);
      const info = {
        _id: sha(repoId).slice(0, 24), id: repoId, modelId: repoId, author: repoId.split('/')[0], sha: shaAt(rev),
        lastModified: commits[0].date, createdAt: commits.at(-1).date, private: false, disabled: false, gated: false,
        downloads: 0, likes: 0, library_name: 'transformers', tags: ['transformers', 'safetensors'], pipeline_tag: 'text-generation',
        siblings: Object.keys(files).map((rfilename) => ({ rfilename })), ...(repo.info || {}),
      };
      return json(info);
    }
    const files = kind === 'cdn' ? repo.files : filesAt(rev);
    const body = files[rest];
    if (body === undefined) return fail(404, 'EntryNotFound', `${rest} does not exist on "${rev}"`);
    if (repo.redirect && kind !== 'cdn' && rest.endsWith('.safetensors')) {
      res.writeHead(302, { Location: `/cdn/${encodeURIComponent(repoId)}/${rest}`, 'X-Repo-Commit': shaAt(rev) });
      return res.end();
    }
    const buf = Buffer.isBuffer(body) ? body : Buffer.from(body);
    const common = { 'Accept-Ranges': 'bytes', ETag: `"${sha(buf)}"`, 'X-Repo-Commit': shaAt(rev) };
    const range = req.headers.range && req.headers.range.match(/^bytes=(\d+)-(\d*)$/);
    if (range) {
      const start = Number(range[1]);
      const end = Math.min(range[2] === '' ? buf.length - 1 : Number(range[2]), buf.length - 1);
      if (start > end) { res.writeHead(416, { 'Content-Range': `bytes */${buf.length}` }); return res.end(); }
      res.writeHead(206, { ...common, 'Content-Range': `bytes ${start}-${end}/${buf.length}`, 'Content-Length': end - start + 1, 'Content-Type': 'application/octet-stream' });
      return res.end(buf.subarray(start, end + 1));
    }
    res.writeHead(200, { ...common, 'Content-Length': buf.length, 'Content-Type': rest.endsWith('.json') ? 'application/json' : 'application/octet-stream' });
    return res.end(buf);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  return { base, log, pages, close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(resolve); }) };
}

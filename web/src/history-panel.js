// web/src/history-panel.js: the revision history of a hub model: its commits (the hub API, Link
// pagination), config.json and the checkpoint index at each chosen commit, and for each change between consecutive
// revisions the fields that differ and what each one alone does to parameters and memory: the
// compare view's machinery (web/src/changes.js, effect texts of web/src/compare.js) applied to
// history. The core plans every what-if in the planner's worker, at low priority. Not a planner.

import { el } from './format.js';
import { parseHubId } from './hub.js';
import { pageHub } from './hub-panel.js';
import { analyseHistory, indexChangeText } from './changes.js';
import { deltaTexts } from './compare.js';
import { td } from './render.js';

const HISTORY_DEFAULT_CHECKED = 10;

// makeHistoryPanel({planner, endpoint(), options()}) → {open(input)}
export function makeHistoryPanel(ctx) {
  let box = null, gen = 0;
  function ensureBox() {
    if (box) return box;
    box = el('section', { id: 'history', className: 'block', 'aria-labelledby': 'history-title', hidden: true });
    document.getElementById('results').append(box);
    return box;
  }

  async function open(input) {
    const my = ++gen;
    const root = ensureBox();
    let id, revision;
    try { ({ id, revision } = parseHubId(input)); } catch (e) { return; }
    const status = el('p', { id: 'history-status', className: 'hub-status', role: 'status' }, `Reading the commits of ${id}…`);
    const changes = el('div', { id: 'history-changes' });
    const close = el('button', { type: 'button', className: 'linkish', onclick: () => { root.hidden = true; } }, 'Close');
    root.replaceChildren(el('h2', { id: 'history-title' }, `What changed upstream: ${id}`), close, status, changes);
    root.hidden = false;
    root.scrollIntoView({ block: 'start' });
    const hub = pageHub(ctx.endpoint());
    let commits;
    try {
      commits = await hub.commits(id, revision);
    } catch (e) {
      if (my === gen) { status.classList.add('bad'); status.textContent = e.message; }
      return;
    }
    if (my !== gen) return;
    const boxes = commits.map((c, i) => el('input', { type: 'checkbox', value: c.id, checked: i < HISTORY_DEFAULT_CHECKED }));
    const list = el('ul', { id: 'history-commits' }, commits.map((c, i) => el('li', null, el('label', { className: 'check' }, boxes[i],
      el('code', null, c.id.slice(0, 7)), ` ${c.date ? String(c.date).slice(0, 10) : ''} ${c.title}`))));
    const run = el('button', { type: 'button', id: 'history-analyse' }, 'Compare config.json at the checked revisions');
    root.insertBefore(el('details', { className: 'history-list', open: commits.length <= 30 }, el('summary', null, `Commits (${commits.length})`), list, run), changes);
    run.addEventListener('click', () => analyse(my, id, commits.filter((c, i) => boxes[i].checked), status, changes));
    analyse(my, id, commits.filter((c, i) => boxes[i].checked), status, changes);
  }

  async function analyse(my, id, chosen, status, changes) {
    const hub = pageHub(ctx.endpoint());
    status.classList.remove('bad');
    changes.replaceChildren();
    const revisions = [];
    for (const [n, commit] of chosen.slice().reverse().entries()) {
      status.textContent = `Fetching config.json and the checkpoint index at ${n + 1} of ${chosen.length} revisions…`;
      try {
        revisions.push({ commit, config: await optionalFile(hub, id, commit.id, 'config.json'), index: await optionalFile(hub, id, commit.id, 'model.safetensors.index.json') });
      } catch (e) {
        status.classList.add('bad');
        status.textContent = e.message;
        return;
      }
      if (my !== gen) return;
    }
    status.textContent = `Planning the changes between ${revisions.length} revisions…`;
    let k = 0;
    const plan = (textValue, options) => ctx.planner.plan(textValue, options, `history:${my}:${k++}`, true).then((res) => (res ? res.report : null));
    const steps = await analyseHistory(revisions, plan, ctx.options());
    if (my !== gen) return;
    const read = revisions.filter((r) => r.config !== null).length;
    status.textContent = `${chosen.length} revisions checked, config.json read at ${read}; ${steps.length} change${steps.length === 1 ? '' : 's'} to the config or the checkpoint index. Each field's effect: the older config planned with only that field changed.`;
    changes.replaceChildren(...steps.reverse().map((s) => renderChange(s)));
    changes.dataset.done = 'true';
  }

  const when = (c) => `${c.id.slice(0, 7)}${c.date ? ` (${String(c.date).slice(0, 10)})` : ''}`;
  const cellText = (v) => (v === undefined ? '(absent)' : typeof v === 'string' ? v : JSON.stringify(v));
  function renderChange(s) {
    const rows = s.diffs.map((d) => el('tr', { dataset: { path: d.path }, className: d.deltas && d.deltas.length ? 'changes' : d.error ? 'unknown' : '' },
      td(el('code', null, d.path)), td(el('code', null, cellText(d.inA ? d.a : undefined))), td(el('code', null, cellText(d.inB ? d.b : undefined))),
      el('td', { className: 'effect' }, d.error ? d.error : d.deltas && d.deltas.length ? deltaTexts(d.deltas).join('; ') : 'no effect on memory or cost')));
    const configSame = !s.diffs.length && !s.error;
    return el('section', { className: 'history-change', dataset: { from: s.from.id, to: s.to.id } },
      el('h3', null, `${when(s.from)} → ${when(s.to)}: ${s.to.title || ''}`),
      s.index ? el('p', { className: 'index-change' }, indexChangeText(s.index).replace(/`/g, '')) : null,
      configSame ? el('p', null, 'config.json unchanged.') : [
        el('p', { className: 'whole' }, s.error ? `Not planned: ${s.error}.` : `The whole change: ${s.deltas.length ? deltaTexts(s.deltas).join('; ') : 'no effect on memory or cost'}.`),
        el('div', { className: 'table-wrap' }, el('table', { className: 'diff-table' },
          el('thead', null, el('tr', null, ['Field', 'Before', 'After', 'Effect alone'].map((h) => el('th', { scope: 'col' }, h)))), el('tbody', null, rows)))]);
  }

  return { open };
}

// A file of the repo at a commit, or null where it is missing (other failures are thrown).
async function optionalFile(hub, id, revision, name) {
  try { return await hub.file(id, revision, name); } catch (e) { if (e.kind === 'not_found') return null; throw e; }
}

// web/src/parallel-view.js: the multi-GPU panel, shown when the `parallel` option is set: the
// report's `parallel` section (docs/api.md; core/report/report_sections.cpp parallel_report) as one
// rank's memory by component and by phase at the chosen N, the topology of that N on the priced
// card, the smallest N per card and strategy (a "not recommended" N marked, with the core's
// reason), and the assumptions of the per-rank model. Not a planner: every number is the report's.
// parallelView(report, h) takes its helpers in `h` and touches no global; parallelSection(report,
// ctx) is the hook render.js calls, handing over the page's helpers.

import { DASH, bytes, bytesColumn, cardNames, el, int, isNum, list, text } from './format.js';
import { rowHead, table } from './render.js';

const PARALLEL_LABELS = { none: 'one card', ddp: 'DDP', fsdp: 'FSDP', fsdp2: 'FSDP2', hsdp: 'HSDP', zero1: 'ZeRO-1', zero2: 'ZeRO-2', zero3: 'ZeRO-3' };
const parallelLabel = (s, offload) => `${PARALLEL_LABELS[s] || String(s)}${offload ? ' + offload' : ''}`;

function parallelTopologyText(t, gpus, cardName, h) {
  return [`${h.int(gpus)} × ${cardName} over ${h.int(t.nodes)} node${t.nodes === 1 ? '' : 's'} of up to ${h.int(t.cards_per_node)} cards; within a node ${h.text(t.intra_node)}`,
    t.inter_node ? `; between nodes ${t.inter_node}` : '', '.',
    t.recommended ? '' : ' Not recommended.', t.note ? ` ${t.note}` : ''].join('');
}

export function parallelView(r, h) {
  const x = r.parallel;
  if (!x || typeof x !== 'object') return null;
  const { el } = h;
  const l = x.layout || {};
  const names = h.cardNames(r.cards);
  const cardOf = (id) => h.list(r.cards).find((c) => c.id === id) || { id, name: id };
  const val = (v) => (h.isNum(v) ? String(v) : null);
  const title = `Multi-GPU: ${parallelLabel(x.strategy)} over ${h.int(l.gpus)} GPU${l.gpus === 1 ? '' : 's'}`;
  const layout = el('p', { className: 'muted', id: 'parallel-layout' },
    `dp ${h.int(l.dp)} · shard group ${h.int(l.shard_group)} · tp ${h.int(l.tp)} · cp ${h.int(l.cp)} · ep ${h.int(l.ep)} · reshard_after_forward ${h.int(l.reshard_after_forward)}`,
    l.offload_optimizer ? ' · optimizer offloaded' : '', l.offload_params ? ' · parameters offloaded' : '',
    `; batch ${h.int(x.batch)} per rank at ${h.int(x.seq)} tokens.`);
  if (!x.supported) {
    return el('section', { id: 'parallel', className: 'block', 'aria-labelledby': 'parallel-h' },
      el('h2', { id: 'parallel-h' }, title), layout, el('p', { className: 'note', id: 'parallel-note' }, h.text(x.note)));
  }

  const pr = x.per_rank || {};
  const comps = h.list(pr.components).filter((c) => c.bytes > 0);
  const col = h.bytesColumn([...comps.map((c) => c.bytes), pr.peak_bytes, pr.reserved_bytes, pr.host_bytes]);
  const perRank = h.table(`One rank of ${h.int(l.gpus)} at the peak`, ['Component', '#Memory'], [
    comps.map((c) => el('tr', { dataset: { component: c.id } }, h.rowHead(h.text(c.label)), el('td', { className: 'num bytes', 'data-value': val(c.bytes) }, col(c.bytes)))),
    el('tr', { className: 'sel' }, h.rowHead(`Peak allocated (${h.text(pr.peak_event || pr.peak_phase)})`), el('td', { className: 'num', id: 'parallel-peak', 'data-value': val(pr.peak_bytes) }, col(pr.peak_bytes))),
    el('tr', null, h.rowHead('The card must hold'), el('td', { className: 'num', id: 'parallel-reserved', 'data-value': val(pr.reserved_bytes) }, el('strong', null, col(pr.reserved_bytes)))),
    pr.host_bytes > 0 ? el('tr', null, h.rowHead('Host memory (offloaded)'), el('td', { className: 'num', id: 'parallel-host', 'data-value': val(pr.host_bytes) }, col(pr.host_bytes))) : null,
  ], 'per-rank');
  const phaseCol = h.bytesColumn(h.list(pr.phases).map((p) => p.bytes));
  const phases = h.list(pr.phases).length ? h.table('Peak of each phase, one rank', ['Phase', '#Allocated'],
    h.list(pr.phases).map((p) => el('tr', { className: p.name === pr.peak_phase ? 'sel' : '', dataset: { phase: p.name } },
      h.rowHead(String(p.name).replace(/_/g, ' ')), el('td', { className: 'num', 'data-value': val(p.bytes) }, phaseCol(p.bytes)))), 'phases') : null;
  const host = h.list(pr.host_components).filter((c) => c.bytes > 0);
  const hostTable = host.length ? h.table('Offloaded to host memory, per rank', ['Component', '#Memory'],
    host.map((c) => el('tr', { dataset: { component: c.id } }, h.rowHead(h.text(c.label)), el('td', { className: 'num', 'data-value': val(c.bytes) }, h.bytes(c.bytes)))), 'host') : null;

  const priced = x.priced_card ? cardOf(x.priced_card) : null;
  const onPriced = priced ? el('p', { id: 'parallel-fits' }, `On ${names(priced)} (the priced card, ${h.bytes(priced.capacity_bytes)} usable): `,
    el('strong', null, x.fits_priced ? 'one rank fits.' : 'one rank does not fit.')) : null;
  const topology = x.topology && priced ? el('p', { id: 'parallel-topology', className: x.topology.recommended ? '' : 'not-recommended' },
    parallelTopologyText(x.topology, l.gpus, names(priced), h)) : null;

  // The smallest N per card: one column per strategy, in the report's order.
  const strategies = h.list((h.list(x.cards)[0] || {}).smallest).map((s) => ({ key: s.strategy + (s.offload ? '+offload' : ''), label: parallelLabel(s.strategy, s.offload) }));
  const rows = h.list(x.cards).map((c) => {
    const bad = h.list(c.smallest).filter((s) => s.gpus !== null && s.topology && !s.topology.recommended);
    return el('tr', { className: bad.length ? 'not-recommended' : '', dataset: { card: c.id } },
      h.rowHead([names(c), c.interconnect ? el('small', { className: 'muted' }, c.interconnect === 'none' ? ' PCIe only' : ` ${c.interconnect}`) : null]),
      h.list(c.smallest).map((s) => {
        const key = s.strategy + (s.offload ? '+offload' : '');
        if (s.gpus === null) return el('td', { className: 'num none', dataset: { strategy: key }, title: 'No N the core searched fits one rank on this card.' }, h.DASH);
        const warn = s.topology && !s.topology.recommended;
        return el('td', { className: `num${warn ? ' not-recommended' : ''}`, dataset: { strategy: key }, 'data-value': val(s.gpus),
          title: [`${h.int(s.gpus)} GPUs, ${h.bytes(s.per_rank_reserved_bytes)} per rank`, s.host_bytes > 0 ? `, ${h.bytes(s.host_bytes)} host memory per rank` : '', s.topology && s.topology.note ? `. ${s.topology.note}` : ''].join('') },
        warn ? el('span', { 'aria-hidden': 'true' }, '⚠ ') : null, el('span', { className: 'main' }, h.int(s.gpus)),
        warn ? el('span', { className: 'visually-hidden' }, ' not recommended') : null,
        s.host_bytes > 0 ? el('small', null, ` host ${h.bytes(s.host_bytes)}`) : null);
      }),
      el('td', { className: 'reason' }, bad.length ? h.text(bad[0].topology.note) : ''));
  });
  const smallest = rows.length === 0 ? null : h.table(`Smallest N per card and strategy at batch ${h.int(x.batch)} (one rank must fit the card)`,
    ['Card', ...strategies.map((s) => `#${s.label}`), 'Not recommended because'], rows, 'smallest');

  const assumptions = h.list(x.assumptions).length ? el('details', { id: 'parallel-assumptions' }, el('summary', null, `What the per-rank model assumes (${h.list(x.assumptions).length})`),
    el('ul', { className: 'notes' }, h.list(x.assumptions).map((a) => el('li', { dataset: { id: a.id } }, h.text(a.text), el('small', { className: 'muted' }, ` ${h.text(a.source)}`))))) : null;

  return el('section', { id: 'parallel', className: 'block', 'aria-labelledby': 'parallel-h' },
    el('h2', { id: 'parallel-h' }, title), layout, x.note ? el('p', { className: 'note', id: 'parallel-note' }, h.text(x.note)) : null,
    onPriced, topology,
    perRank, phases, hostTable,
    smallest, assumptions);
}

// The hook render.js calls, handing the page's helpers over.
export function parallelSection(r) {
  return parallelView(r, { el, table, rowHead, bytes, bytesColumn, int, text, list, isNum, DASH, cardNames });
}

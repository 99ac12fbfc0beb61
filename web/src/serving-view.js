// web/src/serving-view.js: the serving panel: the report's `serving` section (docs/api.md;
// core/report/report_serving.cpp) as the engine, its knobs, the priced card's budget, a table per
// card (fits, weights, KV cache, blocks, concurrency, tokens/s, $ per M output tokens), the notes
// the engine's model used and one line on how that engine computes its concurrency. Open in serve
// mode, folded otherwise. Not a planner: every number is the report's; the page only words them.
// servingView(report, h) takes its helpers in `h` (el, table, bytes, …) and touches no global;
// servingSection(report, ctx) is the hook render.js calls, handing over the page's helpers.

import { DASH, bytes, bytesColumn, cardNames, el, int, isNum, list, text, usd } from './format.js';
import { rowHead, table } from './render.js';

const SERVING_ENGINES = {
  hf: 'Hugging Face generate()',
  vllm: 'vLLM',
  sglang: 'SGLang',
  tgi: 'TGI',
  llamacpp: 'llama.cpp',
};

// A fraction as the report holds it, without binary noise (0.9, not 0.9000000000000001).
const servingFraction = (v) => (typeof v === 'number' && Number.isFinite(v) ? String(Number(v.toPrecision(6))) : '—');

// The knobs each engine's budget reads, by the engine's own name, with the option that sets each
// (core/plan/engines.cpp engine_budget: which knob means what per engine).
function servingKnobs(engine, row, h) {
  const k = row.knobs || {};
  const n = (v) => h.int(v);
  switch (engine) {
    case 'vllm': return [
      ['gpu_memory_utilization', servingFraction(k.memory_fraction), 'gpu_memory_utilization'],
      ['max_num_seqs', n(k.max_seqs), 'max_num_seqs'],
      ['max_num_batched_tokens', n(k.profile_tokens), 'max_num_batched_tokens'],
      ['block_size', n(row.block_tokens), 'block_size'],
      ['CUDA graphs in the budget', h.bytes(row.cuda_graph_bytes), 'cuda_graph_bytes']];
    case 'sglang': return [
      ['mem_fraction_static', servingFraction(k.memory_fraction), 'mem_fraction_static'],
      ['chunked_prefill_size', n(k.profile_tokens), null],
      ['cuda_graph_max_bs', n(k.cuda_graph_max_bs), null],
      ['max running requests', n(k.max_seqs), null]];
    case 'tgi': return [
      ['cuda_memory_fraction × TGI_WIGGLE_ROOM', servingFraction(k.memory_fraction), 'cuda_memory_fraction'],
      ['max_batch_prefill_tokens', n(k.profile_tokens), 'max_batch_prefill_tokens'],
      ['max_concurrent_requests', n(k.max_seqs), null],
      ['BLOCK_SIZE', n(row.block_tokens), null]];
    case 'llamacpp': return [
      ['-ngl (layers on the card)', n(k.gpu_layers), 'n_gpu_layers'],
      ['output layer on the card', k.output_on_gpu ? 'yes' : 'no', 'n_gpu_layers'],
      ['n_ubatch (compute buffer tokens)', n(k.profile_tokens), null],
      ['-fa (flash attention)', k.flash_attention === false ? 'off' : 'on', 'attention']];
    default: return [['memory fraction', servingFraction(k.memory_fraction), null]];
  }
}

// How the engine turns its KV budget into concurrent sequences, with the numbers of one card's row
// (the rule: core/plan/engines.cpp; docs/memory-model.md, "Serving engines").
function servingRule(s, row, cardName, h) {
  const k = row.knobs || {};
  const on = `On ${cardName}: `;
  const len = `max_model_len ${h.int(s.max_model_len)}`;
  const seq = `one sequence of ${len} (${h.bytes(row.sequence_bytes)})`;
  const result = `= ${h.int(row.concurrency)}.`;
  switch (s.engine) {
    case 'vllm':
      return `${on}vLLM sizes the KV cache as gpu_memory_utilization ${servingFraction(k.memory_fraction)} × ${h.bytes(row.capacity_bytes)} − weights − the profile run's peak − non-torch memory${row.cuda_graph_bytes > 0 ? ' − CUDA graphs' : ''} = ${h.bytes(row.kv_bytes)}, ${h.int(row.blocks)} blocks of ${h.int(row.block_tokens)} tokens; concurrency = min(max_num_seqs ${h.int(k.max_seqs)}, KV cache ÷ the pages of ${seq}) ${result}`;
    case 'sglang':
      return `${on}SGLang's token pool is mem_fraction_static ${servingFraction(k.memory_fraction)} × ${h.bytes(row.capacity_bytes)} − weights − the CUDA context = ${h.int(row.kv_tokens)} tokens (${h.bytes(row.kv_bytes)}); concurrency = min(max running requests ${h.int(k.max_seqs)}, pool ÷ ${seq}) ${result}`;
    case 'tgi':
      return `${on}TGI keeps cuda_memory_fraction × TGI_WIGGLE_ROOM = ${servingFraction(k.memory_fraction)} of ${h.bytes(row.capacity_bytes)}, less weights, the warmup prefill of max_batch_prefill_tokens ${h.int(k.profile_tokens)} and the CUDA context: ${h.int(row.kv_tokens)} tokens of KV (max_batch_total_tokens) in blocks of ${h.int(row.block_tokens)}; concurrency = min(max_concurrent_requests ${h.int(k.max_seqs)}, KV ÷ ${seq}) ${result}`;
    case 'llamacpp':
      return `${on}llama.cpp keeps the K and V caches of the ${h.int(k.gpu_layers)} offloaded layers in what the card has after the GGUF weights, a compute buffer of n_ubatch ${h.int(k.profile_tokens)} tokens and the CUDA context (${h.bytes(row.kv_bytes)}); each slot also takes its share of the compute buffer over its cells (the KQ mask${k.flash_attention === false ? ' and, with -fa off, one layer\'s f32 scores' : ''}: ${h.bytes(row.compute_bytes_per_sequence || 0)}, inside the sequence's bytes); slots (-np, with -c = slots × max_model_len) = ⌊KV ÷ ${seq}⌋ ${result}`;
    default:
      return `${on}generate() runs a static batch; concurrency is the card solver's largest serve batch: the weights, the prefill working set and every sequence's KV cache grown to serve_seq ${h.int(s.max_model_len)} tokens (${h.bytes(row.sequence_bytes)} each) ${result}`;
  }
}

export function servingView(r, h) {
  const s = r.serving;
  if (!s || typeof s !== 'object') return null;
  const { el } = h;
  const rows = h.list(s.rows);
  const names = h.cardNames(r.cards);
  const cardName = (id) => names(h.list(r.cards).find((c) => c.id === id) || { id, name: id });
  const engine = SERVING_ENGINES[s.engine] || h.text(s.engine);
  const serving = (r.plan || {}).mode === 'serve';
  // The priced card's row speaks for the engine; without one, the first card that fits.
  const main = s.priced || rows.find((x) => x.fits) || rows[0];
  const perRank = s.tp > 1 ? ' per rank' : '';
  const val = (v) => (h.isNum(v) ? String(v) : null);
  const rate = (v) => (h.isNum(v) && v > 0 ? h.int(Math.round(v)) : h.DASH);

  const knobs = main ? servingKnobs(s.engine, main, h) : [];
  const common = [['tp', h.int(s.tp), 'tp'], ['max_model_len', h.int(s.max_model_len), 'serve_seq'],
    ['prompt + output tokens', `${h.int(s.prompt_tokens)} + ${h.int(s.output_tokens)}`, 'prompt_tokens'],
    ['MFU (prefill)', servingFraction(s.mfu), 'mfu'], ['bandwidth efficiency (decode)', servingFraction(s.bandwidth_efficiency), 'bandwidth_efficiency']];
  const knobList = el('dl', { className: 'summary knobs', id: 'serving-knobs' },
    [...common, ...knobs].map(([label, value, option]) => [el('dt', null, option ? h.optionLink(option, label) : label), el('dd', null, value)]));

  const summary = main ? el('p', { id: 'serving-priced' }, `On ${cardName(main.card)}${s.priced ? ' (the priced card)' : ''}: `,
    main.fits ? [el('strong', null, `${h.int(main.concurrency)} sequences`), ` of ${h.int(s.max_model_len)} tokens at once; a batch of ${h.int(main.workload_batch)} at ${h.int(s.prompt_tokens)} + ${h.int(s.output_tokens)} tokens`,
      main.priced ? `, ${rate(main.output_tokens_per_second)} output tokens/s per card, ${h.usd(main.usd_per_m_output)} per million output tokens (${h.usd(main.usd_per_m_input)} per million input).` : '.']
      : 'the engine cannot hold the weights and its working memory.') : null;

  const budget = main ? (() => {
    const terms = [['Card (torch total)', main.capacity_bytes], ['Engine budget', main.budget_bytes], ['Weights', main.weights_bytes],
      ['Activations peak', main.activation_bytes], ['CUDA graphs', main.cuda_graph_bytes], ['Non-torch (context, buffers)', main.non_torch_bytes], ['KV cache', main.kv_bytes]];
    const col = h.bytesColumn(terms.map((t) => t[1]));
    return h.table(`Budget on ${cardName(main.card)}${perRank}`, ['Term', '#Memory'],
      terms.map(([label, b]) => el('tr', null, h.rowHead(label), el('td', { className: 'num', 'data-value': val(b) }, col(b)))), 'serving-budget');
  })() : null;

  const body = rows.map((x) => {
    const cap = x.knobs && x.knobs.max_seqs > 0 && x.concurrency === x.knobs.max_seqs;
    const blocks = x.block_tokens > 1 ? `${h.int(x.blocks)} × ${h.int(x.block_tokens)}` : `${h.int(x.kv_tokens)} tokens`;
    return el('tr', { className: x.card === (s.priced || {}).card ? 'priced' : '', dataset: { card: x.card } },
      h.rowHead(cardName(x.card)),
      el('td', { className: 'fits' }, x.fits ? 'yes' : 'no', x.kv_replicated ? el('small', null, ' KV heads replicated') : null),
      el('td', { className: 'num weights', 'data-value': val(x.weights_bytes) }, h.bytes(x.weights_bytes)),
      el('td', { className: 'num kv', 'data-value': val(x.kv_bytes) }, x.fits ? h.bytes(x.kv_bytes) : h.DASH),
      el('td', { className: 'num blocks' }, x.fits ? blocks : h.DASH),
      el('td', { className: 'num concurrency', 'data-value': val(x.concurrency) }, el('span', { className: 'main' }, x.fits ? h.int(x.concurrency) : 'does not fit'),
        cap ? el('small', null, ' (the cap)') : null),
      el('td', { className: 'num batch' }, x.fits ? h.int(x.workload_batch) : h.DASH,
        x.fits && x.knobs && x.knobs.max_seqs > 0 && x.workload_batch === x.knobs.max_seqs ? el('small', null, ' (the cap)') : null),
      el('td', { className: 'num prefill' }, rate(x.input_tokens_per_second)),
      el('td', { className: 'num decode' }, rate(x.output_tokens_per_second)),
      el('td', { className: 'num usd-out', 'data-value': x.priced ? val(x.usd_per_m_output) : null }, x.priced ? h.usd(x.usd_per_m_output) : x.fits ? 'no price' : h.DASH));
  });
  const perCard = h.table(null, ['Card', 'Fits', `#Weights${perRank}`, `#KV cache${perRank}`, '#KV blocks × tokens', `#Sequences at ${h.int(s.max_model_len)}`,
    `#Batch at ${h.int(s.prompt_tokens)} + ${h.int(s.output_tokens)}`, '#Input tok/s (prefill)', '#Output tok/s (decode)', '#$/M output'], body, 'serving');

  const notes = el('ul', { className: 'notes', id: 'serving-notes' },
    el('li', null, `Roofline: prefill at the card's dense peak × MFU ${servingFraction(s.mfu)}; a decode step reads the weights and the batch's KV cache at ${servingFraction(s.bandwidth_efficiency)} of the peak bandwidth. Tokens/s are per card over one round (the batch's prompts, then ${h.int(s.output_tokens)} decode steps); $/M output charges the whole round to the output tokens.`),
    h.list(s.notes).map((n) => el('li', null, h.text(n))));

  // The rule is worded on a card that fits (the priced one when it does).
  const ruleRow = main && main.fits ? main : rows.find((x) => x.fits);
  const details = [el('p', { id: 'serving-rule' }, ruleRow ? servingRule(s, ruleRow, cardName(ruleRow.card), h)
    : `No card of the catalog holds the weights and ${engine}'s working memory at tp ${h.int(s.tp)}.`),
    el('div', { className: 'two' }, el('div', null, main ? el('p', { className: 'muted' }, `Settings as ${engine} takes them on ${cardName(main.card)} (some defaults follow the card's size: see the table)`) : null, knobList),
      budget), perCard, notes];
  return el('section', { id: 'serving', className: `block${serving ? ' serving-open' : ''}`, 'aria-labelledby': 'serving-h' },
    el('h2', { id: 'serving-h' }, `Serving with ${engine}`),
    summary,
    serving ? details : el('details', { id: 'serving-more' }, el('summary', null, `The ${engine} budget, concurrency and cost on every card (choose the serve mode to keep this open)`), details));
}

// The hook render.js calls, handing the page's helpers over.
export function servingSection(r, ctx) {
  return servingView(r, { el, table, rowHead, bytes, bytesColumn, int, usd, text, list, isNum, DASH, cardNames, optionLink: ctx.optionLink });
}

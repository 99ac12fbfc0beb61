// web/src/exports/settings.js: the planned settings every training-config export writes, read
// from the core's report (plan.*, cost.priced, the priced card's split) and, for what the report
// does not echo (LoRA targets, modules_to_save, double quant, the DeepSpeed bucket), from the
// options the plan was asked with. Never recomputed here: a number the report does not hold is
// not invented. Shared by the page's export menu and the CLI's --export (by require()).

// exportSettings(report, {options, configText, modelId}) → the settings, or throws on a failed plan.
export function exportSettings(report, ctx) {
  if (!report || !report.ok || !report.plan) throw new Error('There is no plan to export: the config did not plan.');
  const p = report.plan;
  const o = (ctx && ctx.options) || {};
  const priced = (report.cost || {}).priced || {};
  const card = (report.cards || []).find((c) => c.id === priced.card) || null;
  const split = card && card.split ? card.split[p.mode] : null;
  // The layout: the priced run's strategy and card count on the priced card. A pipeline cut has
  // no accelerate/Trainer equivalent: its ZeRO alternative from the same split is used, and said.
  let strategy = priced.strategy || 'single', cards = priced.cards || 1, layoutNote = '', unsupported = '';
  if (strategy === 'pipeline') {
    const alt = (split && split.alternatives || []).filter((a) => /^zero/.test(a.strategy))
      .sort((a, b) => a.card_hours - b.card_hours || a.cards - b.cards)[0];
    if (alt) {
      layoutNote = `cardfit's cheapest layout is a ${priced.cards}-stage pipeline cut, which this tool does not configure; this uses the plan's ${alt.strategy} alternative on ${alt.cards} cards instead.`;
      strategy = alt.strategy;
      cards = alt.cards;
    } else {
      unsupported = `The plan needs a ${priced.cards}-stage pipeline cut on ${card ? card.name : priced.card} (no ZeRO layout fits), which accelerate, DeepSpeed configs, TRL, Axolotl and torchtune do not set up: pick a card with more memory (the card option) and export again.`;
    }
  }
  const adapted = p.mode === 'lora' || p.mode === 'qlora';
  const targets = Array.isArray(o.lora_targets) && o.lora_targets.length ? o.lora_targets.map(String) : 'all-linear';
  return {
    modelId: (ctx && ctx.modelId) || '',
    modelType: (report.model || {}).model_type || '',
    configText: (ctx && ctx.configText) || '',
    headline: report.headline || '',
    mode: p.mode,
    microBatch: p.batch,
    gradAccum: p.grad_accum || 1,
    seq: p.seq,
    precision: p.precision,
    gradCkpt: !!p.grad_ckpt,
    optimizer: p.optimizer,
    optimizerImpl: p.optimizer_impl || 'foreach',
    attention: p.attention || 'sdpa',
    lora: adapted ? {
      rank: p.lora_rank,
      // lora_alpha does not change memory and is not planned; 2 × rank as tests/accuracy/measure.py.
      alpha: 2 * p.lora_rank,
      dropout: p.lora_dropout,
      targets,
      modulesToSave: Array.isArray(o.modules_to_save) ? o.modules_to_save.map(String) : [],
    } : null,
    quant: p.mode === 'qlora' ? { kind: p.qlora_quant || 'nf4', doubleQuant: typeof p.double_quant === 'boolean' ? p.double_quant : o.double_quant !== false } : null,
    deepspeedBucket: Number.isSafeInteger(o.deepspeed_bucket) ? o.deepspeed_bucket : null,
    strategy,              // 'single' (one card, or data parallel over `cards`), 'zero1', 'zero2', 'zero3'
    cards,
    card: priced.card || '',
    cardName: card ? card.name : (priced.card || ''),
    layoutNote,
    unsupported,           // non-empty: no training config can express the plan's layout
    peakBytes: p.peak_bytes,
    reservedBytes: p.reserved_bytes,
  };
}

// Names of the same choices in the HF stack (Trainer's `optim`, torch dtypes).
const HF_OPTIM = { adamw: 'adamw_torch', adamw8bit: 'adamw_bnb_8bit', adafactor: 'adafactor', sgd: 'sgd' };
function hfOptim(s) {
  if (s.optimizer === 'adamw' && s.optimizerImpl === 'fused') return 'adamw_torch_fused';
  return HF_OPTIM[s.optimizer] || 'adamw_torch';
}
// The Trainer's `optim` names no Muon (transformers OptimizerNames): the exports say so beside it.
const muonNote = (s) => (s.optimizer === 'muon'
  ? ['# cardfit planned Muon (torch.optim.Muon on the hidden 2-D weights, AdamW on embeddings, head and vectors): ' +
     'the Trainer has no Muon optim, so pass both to it yourself (optimizers=...); the optim below steps AdamW only.']
  : []);
// The dtype the weights are loaded in: bf16-mixed/fp16-mixed keep fp32 master weights for a full
// fine-tune (autocast casts per op) and a 16-bit frozen base for LoRA; pure bf16 loads bf16.
function weightDtype(s) {
  if (s.precision === 'bf16') return 'bfloat16';
  if (s.precision === 'fp32') return 'float32';
  if (s.mode === 'full') return 'float32';
  return s.precision === 'fp16-mixed' ? 'float16' : 'bfloat16';
}
const mixedPrecision = (s) => (s.precision === 'fp16-mixed' ? 'fp16' : s.precision === 'fp32' ? 'no' : 'bf16');
const zeroStage = (s) => ({ zero1: 1, zero2: 2, zero3: 3 }[s.strategy] || 0);
const GB = (b) => `${(b / 1e9).toFixed(2)} GB`;

// Passed to each target's render(settings, helpers): the targets are loaded alike by the page
// (one bundle) and by Node (one module each).
export const EXPORT_HELPERS = { hfOptim, muonNote, weightDtype, mixedPrecision, zeroStage, GB };


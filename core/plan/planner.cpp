// make_plan: defaults resolved, the requested configuration, batch-1 summaries per mode, the card
// table (exact largest batch in closed form, borderline band, multi-card cuts), cost.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "../error.hpp"
#include "checkpoint_quant.hpp"
#include "cost.hpp"
#include "for_size.hpp"
#include "graph_costs.hpp"
#include "largest_holding.hpp"
#include "plan.hpp"
#include "split.hpp"
#include "stacks.hpp"

namespace cardfit {

// Derived by scripts/accuracy over tests/accuracy (docs/accuracy.md, "Borderline band"): the 90th
// percentile of measured / estimated peak over the single-GPU points whose peak the model
// under-estimates. Rerun scripts/accuracy after changing the memory model; it reports drift.
const double kBorderlineFactor = 1.193;

namespace {
constexpr int64_t kBillion = 1000000000;

// Reference pages: 512 tokens, 2048 for large models, capped at the model's context.
int64_t default_seq(const Model& m) {
  const int64_t want = m.parameter_count() >= kBillion ? 2048 : 512;
  return m.dims.max_positions > 0 ? std::min(want, m.dims.max_positions) : want;
}

int64_t default_serve_seq(const Model& m, int64_t train_seq) {
  const int64_t want = m.parameter_count() >= kBillion ? 4096 : train_seq;
  return m.dims.max_positions > 0 ? std::min(want, m.dims.max_positions) : want;
}

// The largest peak p whose estimate × factor (rounded up, as the borderline band reads it) a card
// still holds, given the largest peak it holds at all (MemoryModel::largest_peak): ceil(p × factor)
// <= fits_peak, monotone in p, so searched from its inverse exactly. The same for every mode.
int64_t safe_peak(int64_t fits_peak, double factor) {
  if (fits_peak < 0) return -1;
  const int64_t guess = factor >= 1 ? int64_t(double(fits_peak) / factor) : fits_peak;  // option range: [1, 4]
  return largest_holding(0, fits_peak, guess,
                         [&](int64_t p) { return int64_t(std::ceil(double(p) * factor)) <= fits_peak; });
}

// The LoRA / quantization / float8 policies in effect (docs/memory-model.md §4), each with the code
// it was read from; listed only where the plan uses them.
template <typename Add>
void add_lora_quant_assumptions(const Plan& p, const Model& m, Add& add) {
  const Options& o = p.options;
  const bool adapted_mode = o.mode == Mode::lora || o.mode == Mode::qlora;
  std::string wrapped;
  for (const auto& b : m.blocks)
    for (const auto& n : b.nodes)
      if (adapted_mode && (n.op == Op::head || n.op == Op::embedding || n.op == Op::position_embedding) &&
          is_lora_target(n, o))
        wrapped += (wrapped.empty() ? "" : ", ") + n.name;
  if (!wrapped.empty())
    add("lora_head_embedding",
        "LoRA on " + wrapped + ": lora.Linear keeps the frozen head and adds A (r x hidden) and B (vocab x r), keeping "
        "A's (dropped-out) input and its r-wide output, with B's vocabulary-wide output live in forward; lora.Embedding "
        "adds lora_embedding_A (r x rows) and lora_embedding_B (dim x r), keeping the ids and the r-wide rows looked "
        "up from A (no dropout).",
        "lora_targets", wrapped, "PEFT src/peft/tuners/lora/layer.py (Linear, Embedding)");
  if (o.mode == Mode::qlora && o.quantize == QuantScope::adapted)
    add("quantize",
        "Only the LoRA-wrapped linears are quantized; the others load in the checkpoint's 16-bit dtype (as "
        "BitsAndBytesConfig llm_int8_skip_modules leaves the modules it names) and, with kbit_upcast, "
        "prepare_model_for_kbit_training casts them to fp32 like every other non-quantized parameter.",
        "quantize", quant_scope_name(o.quantize),
        "transformers integrations/bitsandbytes.py replace_with_bnb_linear; PEFT prepare_model_for_kbit_training");
  if (o.mode == Mode::qlora && (o.qlora_quant == QuantKind::nf4 || o.qlora_quant == QuantKind::fp4))
    add("bnb_version",
        o.bnb_version == BnbVersion::v0_39
            ? "bitsandbytes 0.39.0-0.43.1: MatMul4Bit keeps its input A (ctx.tensors = (A, B)), the 16-bit "
              "x.to(compute_dtype) of Linear4bit.forward: a copy per linear where the input is fp32."
            : "bitsandbytes 0.43.2+: MatMul4Bit keeps only the quantized weight (ctx.tensors = (None, B)); the "
              "input is not kept.",
        "bnb_version", bnb_version_name(o.bnb_version),
        "bitsandbytes bitsandbytes/autograd/_functions.py MatMul4Bit, commit 9e753741 (2024-07-16, #1270)");
  if (o.float8 && o.mode == Mode::full)
    add("float8",
        "torchao Float8Linear on every nn.Linear but the head: it saves its high-precision input (the autocast "
        "dtype) and the weight itself (no autocast cast cache for these weights), and casts weight, input and "
        "grad_output to fp8 transiently (1 byte each) in forward and backward. A card needs fp8 tensor cores "
        "(taken as a published fp8 rate in data/cards.json).",
        "float8", "true", "torchao torchao/float8/float8_linear.py matmul_with_hp_or_float8_args (v0.6.0+)");
}

std::string num(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

// Text, once per plan: compiled for size (for_size.hpp; the rest of this file is a hot path). With
// validate.cpp at -Os it saved 7.5 kB of cardfit.js gzipped, re-plans unchanged within the bench's
// spread (2026-12-03).
CARDFIT_FOR_SIZE void add_assumptions(Plan& p, const Model& m, const Catalog& cat) {
  const Options& o = p.options;
  auto add = [&](std::string id, std::string text, std::string option, std::string value, std::string source) {
    p.assumptions.push_back({std::move(id), std::move(text), std::move(option), std::move(value), std::move(source)});
  };
  const Dropouts d = model_dropouts(m, o);
  add("seq", "Training tokens per sample (512, or 2048 for models of 1B+ parameters, capped at the context).",
      "seq", std::to_string(p.seq), "reference pages");
  add("serve_seq", "Serving context per sequence (the training length, or 4096 for models of 1B+).", "serve_seq",
      std::to_string(p.serve_seq), "reference pages");
  add("precision",
      "bf16-mixed/fp16-mixed: fp32 master weights under torch.autocast (linear weights cast to 16 bit and cached "
      "for the step); bf16: weights, gradients and optimizer states in bf16, autocast on (Trainer --bf16); fp32: no "
      "autocast.",
      "precision", precision_name(o.precision), "docs/memory-model.md#precision");
  add("optimizer",
      "Optimizer states take the parameter's dtype (torch.optim); foreach AdamW materialises one state-sized "
      "temporary at the step (fused: none); bitsandbytes 8-bit states for tensors of 4096+ elements; Adafactor "
      "factored fp32 second moments.",
      "optimizer", std::string(optimizer_name(o.optimizer)) + " (" + optimizer_impl_name(o.optimizer_impl) + ")",
      "docs/memory-model.md#optimizer");
  if (o.optimizer == Optimizer::muon && o.mode != Mode::serve)
    add("muon",
        "Muon (torch.optim.Muon, nesterov, use_addmm false) steps every hidden weight matrix and LoRA adapter of a "
        "hidden linear: one momentum buffer in the gradient's dtype. Its step holds, for the largest matrix (an "
        "expert at a time), the nesterov update in the gradient's dtype, four bf16 matrices of its size in the "
        "Newton-Schulz iteration and two bf16 squares of its short side. Embeddings, the head, norms and "
        "biases take AdamW (optimizer_impl), stepped after it.",
        "optimizer", "muon", "torch/optim/_muon.py @098e03f (Muon docstring: AdamW for the rest)");
  add("grad_accum",
      "Gradient accumulation over more than one micro-batch keeps the gradients allocated through every forward "
      "and backward; with one, zero_grad(set_to_none=True) frees them after the step.",
      "grad_accum", std::to_string(o.grad_accum), "torch.optim.Optimizer.zero_grad");
  const AttentionWhy why = attention_why(m, o, o.mode);
  const bool eager_fallback = why == AttentionWhy::no_sdpa, eager_default = why == AttentionWhy::soft_cap;
  add("attention",
      std::string("SDPA/flash kernels keep q, k, v, the output and a logsumexp, never the score matrix (HF's sdpa path repeats "
      "K/V to every head for GQA; flash_attention_2 does not); eager attention keeps the fp32 softmax and the 16-bit "
      "probabilities per head.") +
          (eager_default
               ? " Eager by default here: the config caps attention logits (attn_logit_softcapping), which SDPA "
                 "ignores; transformers' first Gemma 2 releases (v4.42 on) swapped the default sdpa for eager "
                 "(Gemma2PreTrainedModel._check_and_enable_sdpa, an explicit choice kept), later versions warn when "
                 "training with anything but eager (Gemma2ForCausalLM.forward) but refuse nothing. An explicit "
                 "attention option wins."
           : eager_fallback
               ? " Eager by default here: the model class has no SDPA path (_supports_sdpa false), so transformers "
                 "falls back to it. An explicit attention option wins."
               : ""),
      "attention", attention_name(p.attention),
      eager_default    ? "transformers models/gemma2/modeling_gemma2.py"
      : eager_fallback ? "transformers modeling_utils.py (_check_and_adjust_attn_implementation)"
                       : "docs/memory-model.md#attention");
  const bool ckpt_default = grad_ckpt_defaulted_on(o, o.mode);
  add("grad_ckpt",
      std::string("Gradient checkpointing keeps each block's input and recomputes one block at a time in backward (its "
      "activations, casts and working set).") +
          (ckpt_default ? " On by default for QLoRA: PEFT's prepare_model_for_kbit_training (use_gradient_checkpointing"
                          "=True, its default) calls gradient_checkpointing_enable(); grad_ckpt false plans without."
                        : ""),
      "grad_ckpt", p.grad_ckpt ? "true" : "false",
      ckpt_default ? "PEFT src/peft/utils/other.py prepare_model_for_kbit_training" : "docs/memory-model.md#checkpointing");
  add_lora_quant_assumptions(p, m, add);
  add("logits",
      "Loss as transformers >= 4.46 computes it: 16-bit logits upcast to fp32 inside the loss, log_softmax keeps "
      "its fp32 output; backward holds that output, its gradient and the input gradient (12 bytes per logit).",
      "", "transformers >= 4.46", "docs/memory-model.md#logits");
  add("dropout", "Dropout probabilities (hidden, attention) of this model type; each dropout keeps a 1-byte mask.",
      "dropout", num(d.hidden) + ", " + num(d.attention), "configuration class defaults");
  add("lora",
      "LoRA on every linear layer but the head (or lora_targets); adapters in fp32 (PEFT autocast_adapter_dtype), "
      "each with its own dropout (mask and output kept) when lora_dropout > 0.",
      "lora_rank", std::to_string(o.lora_rank) + ", dropout " + num(o.lora_dropout), "PEFT LoraConfig");
  const std::string bnb_clause = checkpoint_quant_clause(m, o);  // "" unless a bitsandbytes checkpoint's
  add("qlora",
      std::string("QLoRA base: ") + quant_name(o.qlora_quant) +
          (o.qlora_quant == QuantKind::nf4 || o.qlora_quant == QuantKind::fp4
               ? (o.double_quant ? " with double quantization" : " without double quantization")
               : std::string()) +
          (effective_options(o).kbit_upcast.value_or(true) && o.qlora_quant != QuantKind::gptq
               ? "; prepare_model_for_kbit_training casts embeddings, norms and head to fp32"
               : "; non-quantized parameters stay 16-bit") +
          (bnb_clause.empty() ? std::string()
                              : "; " + bnb_clause + ", the base transformers loads a pre-quantized checkpoint as "
                                "(the options, given, win)"),
      "qlora_quant", quant_name(o.qlora_quant),
      bnb_clause.empty() ? "bitsandbytes, PEFT prepare_model_for_kbit_training"
                         : "bitsandbytes, PEFT prepare_model_for_kbit_training; transformers "
                           "quantizers/quantizer_bnb_4bit.py, quantizers/auto.py merge_quantization_configs");
  if (!m.stored_format.empty()) {
    // Published quantized weights (quantization_config): served as stored, trained dequantized.
    const auto& stored = m.stored_weights;
    add("stored_format",
        "The checkpoint stores its weights as " + m.stored_format + " (quantization_config.quant_method). Serving " +
            (o.serve_dtype_set ? std::string("uses serve_dtype ") + weight_dtype_name(o.serve_dtype) + " as given"
             : stored ? "holds them as stored (" + stored->label + "), as vLLM loads a pre-quantized checkpoint"
                      : std::string("uses serve_dtype bf16: cardfit does not size this format's stored tensors")) +
            ". Training plans the base dequantized to the training precision (" + precision_name(o.precision) +
            ": transformers dequantizes mxfp4 and fp8 checkpoints on load for training, Mxfp4Config / "
            "FineGrainedFP8Config dequantize=True; PEFT adapts a gptq / awq base in place, planned here at 16 bit" +
            (m.stored_format == "compressed-tensors"
                 ? std::string("; a compressed-tensors checkpoint is decompressed to 16 bit for training "
                               "(CompressedTensorsConfig run_compressed=False)")
             : m.stored_format == "bitsandbytes"
                 ? std::string("; a pre-quantized bitsandbytes checkpoint loads as Linear4bit / Linear8bitLt, the "
                               "base QLoRA trains on, planned here with " +
                               (bnb_clause.empty() ? std::string("qlora_quant") : bnb_clause) + " for the QLoRA methods")
                 : std::string()) +
            "), and QLoRA re-quantizes that base with qlora_quant.",
        "serve_dtype", o.serve_dtype_set ? weight_dtype_name(o.serve_dtype) : "as stored",
        "transformers quantizers (quantizer_mxfp4.py, quantizer_finegrained_fp8.py, quantizer_compressed_tensors.py, "
        "quantizer_bnb_4bit.py); docs/memory-model.md#stored-format");
  }
  add("cuda_context", "CUDA context and loaded kernels outside max_memory_allocated.", "cuda_context_bytes",
      std::to_string(p.overheads.cuda_context_bytes), "data/cards.json defaults.cuda_context_bytes");
  add("allocator_reserve",
      "Caching-allocator reserve: a share of the memory after the context kept cached but not allocated "
      "(reserve = peak × f / (1 − f)).",
      "allocator_reserve", num(p.overheads.allocator_reserve_fraction),
      "data/cards.json defaults.allocator_reserve_fraction");
  add("borderline",
      "A card is borderline when it holds batch 1 at the estimate but not at the estimate × this factor (the 90th "
      "percentile of measured / estimated peak where the model under-estimates, on the measured dev set); "
      "safe_batch is the largest batch that still fits at estimate × factor.",
      "borderline_factor", num(p.borderline_factor), "docs/accuracy.md#borderline-band");
  add("split",
      "When one card cannot hold batch 1: a pipeline cut at block boundaries balancing the stages (1F1B, stage k "
      "holds min(stages − k, micro-batches) micro-batches of activations), or ZeRO-1/2/3 sharding (16-bit "
      "parameters of two blocks gathered under ZeRO-3); the fewest cards is chosen, and split.cheapest names the "
      "strategy with the fewest card-hours (pipeline bubble (m + p − 1) / m, communication assumed overlapped).",
      "", std::to_string(o.cost_batch) + " micro-batches", "docs/memory-model.md#multi-card");
  if (has_vision(m)) {
    int64_t tower = 0, text = 0;  // tokens per image through the tower, and into the text sequence
    for (const auto& b : m.blocks)
      if (b.domain == Domain::vision) {
        if (b.kind == "projector") text = b.tokens_per_image;
        else tower = std::max(tower, b.tokens_per_image);
      }
    add("images",
        "Images per sample through the vision tower: " + std::to_string(tower) + " tokens per image through the "
        "tower, " + std::to_string(text) + " image tokens per image in the text sequence (counted in seq). The "
        "tower's FLOPs, saved activations and (serving) prefill working set scale with batch × images, not with "
        "seq. A full fine-tune trains the tower; LoRA adapts its linear layers as PEFT's target_modules=\"all-linear\" "
        "does (lora_targets to restrict); a tower with nothing trainable keeps no activations (autograd records "
        "nothing before the first parameter that requires grad). 0 plans the text alone.",
        "images", std::to_string(images_per_sample(m, o)), "docs/memory-model.md#vision-towers");
  }
  if (m.audio.rule == AudioClip::Rule::fixed_window || m.audio.sized_by_seconds()) {
    int64_t tokens = 0;  // the encoder's tokens per sample, as the audio blocks hold them
    for (const auto& b : m.blocks)
      if (b.domain == Domain::audio) tokens = std::max(tokens, b.tokens_per_image);
    const std::string scale = "; the tower's FLOPs and activations scale with batch × tokens, not seq.";
    std::string text, source;
    if (m.audio.rule == AudioClip::Rule::fixed_window) {
      text = "Audio per sample: one " + std::to_string(m.audio.max_seconds) + " s window through the encoder, "
             "whatever the clip's length (the feature extractor pads every input to it; the encoder refuses "
             "any other length); audio_seconds above the window is refused.";
      source = "transformers models/whisper/feature_extraction_whisper.py, modeling_whisper.py WhisperEncoder";
    } else if (m.audio.rule == AudioClip::Rule::per_second) {
      text = "Audio per sample: " + std::to_string(tokens) + " audio tokens for " + std::to_string(m.audio.seconds) +
             " s (" + std::to_string(m.audio.tokens_per_second) + " a second" +
             (m.audio.max_seconds > 0 ? ", clips cut at " + std::to_string(m.audio.max_seconds) + " s" : "") + ")" +
             scale;
      source = "transformers models/gemma4/feature_extraction_gemma4.py, modeling_gemma4.py "
               "Gemma4AudioSubSampleConvProjection, Gemma4AudioAttention (read 2026-12-03)";
    } else {
      text = "Audio per sample: " + std::to_string(tokens) + " encoder tokens for " + std::to_string(m.audio.seconds) +
             " s (" + std::to_string(m.audio.frames_per_second) + " mel frames a second in padded chunks of " +
             std::to_string(m.audio.chunk_frames) + ", each chunk's own output length kept)" + scale;
      source = "transformers models/qwen3_omni_moe/modeling_qwen3_omni_moe.py Qwen3OmniMoeAudioEncoder";
    }
    add("audio", std::move(text), "audio_seconds", std::to_string(m.audio.seconds), std::move(source));
  }
  add("mfu", "Model FLOPs utilisation for the cost roofline (recomputation counted as executed FLOPs).", "mfu",
      num(o.mfu.value_or(cat.mfu)), cat.mfu_source);
  add("run", "Cost of a run: epochs × samples × seq tokens.", "epochs",
      std::to_string(o.epochs) + " × " + std::to_string(o.samples) + " samples", "reference pages");
  // The stack's policies (stacks.cpp), only when a stack or a policy option is chosen.
  for (auto& sa : stack_assumptions(o, p.memory[size_t(int(o.mode))].paged_bytes()))
    add(std::move(sa.id), std::move(sa.text), std::move(sa.option), std::move(sa.value), std::move(sa.source));
}
}  // namespace

Plan make_plan(const Model& m, const Options& given, const Catalog& cat, MemoryCache* cache) {
  // audio_seconds is applied to the Model before planning (arch/audio_clip.hpp with_audio_seconds,
  // as the Planner does): a Model whose clip differs would plan another length than asked.
  if (given.audio_seconds && m.audio.sized_by_seconds() && m.audio.seconds != *given.audio_seconds)
    throw Error(ErrorCode::internal, "make_plan: the Model holds " + std::to_string(m.audio.seconds) +
                                         " s of audio, the options ask " + std::to_string(*given.audio_seconds));
  const Options options = with_checkpoint_quant(m, given);  // a bitsandbytes checkpoint's own base
  Plan p;
  p.options = options;
  p.seq = options.seq > 0 ? options.seq : default_seq(m);
  p.serve_seq = options.serve_seq > 0 ? options.serve_seq : (options.seq > 0 ? options.seq : default_serve_seq(m, p.seq));
  p.borderline_factor = options.borderline_factor.value_or(kBorderlineFactor);
  p.grad_ckpt = grad_ckpt_of(options, options.mode);
  p.attention = attention_of(m, options, options.mode);
  p.overheads = cat.overheads;
  if (options.cuda_context_bytes) p.overheads.cuda_context_bytes = *options.cuda_context_bytes;
  if (options.allocator_reserve) p.overheads.allocator_reserve_fraction = *options.allocator_reserve;
  auto seq_of = [&](Mode mode) { return mode == Mode::serve ? p.serve_seq : p.seq; };
  const Overheads& ov = p.overheads;

  MemoryModels& memory = p.memory;
  for (Mode mode : all_modes) {
    memory.push_back(cache ? cache->get(m, options, mode, seq_of(mode), ov)
                           : std::make_shared<ModeMemory>(m, options, mode, seq_of(mode), ov));
    p.modes[int(mode)] = memory[size_t(int(mode))].at(1);
  }
  p.requested = memory[int(options.mode)].at(options.batch);

  const double factor = p.borderline_factor;
  for (const auto& card : cat.cards) {
    CardRow row;
    row.card = &card;
    const int64_t cap = card.capacity_bytes;
    // The largest peak the card holds, and the largest it holds at the borderline factor: they read
    // only the overheads, the plan's own in every mode's model, so once per card.
    const int64_t fits_peak = memory[0].largest_peak(cap);
    const int64_t safe = safe_peak(fits_peak, factor);
    for (Mode mode : all_modes) {
      const int mi = int(mode);
      const MemoryModel& mm = memory[size_t(mi)];
      // Closed form (tests/cpp/perf_test.cpp checks it against the monotone search): reserved_for
      // is monotone, so reserved(b) <= cap exactly when peak(b) <= the largest peak the card holds,
      // and the safe batch is the largest whose peak × factor (rounded up) still is. reserved(1) is
      // evaluated as the search did, so an overflowing model fails the same way.
      row.max_batch[mi] = mm.reserved(1) <= cap ? mm.largest_batch(fits_peak, kMaxBatch) : 0;
      if (row.max_batch[mi] > 0) {
        row.safe_batch[mi] = mm.largest_batch(safe, row.max_batch[mi]);
        row.borderline[mi] = row.safe_batch[mi] == 0;  // holds batch 1 only within the model's error
      } else {
        // The solver is built on first need and shared by the cards (and, cached, by later plans).
        row.split[mi] = memory.mode(size_t(mi)).solver().split(cap, std::max<int64_t>(1, options.cost_batch));
      }
    }
    p.cards.push_back(std::move(row));
  }
  add_assumptions(p, m, cat);
  // Multi-GPU training per rank (parallel.hpp): only when a strategy is asked for, so a default
  // plan is unchanged.
  // LoRA and QLoRA across GPUs plan from their own step (parallel.cpp); the rest from full.
  const Mode rank_mode = options.mode == Mode::lora || options.mode == Mode::qlora ? options.mode : Mode::full;
  p.parallel = plan_parallel(m, options, memory[int(rank_mode)], cat, options.card.empty() ? cat.priced_card : options.card);
  cost_plan(m, cat, p);
  std::vector<int64_t> serve_batch;
  for (const auto& row : p.cards) serve_batch.push_back(row.max_batch[int(Mode::serve)]);
  // The serving plan reads none of the LoRA, cost, fit or training-parallel options
  // (serving_options): a re-plan that changes only those reuses it, when the cards are the
  // catalog's own (a request catalog, with a cards filter or a custom card, lives for one plan).
  const bool keep = cache && options.cards.empty() && !options.custom_memory_bytes;
  const Options serving_key = keep ? serving_options(options) : Options{};
  if (auto kept = keep ? cache->serving(serving_key) : nullptr) {
    p.shared_serving = std::move(kept);
  } else {
    auto serving = std::make_shared<SharedServing>();
    serving->serving = plan_serving(m, options, cat, memory[int(Mode::serve)], ov, p.serve_seq, serve_batch);
    if (keep) cache->keep_serving(serving_key, serving);
    p.shared_serving = std::move(serving);
  }
  return p;
}

}  // namespace cardfit

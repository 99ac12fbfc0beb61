// The checks. Each one is a few lines: a condition on the config/model, a message, a fix.
#include "checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cards.hpp"
#include "graph_costs.hpp"
#include "memory.hpp"

namespace cardfit {

namespace {
std::string num(int64_t v) { return std::to_string(v); }
// A config's decimal as written ("50", "30.5", "8"), not std::to_string's "50.000000".
std::string dec(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
}  // namespace

// Walks the graph's edges: every value must have the width its consumer expects. A consumer may
// read a slice of a projection's output (dt_proj of x_proj's, the z half of Mamba's in_proj); any
// other mismatch is a shape error.
std::vector<std::string> shape_errors(const Model& m) {
  std::vector<std::string> errors;
  const int64_t hidden = m.dims.hidden;
  for (const auto& b : m.blocks) {
    for (const auto& n : b.nodes) {
      auto fail = [&](const std::string& what) { errors.push_back(n.name + ": " + what); };
      auto width = [&](size_t k) { return m.values[size_t(n.inputs[k])].width; };
      auto from_projection = [&](size_t k) {
        const ValueInfo& v = m.values[size_t(n.inputs[k])];
        return m.blocks[size_t(v.block)].nodes[size_t(v.node)].op == Op::linear;
      };
      // Input k must be `want` features wide (or `alt`, e.g. top_k copies), or a slice of a projection.
      auto expect = [&](size_t k, int64_t want, int64_t alt, const char* what) {
        if (k >= n.inputs.size()) return;
        const int64_t got = width(k);
        if (got == want || got == alt || (from_projection(k) && got > want)) return;
        // Towers reshape tokens into features: a patch merger (4 patches → one row), a conv over
        // frames (channels × kernel).
        if ((b.domain != Domain::text || n.linear == LinearKind::patch_conv) && got > 0 && want % got == 0) return;
        fail(std::string(what) + " expects " + num(want) + " features, gets " + num(got));
      };
      switch (n.op) {
        case Op::attention: {
          const AttentionGeom& g = n.attn;
          if (g.kv_heads <= 0 || g.heads % g.kv_heads != 0)
            fail("kv heads " + num(g.kv_heads) + " do not divide heads " + num(g.heads));
          const bool standard = g.cache_dim == g.kv_heads * (g.head_dim + g.v_head_dim);  // not MLA
          if (standard && n.inputs.size() == 3 && n.inputs[0] != n.inputs[1]) {
            expect(0, g.heads * g.head_dim, 0, "the query");
            expect(1, g.kv_heads * g.head_dim, 0, "the key");
            expect(2, g.kv_heads * g.v_head_dim, 0, "the value");
          } else if (standard && n.inputs.size() == 2 && n.inputs[0] != n.inputs[1]) {
            // Gemma 4's attention_k_eq_v: the values are the key projection's output.
            expect(0, g.heads * g.head_dim, 0, "the query");
            expect(1, g.kv_heads * g.head_dim, 0, "the key");
          } else if (standard && !n.inputs.empty() && !g.cross) {
            const int64_t qkv = g.qkv_features ? g.qkv_features : g.heads * g.head_dim + g.kv_heads * (g.head_dim + g.v_head_dim);
            expect(0, qkv, 0, "the fused q/k/v");
          }
          break;
        }
        case Op::linear:
        case Op::head:
        case Op::router:
          expect(0, n.in, n.in * n.active, "the input");
          break;
        case Op::activation:
          expect(0, n.out * n.active, 0, "the input");
          break;
        case Op::gated_activation:
          if (n.inputs.size() >= 2) {
            expect(0, n.out * n.active, 0, "the gate");
            expect(1, n.out * n.active, 0, "the up projection");
          } else {
            expect(0, 2 * n.out * n.active, 0, "the fused gate/up");
          }
          break;
        case Op::residual_add:
          expect(0, n.out, 0, "the residual stream");
          expect(1, n.out, 0, "the branch");
          // Vision-tower blocks keep their own width (the projector maps it to the text model's).
          if (hidden > 0 && n.out != hidden && b.domain == Domain::text)
            fail("residual width " + num(n.out) + " differs from hidden " + num(hidden));
          break;
        case Op::norm:
          if (n.qk_norm == QkNorm::none) expect(0, n.in, 0, "the input");
          break;
        default:
          break;
      }
    }
  }
  return errors;
}

std::vector<Finding> run_checks(const Model& m, const Options& opt, int64_t seq, const Card* card) {
  std::vector<Finding> out;
  const Dims& d = m.dims;
  auto add = [&](std::string id, std::string sev, std::string msg, std::string fix) {
    out.push_back({std::move(id), std::move(sev), std::move(msg), std::move(fix)});
  };

  // validate_request refuses a graph with shape errors, so a planned model always passes.
  add("forward-pass", "info", "Every node's input width matches what feeds it: the graph forward-passes.", "");

  if (m.approximate)
    add("approximate-trace", "warning", "This model_type has no family file: the structure is a generic decoder and the "
        "counts are approximate.", "Check the parameter count against the checkpoint (--checkpoint-total).");
  if (d.vocab > 0 && d.vocab % 64 != 0)
    add("vocab-not-multiple-of-64", "info", "vocab_size " + num(d.vocab) + " is not a multiple of 64: the embedding and "
        "head matmuls run on padded tiles.", "Pad vocab_size to " + num((d.vocab + 63) / 64 * 64) + " (resize_token_embeddings(n, pad_to_multiple_of=64)).");
  if (d.head_dim > 0 && d.head_dim % 8 != 0)
    add("head-dim-not-multiple-of-8", "warning", "head_dim " + num(d.head_dim) + " is not a multiple of 8: flash/SDPA "
        "kernels fall back to slower paths.", "Choose heads so that head_dim is a multiple of 8 (64 or 128 are best).");
  if (d.intermediate > 0 && d.intermediate % 64 != 0)
    add("intermediate-not-multiple-of-64", "info", "intermediate_size " + num(d.intermediate) + " is not a multiple of 64.",
        "Round intermediate_size to a multiple of 64 (or 256) for tensor-core tiles.");
  if (d.heads > 0 && d.kv_heads > 0 && d.kv_heads < d.heads)
    add(d.kv_heads == 1 ? "multi-query-attention" : "grouped-query-attention", "info",
        num(d.heads) + " query heads share " + num(d.kv_heads) + " KV heads: the KV cache is " +
        num(d.heads / d.kv_heads) + "× smaller than with full multi-head attention.", "");
  if (d.sliding_window > 0 && d.max_positions > 0 && d.sliding_window >= d.max_positions)
    add("sliding-window-ge-context", "info", "sliding_window " + num(d.sliding_window) + " is not shorter than the context " +
        num(d.max_positions) + ": the window never limits attention or the KV cache.", "Drop sliding_window or set it below the context.");
  const ModelFacts& facts = m.facts;
  if (facts.has_rope_scaling) {
    const double factor = facts.rope_factor;
    const int64_t orig = facts.rope_original_max_positions;
    if (factor > 0 && orig > 0 && d.max_positions > 0 &&
        std::fabs(double(orig) * factor - double(d.max_positions)) > 0.01 * double(d.max_positions))
      add("rope-scaling-inconsistent", "warning", "rope_scaling factor " + dec(factor) + " × original context " +
          num(orig) + " does not equal max_position_embeddings " + num(d.max_positions) + ".",
          "Make max_position_embeddings = factor × original_max_position_embeddings.");
  }
  if (seq > d.max_positions && d.max_positions > 0)
    add("seq-beyond-context", "warning", "The planned sequence length " + num(seq) + " exceeds the model's context " +
        num(d.max_positions) + ".", "Lower seq, or extend the context (rope scaling) and fine-tune for it.");
  const int64_t total = m.parameter_count();
  if (!d.tied_embeddings && d.vocab > 0 && total < 1000000000 && !d.encoder_only &&
      double(d.vocab * d.hidden) > 0.2 * double(total))
    add("untied-head-small-model", "info", "The LM head is untied and holds " +
        num(int64_t(100.0 * double(d.vocab * d.hidden) / double(total))) + "% of the parameters of this small model.",
        "Tie the head to the embedding (tie_word_embeddings: true) to save " + num(d.vocab * d.hidden) + " parameters.");
  if (d.vocab > 0 && double(d.vocab * d.hidden) > 0.3 * double(total))
    add("embedding-dominated", "info", "The embedding holds over 30% of the parameters: the logits term dominates "
        "training memory at long context.", "Use a chunked/fused cross-entropy (e.g. Liger kernel) to avoid materialising fp32 logits.");
  if (d.layers >= 12 && !facts.depth_scaled_init)
    add("residual-init-not-depth-scaled", "info", "At " + num(d.layers) + " layers, residual outputs add up; this family's "
        "initialisation does not scale residual projections by depth.", "When training from scratch, init residual output "
        "projections with std = initializer_range / sqrt(2 × layers).");
  if (d.initializer_range > 0.05)
    add("large-init-range", "warning", "initializer_range " + std::to_string(d.initializer_range) + " is large for a transformer.",
        "Use about 0.02 (or 1/sqrt(hidden)).");
  // bitsandbytes (QLoRA's base, or serve_dtype nf4 / int8 in transformers) replaces nn.Linear modules only.
  const bool bnb_serve = opt.mode == Mode::serve && opt.serve_dtype_set && opt.engine == Engine::hf &&
                         (opt.serve_dtype == WeightDtype::nf4 || opt.serve_dtype == WeightDtype::int8);
  if (opt.mode == Mode::qlora || bnb_serve) {
    int64_t bare = 0;
    for (const auto& t : m.tensors)
      if (t.tied_to.empty() && bare_expert_weight(t)) bare = checked_add(bare, t.count());
    if (bare > 0)
      add("experts-not-quantized", "warning",
          "The routed experts (" + num(bare) + " of " + num(m.parameter_count()) + " parameters) are bare parameters in "
          "this model class, not nn.Linear modules: " + (bnb_serve ? "bitsandbytes" : "QLoRA's 4-bit quantization") +
          " leaves them at 16 bits, and the plan counts them so.",
          bnb_serve ? "Serve with engine vllm or sglang (their FusedMoE layers quantize the experts), or serve_dtype fp8 / int4."
                    : "Plan LoRA on a bf16 base, or expect the experts' 16-bit weights in the QLoRA base.");
  }
  if (d.experts > 0 && d.experts_per_token > d.experts)
    add("top-k-exceeds-experts", "error", "experts_per_token " + num(d.experts_per_token) + " exceeds the expert count " +
        num(d.experts) + ".", "Lower num_experts_per_tok.");
  if (opt.precision == Precision::fp16_mixed && facts.checkpoint_dtype == "bfloat16")
    add("fp16-on-bf16-model", "warning", "The checkpoint is bfloat16 but the plan trains in fp16: activations can overflow.",
        "Train in bf16-mixed on cards that support it (A100 and newer).");
  if (!facts.has_pad_token && opt.mode != Mode::serve && opt.batch > 1)
    add("no-pad-token", "info", "The config has no pad_token_id; batched fine-tuning needs one.",
        "Set tokenizer.pad_token = tokenizer.eos_token (and model.config.pad_token_id).");
  // A multimodal sample puts each image's tokens into the text sequence (LLaVA-1.5: 576, Gemma 3:
  // 256): a sequence shorter than that cannot hold the images the plan assumes.
  int64_t image_tokens = 0;
  for (const auto& b : m.blocks)
    if (b.domain == Domain::vision && b.kind == "projector") image_tokens = b.tokens_per_image;
  const int64_t images = opt.images.value_or(image_tokens > 0 ? 1 : 0);
  if (image_tokens > 0 && images > 0 && images * image_tokens > seq)
    add("image-tokens-exceed-seq", "warning", num(images) + " image(s) of " + num(image_tokens) + " tokens each do not fit "
        "in a sequence of " + num(seq) + " tokens.", "Raise seq above " + num(images * image_tokens) +
        " (the image tokens are part of it), or plan fewer images per sample.");
  const Attention attention = attention_of(m, opt, opt.mode);  // the option, else what transformers runs
  if (attention == Attention::eager && seq >= 4096)
    add("eager-attention-long-context", "warning", "Eager attention stores a heads × seq² score matrix per layer; at " +
        num(seq) + " tokens it dominates activation memory.", "Use attn_implementation=\"sdpa\" or \"flash_attention_2\".");
  // Gemma 2 caps attention logits; PyTorch's SDPA cannot, so transformers trains it with eager
  // attention (or flash-attention >= 2.6, which implements the cap).
  if (attention == Attention::sdpa && opt.mode != Mode::serve && facts.attn_logit_softcap > 0)
    add("softcapping-needs-eager", "warning", "The config caps attention logits (attn_logit_softcapping " +
        dec(facts.attn_logit_softcap) + "), which SDPA does not implement: "
        "transformers trains this model with eager attention, whose heads × seq² scores this SDPA plan omits.",
        "Plan with attention=eager (what transformers uses), or flash (flash-attention 2.6+ applies the cap).");
  // torchao float8 training runs torch._scaled_mm, which needs fp8 tensor cores (compute capability
  // 8.9+: Ada, Hopper, Blackwell; MI300 through ROCm). data/cards.json has no "supports fp8" field:
  // a card with a published dense fp8 rate (tflops.fp8) is taken to support it.
  if (opt.float8 && opt.mode == Mode::full && card && !(card->fp8_tflops > 0))
    add("float8-unsupported-card", "warning", "float8 training needs fp8 tensor cores, and the priced card " + card->name +
        " has none (no fp8 rate in the card catalog): torchao's Float8Linear cannot run on it.",
        "Price a card with fp8 (L4, L40S, RTX 4090, H100, H200, B200, MI300X), or plan without float8.");
  if (opt.float8 && opt.mode != Mode::full)
    add("float8-full-only", "info", "float8 is modelled for a full fine-tune (torchao convert_to_float8_training); "
        "this " + std::string(mode_name(opt.mode)) + " plan ignores it.", "Plan mode full, or drop float8.");
  return out;
}

std::vector<Finding> card_checks(const Options& opt, const Catalog& catalog) {
  std::vector<Finding> out;
  const bool bf16_train = opt.mode != Mode::serve && (opt.precision == Precision::bf16 || opt.precision == Precision::bf16_mixed);
  const bool bf16_serve = opt.mode == Mode::serve && opt.serve_dtype == WeightDtype::bf16;
  if (!bf16_train && !bf16_serve) return out;
  std::vector<std::string> named;  // the cards the request names, in the order given
  auto name = [&](const std::string& id) {
    if (!id.empty() && std::find(named.begin(), named.end(), id) == named.end()) named.push_back(id);
  };
  name(opt.card);
  name(opt.fit_card);
  for (const auto& id : opt.cards) name(id);
  if (opt.custom_memory_bytes) name(kCustomCardId);
  for (const auto& id : named) {
    const Card* c = find_card(catalog, id);
    if (!c || c->bf16) continue;
    if (bf16_train)
      out.push_back({"bf16-unsupported-card", "warning",
                     c->name + " has no bf16 tensor math (bf16 needs compute capability 8.0, Ampere or newer): " +
                         precision_name(opt.precision) + " does not run there (transformers refuses --bf16 on it), and "
                         "its cost is quoted at the fp16 rate.",
                     "On " + c->name + ", train with precision fp16-mixed (a loss scaler; the fp16-on-bf16-model check "
                     "tells whether the checkpoint's activations overflow in fp16), or choose a card with bf16."});
    else
      out.push_back({"bf16-unsupported-card", "warning",
                     c->name + " has no bf16 tensor math (compute capability below 8.0): serving engines refuse bf16 "
                     "weights there.",
                     "On " + c->name + ", serve with serve_dtype fp16 (vLLM --dtype half), or choose a card with bf16."});
  }
  return out;
}

}  // namespace cardfit

// LFM2 (transformers models/lfm2/modeling_lfm2.py, Lfm2ForCausalLM; LiquidAI LFM2 / LFM2.5): layers are
// "full_attention" (self_attn q/k/v_proj, out_proj, per-head q_layernorm / k_layernorm [head_dim], no
// biases) or "conv" (the gated short convolution of short_conv.hpp), each pre-normed by operator_norm,
// then ffn_norm → feed_forward w1 / w3 / w2 (gate / up / down); the final norm is model.embedding_norm.
// Lfm2Config: layer_types, else full_attn_idxs (else every layer attends); intermediate_size read from
// block_ff_dim when given, and with block_auto_adjust_ff_dim (default True) the MLP is int(2 · ff / 3),
// times block_ffn_dim_multiplier (default 1.0; null skips this and the rounding) rounded up to
// block_multiple_of (256); tie_word_embeddings (or the original key tie_embedding) defaults to True;
// conv_L_cache 3, conv_bias False, max_position_embeddings 128000.
// LFM2-MoE (models/lfm2_moe/modeling_lfm2_moe.py, Lfm2MoeForCausalLM; LFM2-8B-A1B, LFM2-24B-A2B): the
// same layers, whose feed_forward is Lfm2MoeMLP at intermediate_size as given (no auto-adjust) for the
// first num_dense_layers (2) and Lfm2MoeSparseMoeBlock after: gate [num_experts, hidden], experts the
// checkpoint stores per expert (experts.E.w1 / w3 / w2 at moe_intermediate_size; the class holds them
// stacked, conversion_mapping.py), sigmoid scores picking num_experts_per_tok with the float32 buffer
// expert_bias [num_experts] (use_expert_bias) added; no shared expert. Lfm2MoeConfig: layer_types has no
// default (the model indexes it), 32 experts, top 4, tie_word_embeddings True (or tie_embedding).
#include <nlohmann/json.hpp>

#include "../../error.hpp"
#include "../../function_ref.hpp"
#include "../blocks.hpp"
#include "../decoder.hpp"
#include "../layer_types.hpp"
#include "../short_conv.hpp"
#include "zoo2026.hpp"

namespace cardfit::families {

namespace {
// The attention and short-conv layers both families share; `ffn` names each layer's feed-forward.
Model lfm2_stack(const Config& c, const std::string& type, DecoderShape d, const std::vector<std::string>& types,
                 FunctionRef<FeedForwardSpec(int, const std::string&)> ffn, bool expert_bias = false) {
  const int64_t kernel = c.positive_or({"conv_L_cache"}, 3);
  const bool conv_bias = c.boolean_or("conv_bias", false);
  ModelBuilder b(type, type);
  set_dims(b, d, c);
  causal_lm_stack(b, d, {.norm = "model.embedding_norm"}, [&](int i, const std::string& p) {
    const FeedForwardSpec f = ffn(i, p + ".feed_forward");
    if (types[size_t(i)] == "full_attention") {
      pre_norm_decoder_layer(b, {.prefix = p,
                                 .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads,
                                          .kv_heads = d.kv_heads, .head_dim = d.head_dim, .o = "out_proj",
                                          .q_norm = "q_layernorm", .k_norm = "k_layernorm"},
                                 .mlp = f.mlp, .input_norm = "operator_norm", .post_attn_norm = "ffn_norm",
                                 .hidden = d.hidden, .moe = f.moe});
    } else {
      b.norm(p + ".operator_norm", d.hidden, NormKind::rmsnorm);
      short_conv_mixer(b, {.prefix = p + ".conv", .hidden = d.hidden, .kernel = kernel, .bias = conv_bias});
      b.residual(p + ".residual_conv", d.hidden);
      b.norm(p + ".ffn_norm", d.hidden, NormKind::rmsnorm);
      feed_forward(b, f);
      b.residual(p + ".residual_mlp", d.hidden);
    }
    // Lfm2MoeSparseMoeBlock's expert_bias: fp32 and persistent, so saved with the weights (LFM2.5-8B-A1B's
    // files hold it; LFM2-8B-A1B's hub total counts none): a stored buffer, not a parameter.
    if (f.moe && expert_bias) b.buffer(p + ".feed_forward.expert_bias", {f.moe->experts});
  });
  return b.finish();
}

MlpSpec swiglu(int64_t hidden, int64_t intermediate) {
  return {.hidden = hidden, .intermediate = intermediate, .gate = "w1", .up = "w3", .down = "w2"};
}
}  // namespace

Model lfm2(const Config& c) {
  DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = true, .max_positions = 128000,
                                          .intermediate_required = false});
  d.tied = c.boolean_or("tie_word_embeddings", c.boolean_or("tie_embedding", true));
  int64_t ff = c.positive_or({"block_ff_dim", "intermediate_size"}, 12288);
  if (c.boolean_or("block_auto_adjust_ff_dim", true)) {
    ff = 2 * ff / 3;  // int(2 * ff / 3) for a positive ff
    const auto& raw = c.raw();
    const bool no_multiplier = raw.contains("block_ffn_dim_multiplier") && raw["block_ffn_dim_multiplier"].is_null();
    if (!no_multiplier) {
      const double multiplier = c.number_or("block_ffn_dim_multiplier", 1.0);
      require(multiplier > 0, c, "block_ffn_dim_multiplier", "block_ffn_dim_multiplier must be positive.");
      const int64_t multiple = c.positive_or({"block_multiple_of"}, 256);
      ff = int64_t(multiplier * double(ff));
      ff = multiple * ((ff + multiple - 1) / multiple);
    }
  }
  require(ff > 0, c, "intermediate_size", "intermediate_size leaves the MLP no width.");
  d.intermediate = ff;
  const std::vector<int64_t> attn_idx = c.integer_list("full_attn_idxs");
  const auto types = read_layer_types(c, d.layers, {"full_attention", "conv"}, [&](int64_t i) {
    if (!c.has("full_attn_idxs")) return "full_attention";
    for (int64_t a : attn_idx)
      if (a == i) return "full_attention";
    return "conv";
  });
  return lfm2_stack(c, "lfm2", d, types, [&](int, const std::string& p) {
    MlpSpec mlp = swiglu(d.hidden, d.intermediate);
    mlp.prefix = p;
    return FeedForwardSpec{.mlp = mlp};
  });
}

Model lfm2_moe(const Config& c) {
  DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = true, .max_positions = 128000,
                                          .intermediate_required = false});
  d.tied = c.boolean_or("tie_word_embeddings", c.boolean_or("tie_embedding", true));
  if (!c.has("intermediate_size")) d.intermediate = 7168;
  // Lfm2MoeConfig has no layer_types default (the model indexes it), so absent or empty is an error.
  const auto types = read_layer_types(c, d.layers, {"full_attention", "conv"}, [&](int64_t) -> std::string {
    throw Error(ErrorCode::field_missing,
                "An lfm2_moe config needs layer_types (\"conv\" or \"full_attention\" per layer): Lfm2MoeConfig has "
                "no default for it.",
                c.path_of("layer_types"));
  });
  const int64_t dense = c.count_or({"num_dense_layers"}, 2);
  const int64_t experts = c.positive_or({"num_experts"}, 32), top_k = c.positive_or({"num_experts_per_tok"}, 4);
  require(top_k <= experts, c, "num_experts_per_tok", "num_experts_per_tok cannot exceed num_experts.");
  const int64_t moe_ff = c.positive_or({"moe_intermediate_size"}, 1792);
  return lfm2_stack(
      c, "lfm2_moe", d, types,
      [&](int i, const std::string& p) {
        MlpSpec mlp = swiglu(d.hidden, d.intermediate);
        mlp.prefix = p;
        if (i < dense) return FeedForwardSpec{.mlp = mlp};
        return FeedForwardSpec{.moe = MoeSpec{.prefix = p, .hidden = d.hidden, .experts = experts, .top_k = top_k,
                                              .expert_intermediate = moe_ff, .expert = swiglu(0, 0)}};
      },
      c.boolean_or("use_expert_bias", true));
}

}  // namespace cardfit::families

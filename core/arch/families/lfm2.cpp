// LFM2 (transformers models/lfm2/modeling_lfm2.py, Lfm2ForCausalLM; LiquidAI LFM2 / LFM2.5): layers are
// "full_attention" (self_attn q/k/v_proj, out_proj, per-head q_layernorm / k_layernorm [head_dim], no
// biases) or "conv" (the gated short convolution of short_conv.hpp), each pre-normed by operator_norm,
// then ffn_norm → feed_forward w1 / w3 / w2 (gate / up / down); the final norm is model.embedding_norm.
// Lfm2Config: layer_types, else full_attn_idxs (else every layer attends); intermediate_size read from
// block_ff_dim when given, and with block_auto_adjust_ff_dim (default True) the MLP is int(2 · ff / 3),
// times block_ffn_dim_multiplier (default 1.0; null skips this and the rounding) rounded up to
// block_multiple_of (256); tie_word_embeddings (or the original key tie_embedding) defaults to True;
// conv_L_cache 3, conv_bias False, max_position_embeddings 128000.
#include <nlohmann/json.hpp>

#include "../decoder.hpp"
#include "../layer_types.hpp"
#include "../short_conv.hpp"
#include "zoo2026.hpp"

namespace cardfit::families {

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
  const int64_t kernel = c.positive_or({"conv_L_cache"}, 3);
  const bool conv_bias = c.boolean_or("conv_bias", false);
  const std::vector<int64_t> attn_idx = c.integer_list("full_attn_idxs");
  const auto types = read_layer_types(c, d.layers, {"full_attention", "conv"}, [&](int64_t i) {
    if (!c.has("full_attn_idxs")) return "full_attention";
    for (int64_t a : attn_idx)
      if (a == i) return "full_attention";
    return "conv";
  });

  ModelBuilder b("lfm2", "lfm2");
  set_dims(b, d, c);
  const MlpSpec mlp{.hidden = d.hidden, .intermediate = d.intermediate, .gate = "w1", .up = "w3", .down = "w2"};
  causal_lm_stack(b, d, {.norm = "model.embedding_norm"}, [&](int i, const std::string& p) {
    MlpSpec ffn = mlp;
    ffn.prefix = p + ".feed_forward";
    if (types[size_t(i)] == "full_attention") {
      pre_norm_decoder_layer(b, {.prefix = p,
                                 .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads,
                                          .kv_heads = d.kv_heads, .head_dim = d.head_dim, .o = "out_proj",
                                          .q_norm = "q_layernorm", .k_norm = "k_layernorm"},
                                 .mlp = ffn, .input_norm = "operator_norm", .post_attn_norm = "ffn_norm",
                                 .hidden = d.hidden});
      return;
    }
    b.norm(p + ".operator_norm", d.hidden, NormKind::rmsnorm);
    short_conv_mixer(b, {.prefix = p + ".conv", .hidden = d.hidden, .kernel = kernel, .bias = conv_bias});
    b.residual(p + ".residual_conv", d.hidden);
    b.norm(p + ".ffn_norm", d.hidden, NormKind::rmsnorm);
    mlp_block(b, ffn);
    b.residual(p + ".residual_mlp", d.hidden);
  });
  return b.finish();
}

}  // namespace cardfit::families

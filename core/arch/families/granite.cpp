// IBM Granite (transformers models/granite) and Granite-MoE (models/granitemoe). Granite is Llama's
// tensor layout with attention_bias (q/k/v/o) and mlp_bias; its embedding/residual/attention/logit
// multipliers scale activations and add no tensors. Granite-MoE keeps that attention and replaces the
// MLP with block_sparse_moe: router.layer [experts, hidden] (JetMoE top-k gating), input_linear
// [experts, 2 * intermediate, hidden] (gate and up stacked) and output_linear [experts, hidden,
// intermediate], bare parameters rather than nn.Linear modules.
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
// GraniteConfig / GraniteMoeConfig: tie_word_embeddings=False, max_position_embeddings=2048,
// attention_bias=False; head_dim = hidden_size // num_attention_heads.
DecoderShape granite_shape(const Config& c) {
  return read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 2048});
}

AttentionSpec granite_attention(const std::string& p, const DecoderShape& d, bool bias) {
  return {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
          .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias, .v_bias = bias, .o_bias = bias};
}
}  // namespace

Model granite(const Config& c) {
  const DecoderShape d = granite_shape(c);
  const bool attn_bias = c.boolean_or("attention_bias", false);
  const bool mlp_bias = c.boolean_or("mlp_bias", false);
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("granite", "granite");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int, const std::string& p) {
    const AttentionSpec attn = granite_attention(p, d, attn_bias);
    const MlpSpec mlp{.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate,
                      .bias = mlp_bias, .act = act};
    pre_norm_decoder_layer(b, {.prefix = p, .attn = attn, .mlp = mlp, .hidden = d.hidden});
  });
  return b.finish();
}

Model granitemoe(const Config& c) {
  const DecoderShape d = granite_shape(c);
  const bool attn_bias = c.boolean_or("attention_bias", false);
  const int64_t experts = c.positive_or({"num_local_experts"}, 8);
  const int64_t top_k = c.positive_or({"num_experts_per_tok"}, 2);
  require(top_k <= experts, c, "num_experts_per_tok",
          "num_experts_per_tok cannot exceed num_local_experts.");
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("granitemoe", "granite");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int, const std::string& p) {
    pre_norm_decoder_layer(
        b, {.prefix = p, .attn = granite_attention(p, d, attn_bias), .hidden = d.hidden,
            .fused_moe = FusedMoeSpec{.prefix = p + ".block_sparse_moe", .hidden = d.hidden, .experts = experts,
                                      .top_k = top_k, .intermediate = d.intermediate, .router = "router.layer",
                                      .down = "output_linear.weight", .layout = FusedExpertLayout::stacked,
                                      .act = act, .gate_up = "input_linear.weight"}});
  });
  return b.finish();
}

}  // namespace cardfit::families

// gpt-oss (transformers models/gpt_oss/modeling_gpt_oss.py, GptOssForCausalLM): pre-norm decoder
// layers whose attention has q/k/v/o biases (attention_bias) and a learned sink logit per head
// (self_attn.sinks [heads]); layer_types alternate sliding (sliding_window) and full attention. The
// MLP is an MoE: router with a bias, experts stored as stacked parameters with biases
// (fused_moe_block, stacked_in_out with biases). GptOssConfig: num_local_experts=128, num_experts_per_tok=4, head_dim=64,
// sliding_window=128, tie_word_embeddings=False; layer_types default: even layers slide.
// The published checkpoints store the experts' weights MXFP4-packed (see the note below).
#include "../decoder.hpp"
#include "../layer_types.hpp"
#include "families.hpp"

namespace cardfit::families {

Model gpt_oss(const Config& c) {
  DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 131072});
  if (!c.has("head_dim")) d.head_dim = 64;
  d.sliding_window = c.count_or({"sliding_window"}, 128);
  const int64_t experts = c.positive_or({"num_local_experts"}, 128);
  const int64_t top_k = c.positive_or({"num_experts_per_tok", "experts_per_token"}, 4);
  require(top_k <= experts, c, "num_experts_per_tok", "num_experts_per_tok cannot exceed num_local_experts.");
  const bool bias = c.boolean_or("attention_bias", true);
  const auto types = read_layer_types(c, d.layers, {"sliding_attention", "full_attention"},
                                      [](int64_t i) { return i % 2 == 0 ? "sliding_attention" : "full_attention"; });

  ModelBuilder b("gpt_oss", "gpt_oss");
  set_dims(b, d, c);
  b.dims().experts = experts;
  b.dims().experts_per_token = top_k;
  causal_lm_stack(b, d, {}, [&](int i, const std::string& p) {
    b.norm(p + ".input_layernorm", d.hidden, NormKind::rmsnorm);
    attention_block(b, {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                        .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias, .v_bias = bias, .o_bias = bias,
                        .window = window_of(types[size_t(i)], d.sliding_window), .sinks = "sinks"});
    b.residual(p + ".residual_attn", d.hidden);
    b.norm(p + ".post_attention_layernorm", d.hidden, NormKind::rmsnorm);
    fused_moe_block(b, {.prefix = p + ".mlp", .hidden = d.hidden, .experts = experts, .top_k = top_k,
                        .intermediate = d.intermediate, .router = "router", .down = "experts.down_proj",
                        .layout = FusedExpertLayout::stacked_in_out, .act = "swiglu_clamped",
                        .gate_up = "experts.gate_up_proj", .router_bias = true, .biases = true, .weighted_sum = true});
    b.residual(p + ".residual_mlp", d.hidden);
  });
  if (c.has_object("quantization_config") && c.child("quantization_config").string_or("quant_method", "") == "mxfp4")
    b.note("quantization_config mxfp4: the checkpoint stores each expert weight W [E, rows, cols] as "
           "mlp.experts.{gate_up,down}_proj_blocks (uint8 [E, cols, rows/32, 16], two FP4 values a byte) and "
           "_scales (uint8 [E, cols, rows/32], one E8M0 scale per 32 values); biases, router, attention, "
           "embeddings and lm_head stay bf16. transformers dequantizes them to the parameters counted here.");
  return b.finish();
}

}  // namespace cardfit::families

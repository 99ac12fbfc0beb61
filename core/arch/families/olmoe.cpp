// OLMoE (transformers models/olmoe/modeling_olmoe.py, OlmoeForCausalLM): Mixtral's pre-norm layers
// with OLMo 2's q/k RMSNorms over the whole projection width (q_norm [hidden], k_norm [kv_heads *
// head_dim]); the MLP is a router mlp.gate [experts, hidden] and experts mlp.experts.{e}.{gate,up,
// down}_proj as the checkpoints store them, no shared expert. OlmoeConfig: num_experts=64,
// num_experts_per_tok=8, tie_word_embeddings=False, max_position_embeddings=4096.
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model olmoe(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 4096});
  const int64_t experts = c.positive_or({"num_experts"}, 64), top_k = c.positive_or({"num_experts_per_tok"}, 8);
  require(top_k <= experts, c, "num_experts_per_tok", "num_experts_per_tok cannot exceed num_experts.");
  const bool bias = c.boolean_or("attention_bias", false);
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("olmoe", "olmoe");
  set_dims(b, d, c);
  b.dims().experts = experts;
  b.dims().experts_per_token = top_k;
  causal_lm_stack(b, d, {}, [&](int, const std::string& p) {
    b.norm(p + ".input_layernorm", d.hidden, NormKind::rmsnorm);
    attention_block(b, {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                        .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias, .v_bias = bias, .o_bias = bias,
                        .q_norm = "q_norm", .k_norm = "k_norm", .qk_norm_per_head = false});
    b.residual(p + ".residual_attn", d.hidden);
    b.norm(p + ".post_attention_layernorm", d.hidden, NormKind::rmsnorm);
    moe_block(b, {.prefix = p + ".mlp", .hidden = d.hidden, .experts = experts, .top_k = top_k,
                  .expert_intermediate = d.intermediate, .expert = {.act = act}});
    b.residual(p + ".residual_mlp", d.hidden);
  });
  return b.finish();
}

}  // namespace cardfit::families

// Phi-3.5-MoE (transformers models/phimoe/modeling_phimoe.py, PhimoeForCausalLM): Mixtral's layers
// with nn.LayerNorm (weight and bias) for input_layernorm, post_attention_layernorm and model.norm,
// Llama attention with attention_bias on q/k/v/o, and lm_head with a bias when lm_head_bias. The
// published checkpoint stores Mixtral's per-expert layout, model.layers.N.block_sparse_moe.gate
// [experts, hidden] and block_sparse_moe.experts.E.w1 / w3 / w2 (gate / up / down; transformers'
// conversion_mapping.py merges them into mlp.experts.gate_up_proj on load). The sparsemixer router
// has no parameters beyond the gate. PhimoeConfig: vocab 32064, num_local_experts 16, top 2,
// attention_bias / lm_head_bias False, tie_word_embeddings False, max_position_embeddings 131072,
// sliding_window None (every layer when set).
#include "../decoder.hpp"
#include "zoo2026.hpp"

namespace cardfit::families {

Model phimoe(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 4096 * 32});
  const int64_t experts = c.positive_or({"num_local_experts"}, 16);
  const int64_t top_k = c.positive_or({"num_experts_per_tok"}, 2);
  require(top_k <= experts, c, "num_experts_per_tok", "num_experts_per_tok cannot exceed num_local_experts.");
  const bool bias = c.boolean_or("attention_bias", false), head_bias = c.boolean_or("lm_head_bias", false);
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("phimoe", "phimoe");
  set_dims(b, d, c);
  b.block("model.embed_tokens", "embedding");
  token_embedding(b, "model.embed_tokens", d.vocab, d.hidden);
  for (int i = 0; i < d.layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    pre_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                     .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias, .v_bias = bias, .o_bias = bias,
                     .window = d.sliding_window},
            .norm = NormKind::layernorm,
            .hidden = d.hidden,
            .moe = MoeSpec{.prefix = p + ".block_sparse_moe", .hidden = d.hidden, .experts = experts, .top_k = top_k,
                           .expert_intermediate = d.intermediate, .router = "gate",
                           .expert = {.act = act, .gate = "w1", .up = "w3", .down = "w2"}}});
  }
  b.block("final", "final");
  b.norm("model.norm", d.hidden, NormKind::layernorm);
  lm_head(b, "lm_head", d.hidden, d.vocab, d.tied ? "model.embed_tokens.weight" : "", head_bias);
  return b.finish();
}

}  // namespace cardfit::families

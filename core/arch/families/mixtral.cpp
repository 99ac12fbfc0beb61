// Mixtral (transformers models/mixtral): Mistral's attention with a sparse MoE in place of the MLP.
// Checkpoint names (MixtralForCausalLM as published): model.layers.{i}.block_sparse_moe.gate (router,
// no bias) and block_sparse_moe.experts.{e}.w1 / w3 / w2 = gate / up / down of each expert.
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model mixtral(const Config& c) {
  // MixtralConfig: tie_word_embeddings=False, max_position_embeddings=4096*32, num_local_experts=8
  // (attribute_map: num_experts), num_experts_per_tok=2, sliding_window=None (every layer when set).
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 4096 * 32});
  const int64_t experts = c.positive_or({"num_local_experts", "num_experts"}, 8);
  const int64_t top_k = c.positive_or({"num_experts_per_tok"}, 2);
  require(top_k <= experts, c, "num_experts_per_tok", "num_experts_per_tok (" + std::to_string(top_k) +
          ") cannot exceed num_local_experts (" + std::to_string(experts) + ").");
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("mixtral", "mixtral");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int, const std::string& p) {
    pre_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads,
                     .kv_heads = d.kv_heads, .head_dim = d.head_dim, .window = d.sliding_window},
            .hidden = d.hidden,
            .moe = MoeSpec{.prefix = p + ".block_sparse_moe", .hidden = d.hidden, .experts = experts,
                           .top_k = top_k, .expert_intermediate = d.intermediate, .router = "gate",
                           .expert = {.act = act, .gate = "w1", .up = "w3", .down = "w2"}}});
  });
  return b.finish();
}

}  // namespace cardfit::families

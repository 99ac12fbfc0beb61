// GLM-4.7-Flash (transformers models/glm4_moe_lite/modular_glm4_moe_lite.py, Glm4MoeLiteForCausalLM):
// DeepSeek-V3's multi-head latent attention (mla.hpp: q_a_proj → q_a_layernorm → q_b_proj,
// kv_a_proj_with_mqa → kv_a_layernorm → kv_b_proj, o_proj) over GLM-4.5's MoE (Glm4MoeMoE: router
// mlp.gate [n_routed_experts, hidden] with the persistent e_score_correction_bias buffer, experts
// mlp.experts.{e}.* as the checkpoint stores them, one merged shared expert of moe_intermediate_size *
// n_shared_experts). mlp_layer_types (default: "dense" then "sparse" for the rest) picks the dense
// layers (intermediate_size); Glm4MoeLiteConfig has no first_k_dense_replace field, so that key in a
// config changes nothing. Defaults: vocab 154880, hidden 2048, 47 layers, 20 heads, q_lora_rank 768,
// kv_lora_rank 512, qk_nope 192, qk_rope 64, v_head_dim 256, 64 experts, top 4, tie False. The
// checkpoint's MTP layer model.layers.47.* is dropped on load (_keys_to_ignore_on_load_unexpected) and
// listed as a stored extra for the checkpoint reconciliation.
#include <nlohmann/json.hpp>

#include "../decoder.hpp"
#include "../layer_types.hpp"
#include "../mla.hpp"
#include "../stored_extras.hpp"
#include "zoo2026.hpp"

namespace cardfit::families {

Model glm4_moe_lite(const Config& c) {
  const int64_t vocab = c.positive_or({"vocab_size"}, 154880), hidden = c.positive_or({"hidden_size"}, 2048);
  const int64_t layers = c.positive_or({"num_hidden_layers"}, 47), heads = c.positive_or({"num_attention_heads"}, 20);
  const int64_t intermediate = c.positive_or({"intermediate_size"}, 10240);
  // q_lora_rank: null is one q_proj (int | None in the config class).
  const bool no_q_lora = c.raw().contains("q_lora_rank") && c.raw()["q_lora_rank"].is_null();
  const int64_t q_lora = no_q_lora ? 0 : c.positive_or({"q_lora_rank"}, 768);
  const int64_t kv_lora = c.positive_or({"kv_lora_rank"}, 512);
  const int64_t nope = c.positive_or({"qk_nope_head_dim"}, 192), rope = c.positive_or({"qk_rope_head_dim"}, 64);
  const int64_t v_dim = c.positive_or({"v_head_dim"}, 256);
  const int64_t experts = c.positive_or({"n_routed_experts"}, 64), shared = c.count_or({"n_shared_experts"}, 1);
  const int64_t top_k = c.positive_or({"num_experts_per_tok"}, 4), moe_inter = c.positive_or({"moe_intermediate_size"}, 1536);
  require(top_k <= experts, c, "num_experts_per_tok", "num_experts_per_tok cannot exceed n_routed_experts.");
  const bool bias = c.boolean_or("attention_bias", false);
  const std::string act = c.string_or("hidden_act", "silu");
  const auto mlp_types = read_layer_types(c, layers, {"dense", "sparse"},
                                          [](int64_t i) { return i == 0 ? "dense" : "sparse"; }, "mlp_layer_types");

  ModelBuilder b("glm4_moe_lite", "glm4_moe_lite");
  const DecoderShape d{.vocab = vocab, .hidden = hidden, .layers = layers, .heads = heads, .kv_heads = heads,
                       .head_dim = nope + rope, .intermediate = intermediate,
                       .max_positions = c.positive_or({"max_position_embeddings"}, 202752),
                       .tied = c.boolean_or("tie_word_embeddings", false)};
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int i, const std::string& p) {
    DecoderLayerSpec layer{
        .prefix = p,
        .mlp = {.prefix = p + ".mlp", .hidden = hidden, .intermediate = intermediate, .act = act},
        .hidden = hidden,
        .mla = MlaSpec{.prefix = p + ".self_attn", .hidden = hidden, .heads = heads, .q_lora_rank = q_lora,
                       .kv_lora_rank = kv_lora, .qk_nope_head_dim = nope, .qk_rope_head_dim = rope,
                       .v_head_dim = v_dim, .bias = bias}};
    const bool sparse = mlp_types[size_t(i)] == "sparse";
    if (sparse)
      layer.moe = MoeSpec{.prefix = p + ".mlp", .hidden = hidden, .experts = experts, .top_k = top_k,
                          .expert_intermediate = moe_inter, .expert = {.act = act}, .shared_experts = shared > 0 ? 1 : 0,
                          .shared_intermediate = checked_mul(moe_inter, shared, "the shared experts' width")};
    pre_norm_decoder_layer(b, layer);
    if (sparse) b.buffer(p + ".mlp.gate.e_score_correction_bias", {experts});
  });
  // GLM-4.5's layout (its own embedding and head; a copy of the last layer): the hub's total for
  // GLM-4.7-Flash, 31,221,488,576, is the parameters, the routers' biases and exactly this layer.
  const int64_t mtp = c.count_or({"num_nextn_predict_layers"}, 0);
  if (mtp > 0) {
    add_nextn_layers(b.model(), mtp, layers, layers - 1, hidden, vocab);
    b.note("The published checkpoint also stores " + std::to_string(mtp) + " multi-token-prediction layer(s) as "
           "model.layers." + std::to_string(layers) + ".* (num_nextn_predict_layers); Glm4MoeLiteForCausalLM drops "
           "them on load, so they are not counted here.");
  }
  return b.finish();
}

}  // namespace cardfit::families

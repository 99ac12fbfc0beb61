// GLM-4.5 / GLM-4.6 (transformers models/glm4_moe/modeling_glm4_moe.py, Glm4MoeForCausalLM):
// GQA attention with q/k/v biases (attention_bias) and a bias-free o_proj, optional per-head q/k
// RMSNorms (use_qk_norm); the first first_k_dense_replace layers keep a dense MLP, the rest are MoE:
// router mlp.gate [n_routed_experts, hidden] with the e_score_correction_bias buffer (persistent, so
// the checkpoint stores it), experts mlp.experts.{e}.* of moe_intermediate_size, and one merged
// shared-expert MLP of moe_intermediate_size * n_shared_experts. Glm4MoeConfig: head_dim=128,
// tie_word_embeddings=False. The checkpoint's num_nextn_predict_layers MTP layers
// (model.layers.{num_hidden_layers}.*) are dropped on load (_keys_to_ignore_on_load_unexpected).
#include "../decoder.hpp"
#include "../stored_extras.hpp"
#include "families.hpp"

namespace cardfit::families {

Model glm4_moe(const Config& c) {
  DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 131072});
  if (!c.has("head_dim")) d.head_dim = 128;
  const bool bias = c.boolean_or("attention_bias", false);
  const bool qk_norm = c.boolean_or("use_qk_norm", false);
  const int64_t experts = c.positive_or({"n_routed_experts"}, 128);
  const int64_t shared = c.count_or({"n_shared_experts"}, 1);
  const int64_t top_k = c.positive_or({"num_experts_per_tok"}, 8);
  const int64_t moe_inter = c.positive_or({"moe_intermediate_size"}, 1408);
  const int64_t first_dense = c.count_or({"first_k_dense_replace"}, 1);
  require(top_k <= experts, c, "num_experts_per_tok", "num_experts_per_tok cannot exceed n_routed_experts.");
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("glm4_moe", "glm4_moe");
  set_dims(b, d, c);
  b.dims().experts = experts;
  b.dims().experts_per_token = top_k;
  causal_lm_stack(b, d, {}, [&](int i, const std::string& p) {
    b.norm(p + ".input_layernorm", d.hidden, NormKind::rmsnorm);
    attention_block(b, {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                        .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias, .v_bias = bias,
                        .q_norm = qk_norm ? "q_norm" : "", .k_norm = qk_norm ? "k_norm" : ""});
    b.residual(p + ".residual_attn", d.hidden);
    b.norm(p + ".post_attention_layernorm", d.hidden, NormKind::rmsnorm);
    if (i >= first_dense) {
      moe_block(b, {.prefix = p + ".mlp", .hidden = d.hidden, .experts = experts, .top_k = top_k,
                    .expert_intermediate = moe_inter, .expert = {.act = act}, .shared_experts = shared > 0 ? 1 : 0,
                    .shared_intermediate = moe_inter * shared});
      b.buffer(p + ".mlp.gate.e_score_correction_bias", {experts});
    } else {
      mlp_block(b, {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate, .act = act});
    }
    b.residual(p + ".residual_mlp", d.hidden);
  });
  const int64_t mtp = c.count_or({"num_nextn_predict_layers"}, 0);
  if (mtp > 0) {
    add_nextn_layers(b.model(), mtp, d.layers, d.layers - 1, d.hidden, d.vocab);
    b.note("The published checkpoint also stores " + std::to_string(mtp) + " multi-token-prediction layer(s) as "
           "model.layers." + std::to_string(d.layers) + ".* (num_nextn_predict_layers); Glm4MoeForCausalLM drops "
           "them on load, so they are not counted here.");
  }
  return b.finish();
}

}  // namespace cardfit::families

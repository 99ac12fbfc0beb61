// Qwen3-VL-MoE (transformers models/qwen3_vl_moe/modeling_qwen3_vl_moe.py,
// Qwen3VLMoeForConditionalGeneration; Qwen3-VL-30B-A3B, 235B-A22B): Qwen3-VL's vision tower with its
// deepstack mergers (qwen_vision.hpp qwen3_vision, "model.visual.") over a Qwen3-MoE-shaped language
// model, text_config traced as qwen3_vl_moe_text and stored as "model.language_model.*" beside
// "lm_head.*" (tie_word_embeddings: top level, Qwen3VLConfig default False).
// The language model (Qwen3VLMoeTextModel): Qwen3's attention (q_norm / k_norm [head_dim], no sliding
// window: Qwen3VLMoeTextConfig removes it); MoE layers (every decoder_sparse_step-th, not in
// mlp_only_layers) route with mlp.gate [experts, hidden] to experts that are bare stacked parameters.
// Their checkpoint layout is input-major, mlp.experts.gate_up_proj [E, hidden, 2 * moe_intermediate_size]
// and mlp.experts.down_proj [E, moe_intermediate_size, hidden]: transformers' conversion_mapping.py
// transposes both (Transpose(1, 2)) into Qwen3MoeExperts' [E, out, in] on load, so the published names
// and shapes are the input-major ones (fused_moe_block, stacked_in_out). No shared expert.
// Qwen3VLMoeTextConfig: head_dim = hidden_size / num_attention_heads unless given; 60 experts, top 4,
// moe_intermediate_size 1408, intermediate_size 5632, max_position_embeddings 128000.
#include <algorithm>

#include "../decoder.hpp"
#include "../qwen_vision.hpp"
#include "../registry.hpp"
#include "../vision.hpp"
#include "families.hpp"
#include "wrappers.hpp"

namespace cardfit::families {

Model qwen3_vl_moe_text(const Config& c) {
  // Qwen3VLMoeTextConfig's own tie default is True; the wrapper passes its top-level value.
  DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = true, .max_positions = 128000});
  const bool bias = c.boolean_or("attention_bias", false);
  const int64_t experts = c.positive_or({"num_experts"}, 60);
  const int64_t top_k = c.positive_or({"num_experts_per_tok"}, 4);
  const int64_t moe_inter = c.positive_or({"moe_intermediate_size"}, 1408);
  const int64_t sparse_step = c.positive_or({"decoder_sparse_step"}, 1);
  const std::vector<int64_t> mlp_only = c.integer_list("mlp_only_layers");
  require(top_k <= experts, c, "num_experts_per_tok", "num_experts_per_tok cannot exceed num_experts.");
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("qwen3_vl_moe_text", "qwen3_vl_moe");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int i, const std::string& p) {
    // Qwen3MoeDecoderLayer: sparse when (i + 1) % decoder_sparse_step == 0 and i is not in mlp_only_layers.
    const bool sparse = (i + 1) % sparse_step == 0 && std::find(mlp_only.begin(), mlp_only.end(), i) == mlp_only.end();
    DecoderLayerSpec layer{
        .prefix = p,
        .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                 .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias, .v_bias = bias, .o_bias = bias,
                 .qk_norm = NormKind::rmsnorm, .q_norm = "q_norm", .k_norm = "k_norm"},
        .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate, .act = act},
        .hidden = d.hidden};
    if (sparse)
      layer.fused_moe = FusedMoeSpec{.prefix = p + ".mlp", .hidden = d.hidden, .experts = experts, .top_k = top_k,
                                     .intermediate = moe_inter, .router = "gate", .down = "experts.down_proj",
                                     .layout = FusedExpertLayout::stacked_in_out, .act = act,
                                     .gate_up = "experts.gate_up_proj"};
    pre_norm_decoder_layer(b, layer);
  });
  return b.finish();
}

// Qwen3VLMoeConfig: the same wrapper as Qwen3-VL (tie default False) over qwen3_vl_moe_text.
Model qwen3_vl_moe(const Config& c) { return qwen3_vl_over(c, "qwen3_vl_moe_text", "qwen3_vl_moe"); }

}  // namespace cardfit::families

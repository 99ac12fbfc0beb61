// Qwen3-Omni-MoE's thinker language model (transformers models/qwen3_omni_moe/modular_qwen3_omni_moe.py,
// read 2026-12-01: Qwen3OmniMoeThinkerTextModel(Qwen3VLMoeTextModel) with Qwen3OmniMoeThinkerTextDecoderLayer
// (Qwen3MoeDecoderLayer) and Qwen3OmniMoeThinkerTextAttention (Qwen3MoeAttention, sliding_window = None),
// plus the thinker's lm_head). Traced for a pasted thinker_config.text_config (model_type
// "qwen3_omni_moe_text"); the whole qwen3_omni_moe checkpoint (audio tower, talker, code2wav) is not
// traced yet and stays refused (generic_decoder.cpp names its sub-configs).
// Attention: Qwen3's q_norm / k_norm [head_dim], no biases unless attention_bias, no sliding window.
// MoE layers (every decoder_sparse_step-th, not in mlp_only_layers): router mlp.gate [experts, hidden] and
// experts stored per expert, mlp.experts.{e}.{gate,up,down}_proj, as the published checkpoint holds them
// (Qwen3-Omni-30B-A3B-Instruct's safetensors list thinker.model.layers.*.mlp.experts.{e}.gate_proj.weight
// [768, 2048] ...), no shared expert (the serialised shared_expert_intermediate_size 0 builds nothing).
// Qwen3OmniMoeTextConfig defaults: tie_word_embeddings False, max_position_embeddings 32768,
// 128 experts, top 8, moe_intermediate_size 768, decoder_sparse_step 1; head_dim = hidden / heads
// unless given (Qwen3MoeAttention's getattr fallback).
#include <algorithm>

#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model qwen3_omni_moe_text(const Config& c) {
  DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 32768});
  const bool bias = c.boolean_or("attention_bias", false);
  const int64_t experts = c.count_or({"num_experts"}, 128);
  const int64_t top_k = c.positive_or({"num_experts_per_tok"}, 8);
  const int64_t moe_inter = c.positive_or({"moe_intermediate_size"}, 768);
  const int64_t sparse_step = c.positive_or({"decoder_sparse_step"}, 1);
  const std::vector<int64_t> mlp_only = c.integer_list("mlp_only_layers");
  require(experts == 0 || top_k <= experts, c, "num_experts_per_tok",
          "num_experts_per_tok cannot exceed num_experts.");
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("qwen3_omni_moe_text", "qwen3");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int i, const std::string& p) {
    // Qwen3MoeDecoderLayer: sparse when (i + 1) % decoder_sparse_step == 0 and i is not in mlp_only_layers.
    const bool sparse = experts > 0 && (i + 1) % sparse_step == 0 &&
                        std::find(mlp_only.begin(), mlp_only.end(), i) == mlp_only.end();
    DecoderLayerSpec layer{
        .prefix = p,
        .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                 .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias, .v_bias = bias, .o_bias = bias,
                 .qk_norm = NormKind::rmsnorm, .q_norm = "q_norm", .k_norm = "k_norm"},
        .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate, .act = act},
        .hidden = d.hidden};
    if (sparse)
      layer.moe = MoeSpec{.prefix = p + ".mlp", .hidden = d.hidden, .experts = experts, .top_k = top_k,
                          .expert_intermediate = moe_inter, .router = "gate", .expert = {.act = act}};
    pre_norm_decoder_layer(b, layer);
  });
  return b.finish();
}

}  // namespace cardfit::families

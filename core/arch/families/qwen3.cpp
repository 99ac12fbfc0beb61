// Qwen3 and Qwen3-MoE (transformers models/qwen3, models/qwen3_moe): Llama-shaped attention with
// per-head RMSNorms on q and k (self_attn.q_norm / k_norm, [head_dim]); q/k/v/o biases follow
// attention_bias. Qwen3-MoE replaces the MLP with a router mlp.gate [experts, hidden] and experts
// mlp.experts.{e}.{gate,up,down}_proj (moe_intermediate_size), no shared expert; layers in
// mlp_only_layers or off the decoder_sparse_step grid keep a dense MLP of intermediate_size.
// Qwen3-Omni-MoE's thinker language model (models/qwen3_omni_moe/modular_qwen3_omni_moe.py, read
// 2026-12-01: Qwen3OmniMoeThinkerTextModel with Qwen3MoeDecoderLayer, its attention with
// sliding_window = None, the thinker's lm_head; Qwen3OmniMoeTextConfig's defaults are Qwen3-MoE's) is
// Qwen3-MoE without a window, traced for a pasted thinker_config.text_config (model_type
// "qwen3_omni_moe_text"); its checkpoint stores the experts one by one as Qwen3-MoE's does. The whole
// qwen3_omni_moe checkpoint traces it as thinker.model.* (qwen3_omni_moe.cpp).
#include <algorithm>

#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
struct Qwen3Variant {
  bool moe = false;
  const char* type = "qwen3";
  bool windows = true;  // use_sliding_window is read (Qwen3-Omni's thinker attention has none)
};

Model qwen3_family(const Config& c, Qwen3Variant v) {
  const bool moe = v.moe;
  const std::string type = v.type;
  DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 32768});
  // Qwen3Config declares head_dim=128; Qwen3MoeConfig has no such field and the attention falls
  // back to hidden_size // num_attention_heads (what read_decoder_shape applies).
  if (!moe && !c.has("head_dim")) d.head_dim = 128;
  const bool bias = c.boolean_or("attention_bias", false);
  const bool sliding = v.windows && c.boolean_or("use_sliding_window", false);
  // Qwen3: layer_types, else layers >= max_window_layers slide when use_sliding_window.
  // Qwen3-MoE: every layer slides when use_sliding_window.
  const int64_t max_window_layers = c.count_or({"max_window_layers"}, 28);
  const std::vector<int64_t> window = layer_windows(
      c, d.layers, d.sliding_window, [&](int i) { return sliding && (moe || i >= max_window_layers); });
  const int64_t experts = moe ? c.count_or({"num_experts"}, 128) : 0;
  const int64_t top_k = c.positive_or({"num_experts_per_tok"}, 8);
  const int64_t moe_inter = c.positive_or({"moe_intermediate_size"}, 768);
  const int64_t sparse_step = c.positive_or({"decoder_sparse_step"}, 1);
  const std::vector<int64_t> mlp_only = c.integer_list("mlp_only_layers");
  require(experts == 0 || top_k <= experts, c, "num_experts_per_tok",
          "num_experts_per_tok cannot exceed num_experts.");
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b(type, "qwen3");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int i, const std::string& p) {
    const bool sparse = moe && experts > 0 && (i + 1) % sparse_step == 0 &&
                        std::find(mlp_only.begin(), mlp_only.end(), i) == mlp_only.end();
    DecoderLayerSpec layer{
        .prefix = p,
        .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                 .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias, .v_bias = bias, .o_bias = bias,
                 .qk_norm = NormKind::rmsnorm, .q_norm = "q_norm", .k_norm = "k_norm", .window = window[size_t(i)]},
        .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate, .act = act},
        .hidden = d.hidden};
    if (sparse)
      layer.moe = MoeSpec{.prefix = p + ".mlp", .hidden = d.hidden, .experts = experts, .top_k = top_k,
                          .expert_intermediate = moe_inter, .router = "gate", .expert = {.act = act}};
    pre_norm_decoder_layer(b, layer);
  });
  return b.finish();
}
}  // namespace

Model qwen3(const Config& c) { return qwen3_family(c, {}); }
Model qwen3_moe(const Config& c) { return qwen3_family(c, {.moe = true, .type = "qwen3_moe"}); }
Model qwen3_omni_moe_text(const Config& c) {
  return qwen3_family(c, {.moe = true, .type = "qwen3_omni_moe_text", .windows = false});
}

}  // namespace cardfit::families

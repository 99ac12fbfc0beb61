// Qwen2-MoE (transformers models/qwen2_moe): Qwen2 attention (q/k/v bias = qkv_bias) with a sparse
// MoE: router mlp.gate [experts, hidden], experts mlp.experts.{e}.{gate,up,down}_proj of
// moe_intermediate_size, one always-on mlp.shared_expert of shared_expert_intermediate_size and its
// sigmoid gate mlp.shared_expert_gate [1, hidden]. Layers in mlp_only_layers, or off the
// decoder_sparse_step grid, or all layers when num_experts == 0, keep a dense MLP (intermediate_size).
#include <algorithm>

#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {


Model qwen2_moe(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 32768});
  const int64_t experts = c.count_or({"num_experts"}, 60);
  const int64_t top_k = c.positive_or({"num_experts_per_tok"}, 4);
  const int64_t moe_inter = c.positive_or({"moe_intermediate_size"}, 1408);
  const int64_t shared_inter = c.positive_or({"shared_expert_intermediate_size"}, 5632);
  const int64_t sparse_step = c.positive_or({"decoder_sparse_step"}, 1);
  const std::vector<int64_t> mlp_only = c.integer_list("mlp_only_layers");
  // Qwen2MoeConfig.layer_types when given; otherwise its default: with use_sliding_window, the odd
  // layers ((i + 1) % 2) below max_window_layers slide.
  const bool sliding = c.boolean_or("use_sliding_window", false);
  const int64_t max_window_layers = c.count_or({"max_window_layers"}, 28);
  const std::vector<int64_t> window = layer_windows(c, d.layers, d.sliding_window, [&](int i) {
    return sliding && (i + 1) % 2 && i < max_window_layers;
  });
  require(experts == 0 || top_k <= experts, c, "num_experts_per_tok",
          "num_experts_per_tok cannot exceed num_experts.");
  const bool qkv_bias = c.boolean_or("qkv_bias", true);
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("qwen2_moe", "qwen2_moe");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int i, const std::string& p) {
    const bool sparse = std::find(mlp_only.begin(), mlp_only.end(), i) == mlp_only.end() && experts > 0 &&
                        (i + 1) % sparse_step == 0;
    DecoderLayerSpec layer{
        .prefix = p,
        .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                 .head_dim = d.head_dim, .q_bias = qkv_bias, .k_bias = qkv_bias, .v_bias = qkv_bias,
                 .window = window[size_t(i)]},
        .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate, .act = act},
        .hidden = d.hidden};
    if (sparse)
      layer.moe = MoeSpec{.prefix = p + ".mlp", .hidden = d.hidden, .experts = experts, .top_k = top_k,
                          .expert_intermediate = moe_inter, .router = "gate", .expert = {.act = act},
                          .shared_experts = 1, .shared_intermediate = shared_inter,
                          .shared_name = "shared_expert", .shared_gate = "shared_expert_gate"};
    pre_norm_decoder_layer(b, layer);
  });
  return b.finish();
}

}  // namespace cardfit::families

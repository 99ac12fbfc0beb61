// Llama (transformers models/llama/modeling_llama.py) and the configs that share its tensors:
// Mistral (no biases, sliding window) and Qwen2 (q/k/v biases, sliding window on upper layers).
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
struct Variant {
  bool qkv_bias;     // Qwen2: q/k/v projections carry a bias
  bool tie_default;  // the config class's tie_word_embeddings default
  int64_t max_positions_default;
};

Variant variant_of(const std::string& type, const Config& c) {
  if (type == "qwen2") return {true, false, 32768};
  if (type == "mistral") return {false, false, 4096 * 32};
  // LlamaConfig: attention_bias=False applies to q, k, v and o.
  return {c.boolean_or("attention_bias", false), false, 2048};
}

// Mistral: every layer slides when sliding_window is set. Qwen2: only when use_sliding_window,
// and then only layers >= max_window_layers.
int64_t layer_window(const std::string& type, const Config& c, int64_t window, int layer) {
  if (window == 0) return 0;
  if (type == "mistral") return window;
  if (type == "qwen2") {
    if (!c.boolean_or("use_sliding_window", false)) return 0;
    return layer >= c.count_or({"max_window_layers"}, 28) ? window : 0;
  }
  return 0;
}
}  // namespace

Model llama(const Config& c) {
  const std::string type = c.string_or("model_type", "llama");
  const Variant v = variant_of(type, c);
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = v.tie_default,
                                                .max_positions = v.max_positions_default});
  const bool o_bias = type == "llama" && c.boolean_or("attention_bias", false);
  const bool mlp_bias = type == "llama" && c.boolean_or("mlp_bias", false);
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b(type, "llama");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int i, const std::string& p) {
    pre_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads,
                     .kv_heads = d.kv_heads, .head_dim = d.head_dim, .q_bias = v.qkv_bias,
                     .k_bias = v.qkv_bias, .v_bias = v.qkv_bias, .o_bias = o_bias,
                     .window = layer_window(type, c, d.sliding_window, i)},
            .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate,
                    .bias = mlp_bias, .act = act},
            .hidden = d.hidden});
  });
  return b.finish();
}

}  // namespace cardfit::families

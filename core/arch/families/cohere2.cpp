// Cohere 2 (transformers models/cohere2/modeling_cohere2.py, Cohere2ForCausalLM; Command R7B, Command A):
// Cohere's parallel block (y = x + attn(ln(x)) + mlp(ln(x)), one bias-free LayerNorm per layer,
// layers.hpp parallel_layer) without q/k norms; sliding layers attend within
// sliding_window with RoPE, full layers see the whole context without positions (no parameters
// either way). Cohere2Config: head_dim = hidden_size / num_attention_heads (set in __post_init__,
// whatever the file says), tie_word_embeddings=True, sliding_window=4096, max_position_embeddings=8192,
// layer_types else the sliding_window_pattern kwarg (default 4): layer i slides unless (i + 1) % 4 == 0.
#include "../decoder.hpp"
#include "../layers.hpp"
#include "zoo2026.hpp"

namespace cardfit::families {

Model cohere2(const Config& c) {
  DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = true, .max_positions = 8192});
  require(d.hidden % d.heads == 0, c, "num_attention_heads",
          "hidden_size must be divisible by num_attention_heads (Cohere2Config sets head_dim from them).");
  d.head_dim = d.hidden / d.heads;
  require(d.heads % d.kv_heads == 0, c, "num_key_value_heads", "num_key_value_heads must divide num_attention_heads.");
  const int64_t window = c.count_or({"sliding_window"}, 4096);
  const int64_t pattern = c.positive_or({"sliding_window_pattern"}, 4);
  const std::vector<int64_t> windows = layer_windows(c, d.layers, window, [&](int i) { return (i + 1) % pattern != 0; });
  const bool bias = c.boolean_or("attention_bias", false);
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("cohere2", "cohere2");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {.norm_kind = NormKind::layernorm_nobias}, [&](int i, const std::string& p) {
    parallel_layer(b, {.prefix = p, .hidden = d.hidden, .norm = NormKind::layernorm_nobias,
                       .attn_norm = p + ".input_layernorm",
                       .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                                .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias, .v_bias = bias, .o_bias = bias,
                                .window = windows[size_t(i)]},
                       .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate, .act = act}});
  });
  return b.finish();
}

}  // namespace cardfit::families

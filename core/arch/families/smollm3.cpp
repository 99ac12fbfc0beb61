// SmolLM3 (transformers models/smollm3/modeling_smollm3.py, SmolLM3ForCausalLM): Llama's tensors
// (q/k/v/o biases with attention_bias, MLP biases with mlp_bias); no_rope_layers only switch RoPE off
// in some layers (no parameters). SmolLM3Config: tie_word_embeddings=True,
// max_position_embeddings=32768; layer_types default: a NoPE layer (no_rope_layers[i] == 0) slides
// when use_sliding_window and sliding_window are set, every other layer is full attention.
#include "../decoder.hpp"
#include "../layer_types.hpp"
#include "families.hpp"

namespace cardfit::families {

Model smollm3(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = true, .max_positions = 32768});
  const bool attn_bias = c.boolean_or("attention_bias", false);
  const bool mlp_bias = c.boolean_or("mlp_bias", false);
  const int64_t nope_interval = c.positive_or({"no_rope_layer_interval"}, 4);
  const std::vector<int64_t> rope = c.integer_list("no_rope_layers");
  require(rope.empty() || int64_t(rope.size()) >= d.layers, c, "no_rope_layers",
          "no_rope_layers must have an entry for each of the " + std::to_string(d.layers) + " layers.");
  const bool sliding = c.boolean_or("use_sliding_window", false) && d.sliding_window > 0;
  const auto types = read_layer_types(c, d.layers, {"full_attention", "sliding_attention"}, [&](int64_t i) {
    const bool has_rope = rope.empty() ? (i + 1) % nope_interval != 0 : rope[size_t(i)] != 0;
    return sliding && !has_rope ? "sliding_attention" : "full_attention";
  });

  ModelBuilder b("smollm3", "smollm3");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int i, const std::string& p) {
    pre_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                     .head_dim = d.head_dim, .q_bias = attn_bias, .k_bias = attn_bias, .v_bias = attn_bias,
                     .o_bias = attn_bias, .window = window_of(types[size_t(i)], d.sliding_window)},
            .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate, .bias = mlp_bias,
                    .act = c.string_or("hidden_act", "silu")},
            .hidden = d.hidden});
  });
  return b.finish();
}

}  // namespace cardfit::families

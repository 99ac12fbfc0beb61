// StarCoder2 (transformers models/starcoder2): GQA attention with a bias on q/k/v/o and a plain
// (ungated) MLP c_fc / c_proj with biases, all following use_bias (default True); LayerNorms with
// bias (input_layernorm, post_attention_layernorm, model.norm); sliding window on every layer.
// Starcoder2Config: tie_word_embeddings=True, max_position_embeddings=4096, hidden_act
// "gelu_pytorch_tanh".
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model starcoder2(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = true, .max_positions = 4096});
  const bool bias = c.boolean_or("use_bias", true);
  const std::string act = c.string_or("hidden_act", "gelu_pytorch_tanh");

  ModelBuilder b("starcoder2", "starcoder2");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {.norm_kind = NormKind::layernorm}, [&](int, const std::string& p) {
    pre_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads,
                     .kv_heads = d.kv_heads, .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias,
                     .v_bias = bias, .o_bias = bias, .window = d.sliding_window},
            .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate,
                    .gated = false, .bias = bias, .act = act, .up = "c_fc", .down = "c_proj"},
            .norm = NormKind::layernorm, .hidden = d.hidden});
  });
  return b.finish();
}

}  // namespace cardfit::families

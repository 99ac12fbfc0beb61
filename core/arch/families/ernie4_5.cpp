// ERNIE 4.5 dense (transformers models/ernie4_5/modeling_ernie4_5.py, Ernie4_5ForCausalLM): Llama's
// tensors with use_bias switching the biases of q/k/v/o and of the MLP together. Ernie4_5Config:
// head_dim=128, tie_word_embeddings=True, use_bias=False, max_position_embeddings=131072.
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model ernie4_5(const Config& c) {
  DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = true, .max_positions = 131072});
  if (!c.has("head_dim")) d.head_dim = 128;
  const bool bias = c.boolean_or("use_bias", false);

  ModelBuilder b("ernie4_5", "ernie4_5");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int, const std::string& p) {
    pre_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                     .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias, .v_bias = bias, .o_bias = bias},
            .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate, .bias = bias,
                    .act = c.string_or("hidden_act", "silu")},
            .hidden = d.hidden});
  });
  return b.finish();
}

}  // namespace cardfit::families

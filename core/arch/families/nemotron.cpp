// Nemotron / Minitron (transformers models/nemotron): Llama's tensor layout with LayerNorm1P norms
// (weight + bias; the "+1" is applied at run time), a plain (ungated) MLP up_proj / down_proj with
// squared-ReLU, q/k/v/o bias = attention_bias, MLP bias = mlp_bias, partial rotary (no tensors).
// NemotronConfig: head_dim default hidden // heads, tie_word_embeddings=False,
// max_position_embeddings=4096, hidden_act "relu2".
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model nemotron(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 4096});
  const bool attn_bias = c.boolean_or("attention_bias", false);
  const bool mlp_bias = c.boolean_or("mlp_bias", false);
  const std::string act = c.string_or("hidden_act", "relu2");

  ModelBuilder b("nemotron", "nemotron");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {.norm_kind = NormKind::layernorm}, [&](int, const std::string& p) {
    pre_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads,
                     .kv_heads = d.kv_heads, .head_dim = d.head_dim, .q_bias = attn_bias,
                     .k_bias = attn_bias, .v_bias = attn_bias, .o_bias = attn_bias},
            .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate,
                    .gated = false, .bias = mlp_bias, .act = act},
            .norm = NormKind::layernorm, .hidden = d.hidden});
  });
  return b.finish();
}

}  // namespace cardfit::families

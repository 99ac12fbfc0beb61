// Cohere Command-R (transformers models/cohere): a parallel block, y = x + attn(ln(x)) + mlp(ln(x)),
// with one bias-free LayerNorm per layer (input_layernorm) and model.norm. With use_qk_norm the
// q and k heads get bias-free LayerNorms stored as one [heads, head_dim] weight each
// (CohereLayerNorm(hidden_size=(num_heads, head_dim))). CohereConfig: tie_word_embeddings=True,
// max_position_embeddings=8192, attention_bias=False (q/k/v/o); the MLP is gated and bias-free.
#include "../layers.hpp"
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model cohere(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = true, .max_positions = 8192});
  const bool bias = c.boolean_or("attention_bias", false);
  const bool qk_norm = c.boolean_or("use_qk_norm", false);
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("cohere", "cohere");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {.norm_kind = NormKind::layernorm_nobias}, [&](int, const std::string& p) {
    AttentionSpec attn{.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads,
                       .kv_heads = d.kv_heads, .head_dim = d.head_dim, .q_bias = bias,
                       .k_bias = bias, .v_bias = bias, .o_bias = bias,
                       .qk_norm = NormKind::layernorm_nobias};
    if (qk_norm) {
      attn.q_norm = "q_norm";
      attn.k_norm = "k_norm";
      attn.qk_norm_storage = AttentionSpec::kHeadsByDim;
    }
    parallel_layer(b, {.prefix = p, .hidden = d.hidden, .norm = NormKind::layernorm_nobias,
                       .attn_norm = p + ".input_layernorm", .attn = attn,
                       .mlp = {.prefix = p + ".mlp", .hidden = d.hidden,
                               .intermediate = d.intermediate, .act = act}});
  });
  return b.finish();
}

}  // namespace cardfit::families

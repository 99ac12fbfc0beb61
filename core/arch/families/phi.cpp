// Phi-1 / Phi-1.5 / Phi-2 (transformers models/phi): a parallel block, y = x + attn(ln(x)) + mlp(ln(x)),
// with LayerNorms (weight + bias), q/k/v and the output projection self_attn.dense all with bias,
// a plain MLP fc1 / fc2 with bias, model.final_layernorm, and an lm_head with a bias. With
// qk_layernorm, q_layernorm / k_layernorm are LayerNorms over head_dim shared by all heads.
// PhiConfig: tie_word_embeddings=False, max_position_embeddings=2048, hidden_act "gelu_new".
#include "../layers.hpp"
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model phi(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 2048});
  const bool qk_norm = c.boolean_or("qk_layernorm", false);
  const std::string act = c.string_or("hidden_act", "gelu_new");

  ModelBuilder b("phi", "phi");
  set_dims(b, d, c);
  b.block("model.embed_tokens", "embedding");
  token_embedding(b, "model.embed_tokens", d.vocab, d.hidden);
  for (int i = 0; i < d.layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    AttentionSpec attn{.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads,
                       .kv_heads = d.kv_heads, .head_dim = d.head_dim, .q_bias = true,
                       .k_bias = true, .v_bias = true, .o_bias = true, .o = "dense",
                       .qk_norm = NormKind::layernorm};
    if (qk_norm) {
      attn.q_norm = "q_layernorm";
      attn.k_norm = "k_layernorm";
    }
    parallel_layer(b, {.prefix = p, .hidden = d.hidden, .norm = NormKind::layernorm,
                       .attn_norm = p + ".input_layernorm", .attn = attn,
                       .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate,
                               .gated = false, .bias = true, .act = act, .up = "fc1", .down = "fc2"}});
  }
  b.block("final", "final");
  b.norm("model.final_layernorm", d.hidden, NormKind::layernorm);
  lm_head(b, "lm_head", d.hidden, d.vocab, d.tied ? "model.embed_tokens.weight" : "", true);
  return b.finish();
}

}  // namespace cardfit::families

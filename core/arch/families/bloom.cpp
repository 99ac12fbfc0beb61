// BLOOM (transformers models/bloom/modeling_bloom.py): ALiBi (no position tensor), a LayerNorm on
// the word embeddings, fused query_key_value, 4*hidden GELU MLP, biases everywhere, head tied to
// word_embeddings. Names as in BloomForCausalLM.
#include "../layers.hpp"
#include "families.hpp"

namespace cardfit::families {

Model bloom(const Config& c) {
  ModelBuilder b("bloom", "bloom");
  // BloomConfig: hidden_size (legacy n_embed), n_layer, n_head (aliases num_hidden_layers,
  // num_attention_heads), the MLP is always 4*hidden, tie_word_embeddings=True.
  const int64_t vocab = c.positive({"vocab_size"});
  const int64_t hidden = c.positive({"n_embed", "hidden_size"});
  const int64_t layers = c.positive({"n_layer", "num_hidden_layers"});
  const int64_t heads = c.positive({"n_head", "num_attention_heads"});
  const bool tied = c.boolean_or("tie_word_embeddings", true);
  require(hidden % heads == 0, c, "n_head", "hidden_size must be divisible by n_head.");
  const int64_t head_dim = hidden / heads, inner = 4 * hidden;

  b.dims() = Dims{.hidden = hidden, .layers = layers, .heads = heads, .kv_heads = heads,
                  .head_dim = head_dim, .intermediate = inner, .vocab = vocab,
                  .max_positions = c.count_or({"seq_length"}, 0), .tied_embeddings = tied,
                  .initializer_range = c.number_or("initializer_range", 0.02)};
  b.note("ALiBi attention: no position table; the context length is not bounded by a tensor.");

  b.block("transformer.embeddings", "embedding");
  token_embedding(b, "transformer.word_embeddings", vocab, hidden);
  b.norm("transformer.word_embeddings_layernorm", hidden, NormKind::layernorm);
  for (int i = 0; i < layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    residual_layer(b, {.prefix = p, .hidden = hidden, .norm = NormKind::layernorm,
                       .attn = {.prefix = p + ".self_attention", .hidden = hidden, .heads = heads,
                                .kv_heads = heads, .head_dim = head_dim, .o_bias = true,
                                .o = "dense", .fused_qkv = "query_key_value", .fused_bias = true,
                                .alibi = true},
                       .attn_norm = p + ".input_layernorm",
                       .mlp = {.prefix = p + ".mlp", .hidden = hidden, .intermediate = inner,
                               .gated = false, .bias = true, .act = "gelu", .up = "dense_h_to_4h",
                               .down = "dense_4h_to_h"},
                       .mlp_norm = p + ".post_attention_layernorm"});
  }
  b.block("final", "final");
  b.norm("transformer.ln_f", hidden, NormKind::layernorm);
  lm_head(b, "lm_head", hidden, vocab, tied ? "transformer.word_embeddings.weight" : "");
  return b.finish();
}

}  // namespace cardfit::families

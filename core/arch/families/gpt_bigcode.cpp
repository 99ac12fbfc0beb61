// GPT-BigCode (transformers models/gpt_bigcode/modeling_gpt_bigcode.py; SantaCoder, StarCoder):
// GPT-2 layout with nn.Linear weights ([out, in]) and multi-query attention (one shared K/V head
// inside c_attn), learned positions, head tied to wte. Its causal-mask buffer is not persistent.
#include "../layers.hpp"
#include "families.hpp"

namespace cardfit::families {

Model gpt_bigcode(const Config& c) {
  ModelBuilder b("gpt_bigcode", "gpt_bigcode");
  b.facts().dropouts(0.1, 0.1, 0, 0.1);  // GPTBigCodeConfig resid/attn/embd_pdrop
  // GPTBigCodeConfig defaults: n_positions=1024, n_inner=None (4*n_embd), multi_query=True,
  // activation "gelu_pytorch_tanh", tie_word_embeddings=True.
  const int64_t vocab = c.positive({"vocab_size"});
  const int64_t hidden = c.positive({"n_embd", "hidden_size"});
  const int64_t layers = c.positive({"n_layer", "num_hidden_layers"});
  const int64_t heads = c.positive({"n_head", "num_attention_heads"});
  const int64_t positions = c.positive_or({"n_positions", "max_position_embeddings"}, 1024);
  const int64_t inner = c.positive_or({"n_inner"}, 4 * hidden);
  const bool mqa = c.boolean_or("multi_query", true);
  const bool tied = c.boolean_or("tie_word_embeddings", true);
  const std::string act = c.string_or("activation_function", "gelu_pytorch_tanh");
  require(hidden % heads == 0, c, "n_head", "n_embd must be divisible by n_head.");
  const int64_t head_dim = hidden / heads, kv_heads = mqa ? 1 : heads;

  b.dims() = Dims{.hidden = hidden, .layers = layers, .heads = heads, .kv_heads = kv_heads,
                  .head_dim = head_dim, .intermediate = inner, .vocab = vocab,
                  .max_positions = positions, .tied_embeddings = tied,
                  .initializer_range = c.number_or("initializer_range", 0.02)};

  b.block("transformer.embeddings", "embedding");
  token_embedding(b, "transformer.wte", vocab, hidden);
  b.embedding("transformer.wpe", positions, hidden, Role::position_embedding);
  for (int i = 0; i < layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    residual_layer(b, {.prefix = p, .hidden = hidden, .norm = NormKind::layernorm,
                       .attn = {.prefix = p + ".attn", .hidden = hidden, .heads = heads,
                                .kv_heads = kv_heads, .head_dim = head_dim, .o_bias = true,
                                .o = "c_proj", .fused_qkv = "c_attn", .fused_bias = true},
                       .attn_norm = p + ".ln_1",
                       .mlp = {.prefix = p + ".mlp", .hidden = hidden, .intermediate = inner,
                               .gated = false, .bias = true, .act = act, .up = "c_fc",
                               .down = "c_proj"},
                       .mlp_norm = p + ".ln_2"});
  }
  b.block("final", "final");
  b.norm("transformer.ln_f", hidden, NormKind::layernorm);
  lm_head(b, "lm_head", hidden, vocab, tied ? "transformer.wte.weight" : "");
  return b.finish();
}

}  // namespace cardfit::families

// GPT-J (transformers models/gptj/modeling_gptj.py): separate q/k/v/out projections without bias,
// rotary on rotary_dim (no tensor), one ln_1 feeding attention and MLP in parallel, untied lm_head
// with a bias. Names as in GPTJForCausalLM.
#include "../layers.hpp"
#include "families.hpp"

namespace cardfit::families {

Model gptj(const Config& c) {
  ModelBuilder b("gptj", "gptj");
  // GPTJConfig defaults: n_positions=2048, n_inner=None (4*n_embd), activation "gelu_new",
  // tie_word_embeddings=False.
  const int64_t vocab = c.positive({"vocab_size"});
  const int64_t hidden = c.positive({"n_embd", "hidden_size"});
  const int64_t layers = c.positive({"n_layer", "num_hidden_layers"});
  const int64_t heads = c.positive({"n_head", "num_attention_heads"});
  const int64_t positions = c.positive_or({"n_positions", "max_position_embeddings"}, 2048);
  const int64_t inner = c.positive_or({"n_inner"}, 4 * hidden);
  const bool tied = c.boolean_or("tie_word_embeddings", false);
  const std::string act = c.string_or("activation_function", "gelu_new");
  require(hidden % heads == 0, c, "n_head", "n_embd must be divisible by n_head.");
  const int64_t head_dim = hidden / heads;

  b.dims() = Dims{.hidden = hidden, .layers = layers, .heads = heads, .kv_heads = heads,
                  .head_dim = head_dim, .intermediate = inner, .vocab = vocab,
                  .max_positions = positions, .tied_embeddings = tied,
                  .initializer_range = c.number_or("initializer_range", 0.02)};
  b.note("Buffers as the published EleutherAI/gpt-j-6b checkpoint stores them: per layer attn.bias "
         "(the causal mask) and attn.masked_bias (a scalar); newer saves omit them.");

  b.block("transformer.wte", "embedding");
  token_embedding(b, "transformer.wte", vocab, hidden);
  for (int i = 0; i < layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    parallel_layer(b, {.prefix = p, .hidden = hidden, .norm = NormKind::layernorm,
                       .attn_norm = p + ".ln_1",
                       .attn = {.prefix = p + ".attn", .hidden = hidden, .heads = heads,
                                .kv_heads = heads, .head_dim = head_dim, .o = "out_proj"},
                       .mlp = {.prefix = p + ".mlp", .hidden = hidden, .intermediate = inner,
                               .gated = false, .bias = true, .act = act, .up = "fc_in",
                               .down = "fc_out"}});
    b.buffer(p + ".attn.bias", {1, 1, positions, positions});
    b.buffer(p + ".attn.masked_bias", {});
  }
  b.block("final", "final");
  b.norm("transformer.ln_f", hidden, NormKind::layernorm);
  lm_head(b, "lm_head", hidden, vocab, tied ? "transformer.wte.weight" : "", true);
  return b.finish();
}

}  // namespace cardfit::families

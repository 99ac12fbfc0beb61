// GPT-2 (transformers models/gpt2/modeling_gpt2.py): learned positions, Conv1D weights stored
// [in, out], fused c_attn, GELU MLP, head tied to wte. Names as in GPT2LMHeadModel's state dict.
#include "../blocks.hpp"
#include "families.hpp"

namespace cardfit::families {

Model gpt2(const Config& c) {
  ModelBuilder b("gpt2", "gpt2");
  b.facts().dropouts(0.1, 0.1, 0, 0.1);  // GPT2Config resid/attn/embd_pdrop
  b.facts().depth_scaled_init = true;     // GPT2PreTrainedModel: c_proj std / sqrt(2 n_layer)
  const int64_t vocab = c.positive({"vocab_size"});
  const int64_t hidden = c.positive({"n_embd", "hidden_size"});
  const int64_t layers = c.positive({"n_layer", "num_hidden_layers"});
  const int64_t heads = c.positive({"n_head", "num_attention_heads"});
  const int64_t positions = c.positive({"n_positions", "max_position_embeddings"});
  const int64_t inner = c.positive_or({"n_inner"}, 4 * hidden);  // GPT2Config: n_inner=None → 4*n_embd
  const bool tied = c.boolean_or("tie_word_embeddings", true);
  const std::string act = c.string_or("activation_function", "gelu_new");
  require(hidden % heads == 0, c, "n_head", "n_embd must be divisible by n_head.");

  Dims& d = b.dims();
  d = Dims{.hidden = hidden, .layers = layers, .heads = heads, .kv_heads = heads,
           .head_dim = hidden / heads, .intermediate = inner, .vocab = vocab,
           .max_positions = positions, .tied_embeddings = tied,
           .initializer_range = c.number_or("initializer_range", 0.02)};

  b.block("transformer.embeddings", "embedding");
  b.embedding("transformer.wte", vocab, hidden, Role::embedding);
  b.embedding("transformer.wpe", positions, hidden, Role::position_embedding);
  for (int i = 0; i < layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    b.norm(p + ".ln_1", hidden, NormKind::layernorm);
    attention_block(b, {.prefix = p + ".attn", .hidden = hidden, .heads = heads, .kv_heads = heads,
                        .head_dim = hidden / heads, .o_bias = true, .o = "c_proj",
                        .fused_qkv = "c_attn",
                        .fused_bias = true, .transposed = true});
    // The published checkpoint stores each layer's causal mask (a bool buffer of n_positions²).
    b.buffer(p + ".attn.bias", {1, 1, positions, positions});
    b.residual(p + ".residual_attn", hidden);
    b.norm(p + ".ln_2", hidden, NormKind::layernorm);
    mlp_block(b, {.prefix = p + ".mlp", .hidden = hidden, .intermediate = inner, .gated = false,
                  .bias = true, .transposed = true, .act = act, .up = "c_fc", .down = "c_proj"});
    b.residual(p + ".residual_mlp", hidden);
  }
  b.block("final", "final");
  b.norm("transformer.ln_f", hidden, NormKind::layernorm);
  lm_head(b, "lm_head", hidden, vocab, tied ? "transformer.wte.weight" : "");
  return b.finish();
}

}  // namespace cardfit::families

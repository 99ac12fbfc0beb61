// GPT-NeoX (transformers models/gpt_neox/modeling_gpt_neox.py; Pythia, GPT-NeoX-20B): fused
// query_key_value with biases, partial rotary (no tensor), parallel residual by default
// (x + attn(ln1 x) + mlp(ln2 x)), untied embed_out. Names as in GPTNeoXForCausalLM.
#include "../layers.hpp"
#include "families.hpp"

namespace cardfit::families {

Model gpt_neox(const Config& c) {
  ModelBuilder b("gpt_neox", "gpt_neox");
  b.facts().depth_scaled_init = true;  // GPTNeoX: output projections scaled by depth
  // GPTNeoXConfig defaults: tie_word_embeddings=False, use_parallel_residual=True,
  // attention_bias=True, max_position_embeddings=2048, rotary_pct=0.25, hidden_act="gelu".
  const int64_t vocab = c.positive({"vocab_size"});
  const int64_t hidden = c.positive({"hidden_size"});
  const int64_t layers = c.positive({"num_hidden_layers"});
  const int64_t heads = c.positive({"num_attention_heads"});
  const int64_t inter = c.positive({"intermediate_size"});
  const int64_t positions = c.positive_or({"max_position_embeddings"}, 2048);
  const bool tied = c.boolean_or("tie_word_embeddings", false);
  const bool parallel = c.boolean_or("use_parallel_residual", true);
  const bool bias = c.boolean_or("attention_bias", true);
  const double rotary_pct = c.number_or("rotary_pct", c.number_or("partial_rotary_factor", 0.25));
  const std::string act = c.string_or("hidden_act", "gelu");
  require(hidden % heads == 0, c, "num_attention_heads",
          "hidden_size must be divisible by num_attention_heads.");
  const int64_t head_dim = hidden / heads;
  const int64_t rotary_ndims = int64_t(double(head_dim) * rotary_pct);

  b.dims() = Dims{.hidden = hidden, .layers = layers, .heads = heads, .kv_heads = heads,
                  .head_dim = head_dim, .intermediate = inter, .vocab = vocab,
                  .max_positions = positions, .tied_embeddings = tied,
                  .initializer_range = c.number_or("initializer_range", 0.02)};
  b.note("Buffers as the published EleutherAI checkpoints store them (saved by transformers < 4.31): "
         "per layer attention.bias (the causal mask), attention.masked_bias (a scalar) and "
         "attention.rotary_emb.inv_freq; checkpoints saved by newer versions omit them.");

  b.block("gpt_neox.embed_in", "embedding");
  token_embedding(b, "gpt_neox.embed_in", vocab, hidden);
  for (int i = 0; i < layers; ++i) {
    const std::string p = "gpt_neox.layers." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    AttentionSpec attn{.prefix = p + ".attention", .hidden = hidden, .heads = heads, .kv_heads = heads,
                       .head_dim = head_dim, .o_bias = bias, .o = "dense",
                       .fused_qkv = "query_key_value", .fused_bias = bias};
    MlpSpec mlp{.prefix = p + ".mlp", .hidden = hidden, .intermediate = inter, .gated = false,
                .bias = true, .act = act, .up = "dense_h_to_4h", .down = "dense_4h_to_h"};
    if (parallel) {
      parallel_layer(b, {.prefix = p, .hidden = hidden, .norm = NormKind::layernorm,
                         .attn_norm = p + ".input_layernorm",
                         .mlp_norm = p + ".post_attention_layernorm", .attn = attn, .mlp = mlp});
    } else {
      residual_layer(b, {.prefix = p, .hidden = hidden, .norm = NormKind::layernorm, .attn = attn,
                         .attn_norm = p + ".input_layernorm", .mlp = mlp,
                         .mlp_norm = p + ".post_attention_layernorm"});
    }
    b.buffer(p + ".attention.bias", {1, 1, positions, positions});
    b.buffer(p + ".attention.masked_bias", {});
    b.buffer(p + ".attention.rotary_emb.inv_freq", {(rotary_ndims + 1) / 2});
  }
  b.block("final", "final");
  b.norm("gpt_neox.final_layer_norm", hidden, NormKind::layernorm);
  lm_head(b, "embed_out", hidden, vocab, tied ? "gpt_neox.embed_in.weight" : "");
  return b.finish();
}

}  // namespace cardfit::families

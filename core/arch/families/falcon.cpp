// Falcon (transformers models/falcon/modeling_falcon.py) and the original remote-code configs it
// replaced: "RefinedWebModel" (tiiuae falcon-7b modelling_RW.py: multi_query, one input_layernorm)
// and "RefinedWeb" (falcon-40b modelling_RW.py: grouped K/V heads n_head_kv, ln_attn + ln_mlp).
// Fused query_key_value sized by the K/V layout, optional biases, rotary or ALiBi (no tensor),
// parallel attention + MLP or sequential, head tied to word_embeddings. Names as in
// FalconForCausalLM / RWForCausalLM (the same).
#include "../layers.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
struct FalconLayout {
  int64_t kv_heads = 0;
  bool parallel = true;
  bool two_norms = false;   // ln_attn + ln_mlp
  int64_t ffn = 0;
};
}  // namespace

Model falcon(const Config& c) {
  const std::string type = c.string_or("model_type", "falcon");
  const bool rw_40b = type == "RefinedWeb", rw_7b = type == "RefinedWebModel";
  ModelBuilder b(type, "falcon");

  const int64_t vocab = c.positive_or({"vocab_size"}, 65024);
  const int64_t hidden = c.positive_or({"hidden_size", "n_embed"}, 4544);
  const int64_t layers = c.positive_or({"num_hidden_layers", "n_layer"}, 32);
  const int64_t heads = c.positive_or({"num_attention_heads", "n_head"}, 71);
  require(hidden % heads == 0, c, "num_attention_heads",
          "hidden_size must be divisible by num_attention_heads.");
  const int64_t head_dim = hidden / heads;
  const bool alibi = c.boolean_or("alibi", false);
  const bool bias = c.boolean_or("bias", false);
  const bool tied = c.boolean_or("tie_word_embeddings", true);
  const int64_t positions = c.positive_or({"max_position_embeddings"}, 2048);

  FalconLayout l;
  if (rw_40b || rw_7b) {
    // RWConfig defaults: multi_query=False, parallel_attn=False; n_head_kv=None → 1 with
    // multi_query, else n_head. The 40B file always has ln_attn/ln_mlp and a parallel block.
    const bool mq = c.boolean_or("multi_query", false);
    l.kv_heads = rw_40b ? c.positive_or({"n_head_kv"}, mq ? 1 : heads) : (mq ? 1 : heads);
    l.parallel = rw_40b || c.boolean_or("parallel_attn", false);
    l.two_norms = rw_40b;
    l.ffn = 4 * hidden;
  } else {
    // FalconConfig defaults: multi_query=True, parallel_attn=True, new_decoder_architecture=False,
    // num_kv_heads=None (num_attention_heads), num_ln_in_parallel_attn=None (2 with the new
    // architecture), ffn_hidden_size=None (4*hidden). FalconAttention: K/V heads are num_kv_heads
    // with the new architecture or without multi_query, else 1; qkv is 3*hidden for the old
    // non-multi-query layout.
    const bool new_arch = c.boolean_or("new_decoder_architecture", false);
    const bool mq = c.boolean_or("multi_query", true);
    const int64_t num_kv = c.positive_or({"num_kv_heads", "n_head_kv"}, heads);
    l.kv_heads = new_arch ? num_kv : (mq ? 1 : heads);
    l.parallel = c.boolean_or("parallel_attn", true);
    const int64_t num_ln = c.positive_or({"num_ln_in_parallel_attn"}, new_arch ? 2 : 1);
    l.two_norms = l.parallel && num_ln == 2;
    l.ffn = c.positive_or({"ffn_hidden_size"}, 4 * hidden);
  }
  require(heads % l.kv_heads == 0, c, "num_kv_heads", "num_kv_heads must divide num_attention_heads.");
  const std::string act = c.string_or("activation", "gelu");

  b.dims() = Dims{.hidden = hidden, .layers = layers, .heads = heads, .kv_heads = l.kv_heads,
                  .head_dim = head_dim, .intermediate = l.ffn, .vocab = vocab,
                  .max_positions = alibi ? 0 : positions, .tied_embeddings = tied,
                  .initializer_range = c.number_or("initializer_range", 0.02)};
  if (tied)
    b.note("lm_head.weight is tied to transformer.word_embeddings.weight (counted once); the published "
           "tiiuae checkpoints store it as a separate copy.");

  b.block("transformer.word_embeddings", "embedding");
  token_embedding(b, "transformer.word_embeddings", vocab, hidden);
  for (int i = 0; i < layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    AttentionSpec attn{.prefix = p + ".self_attention", .hidden = hidden, .heads = heads,
                       .kv_heads = l.kv_heads, .head_dim = head_dim, .o_bias = bias, .o = "dense",
                       .fused_qkv = "query_key_value", .fused_bias = bias, .alibi = alibi};
    MlpSpec mlp{.prefix = p + ".mlp", .hidden = hidden, .intermediate = l.ffn, .gated = false,
                .bias = bias, .act = act, .up = "dense_h_to_4h", .down = "dense_4h_to_h"};
    if (!l.parallel) {
      residual_layer(b, {.prefix = p, .hidden = hidden, .norm = NormKind::layernorm, .attn = attn,
                         .attn_norm = p + ".input_layernorm", .mlp = mlp,
                         .mlp_norm = p + ".post_attention_layernorm"});
    } else if (l.two_norms) {
      parallel_layer(b, {.prefix = p, .hidden = hidden, .norm = NormKind::layernorm,
                         .attn_norm = p + ".ln_attn", .mlp_norm = p + ".ln_mlp", .attn = attn,
                         .mlp = mlp});
    } else {
      parallel_layer(b, {.prefix = p, .hidden = hidden, .norm = NormKind::layernorm,
                         .attn_norm = p + ".input_layernorm", .attn = attn, .mlp = mlp});
    }
  }
  b.block("final", "final");
  b.norm("transformer.ln_f", hidden, NormKind::layernorm);
  lm_head(b, "lm_head", hidden, vocab, tied ? "transformer.word_embeddings.weight" : "");
  return b.finish();
}

}  // namespace cardfit::families

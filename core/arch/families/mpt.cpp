// MPT (transformers models/mpt/modeling_mpt.py; MosaicML llm-foundry checkpoints): ALiBi, fused
// Wqkv, LayerNorms without bias and linears without bias (no_bias=true), expansion_ratio*d_model
// GELU MLP, head tied to wte. Names as in MptForCausalLM. Where a config departs from the
// transformers port (no_bias=false, learned positions without ALiBi, qk_ln, grouped/multi-query
// attn_type), the tensors follow llm-foundry, which wrote those checkpoints.
#include "../layers.hpp"
#include "families.hpp"

namespace cardfit::families {

Model mpt(const Config& c) {
  ModelBuilder b("mpt", "mpt");
  // MptConfig defaults: d_model=2048, n_heads=16, n_layers=24, expansion_ratio=4, max_seq_len=2048,
  // vocab_size=50368, no_bias=True, learned_pos_emb=True, attn_config.alibi=True.
  const int64_t vocab = c.positive_or({"vocab_size"}, 50368);
  const int64_t hidden = c.positive_or({"d_model", "hidden_size"}, 2048);
  const int64_t layers = c.positive_or({"n_layers", "num_hidden_layers"}, 24);
  const int64_t heads = c.positive_or({"n_heads", "num_attention_heads"}, 16);
  const int64_t ratio = c.positive_or({"expansion_ratio"}, 4);
  const int64_t positions = c.positive_or({"max_seq_len"}, 2048);
  const bool no_bias = c.boolean_or("no_bias", true);
  const bool tied = c.boolean_or("tie_word_embeddings", true);
  require(hidden % heads == 0, c, "n_heads", "d_model must be divisible by n_heads.");
  const int64_t head_dim = hidden / heads;
  const int64_t ffn = checked_mul(ratio, hidden, "expansion_ratio × d_model");

  bool alibi = true, qk_ln = false;
  int64_t kv_heads = heads;
  if (c.has_object("attn_config")) {
    const Config a = c.child("attn_config");
    alibi = a.boolean_or("alibi", true);
    qk_ln = a.boolean_or("qk_ln", false);
    const std::string kind = a.string_or("attn_type", "multihead_attention");
    if (kind == "multiquery_attention") kv_heads = 1;
    if (kind == "grouped_query_attention") kv_heads = a.positive_or({"kv_n_heads"}, heads);
    require(heads % kv_heads == 0, a, "kv_n_heads", "kv_n_heads must divide n_heads.");
  }
  const bool wpe = !alibi && c.boolean_or("learned_pos_emb", true);
  const NormKind norm = no_bias ? NormKind::layernorm_nobias : NormKind::layernorm;
  const bool bias = !no_bias;

  b.dims() = Dims{.hidden = hidden, .layers = layers, .heads = heads, .kv_heads = kv_heads,
                  .head_dim = head_dim, .intermediate = ffn, .vocab = vocab,
                  .max_positions = positions, .tied_embeddings = tied,
                  .initializer_range = c.number_or("initializer_range", 0.02)};

  b.block("transformer.wte", "embedding");
  token_embedding(b, "transformer.wte", vocab, hidden);
  if (wpe) b.embedding("transformer.wpe", positions, hidden, Role::position_embedding);
  for (int i = 0; i < layers; ++i) {
    const std::string p = "transformer.blocks." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    AttentionSpec attn{.prefix = p + ".attn", .hidden = hidden, .heads = heads, .kv_heads = kv_heads,
                       .head_dim = head_dim, .o_bias = bias, .o = "out_proj", .fused_qkv = "Wqkv",
                       .fused_bias = bias, .alibi = alibi};
    if (qk_ln) {
      attn.qk_norm = norm;
      attn.q_norm = "q_ln";
      attn.k_norm = "k_ln";
      attn.qk_norm_per_head = false;
    }
    residual_layer(b, {.prefix = p, .hidden = hidden, .norm = norm, .attn = attn,
                       .attn_norm = p + ".norm_1",
                       .mlp = {.prefix = p + ".ffn", .hidden = hidden, .intermediate = ffn,
                               .gated = false, .bias = bias, .act = "gelu"},
                       .mlp_norm = p + ".norm_2"});
  }
  b.block("final", "final");
  b.norm("transformer.norm_f", hidden, norm);
  lm_head(b, "lm_head", hidden, vocab, tied ? "transformer.wte.weight" : "");
  return b.finish();
}

}  // namespace cardfit::families

// ChatGLM (remote code, model_type "chatglm"; THUDM modeling_chatglm.py). Two layouts share the
// model_type:
//  - ChatGLM-6B (v1; config has vocab_size/inner_hidden_size/position_encoding_2d): GLM blocks
//    with LayerNorms, fused query_key_value and dense with biases, a GELU MLP, a persistent
//    rotary inv_freq buffer per layer, lm_head tied to word_embeddings.
//  - ChatGLM2/3-6B and GLM-4 (padded_vocab_size, ffn_hidden_size, kv_channels, multi_query_*):
//    RMSNorm, grouped K/V heads inside query_key_value (bias per add_qkv_bias), SwiGLU with a fused
//    dense_h_to_4h, one rotary inv_freq buffer, an untied transformer.output_layer.
#include "../layers.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
Model chatglm_v1(const Config& c) {
  ModelBuilder b("chatglm", "chatglm");
  // ChatGLMConfig (v1) defaults: vocab_size=150528, hidden_size=4096, num_layers=28,
  // num_attention_heads=32, inner_hidden_size=16384, max_sequence_length=2048,
  // position_encoding_2d=True; tie_word_embeddings=True (PretrainedConfig).
  const int64_t vocab = c.positive_or({"vocab_size"}, 150528);
  const int64_t hidden = c.positive_or({"hidden_size"}, 4096);
  const int64_t layers = c.positive_or({"num_layers"}, 28);
  const int64_t heads = c.positive_or({"num_attention_heads"}, 32);
  const int64_t inner = c.positive_or({"inner_hidden_size"}, 16384);
  const int64_t positions = c.positive_or({"max_sequence_length"}, 2048);
  const bool two_d = c.boolean_or("position_encoding_2d", true);
  const bool tied = c.boolean_or("tie_word_embeddings", true);
  require(hidden % heads == 0, c, "num_attention_heads",
          "hidden_size must be divisible by num_attention_heads.");
  const int64_t head_dim = hidden / heads;
  const int64_t rotary = two_d ? hidden / checked_mul(heads, 2, "num_attention_heads × 2") : head_dim;  // RotaryEmbedding(dim)

  b.dims() = Dims{.hidden = hidden, .layers = layers, .heads = heads, .kv_heads = heads,
                  .head_dim = head_dim, .intermediate = inner, .vocab = vocab,
                  .max_positions = positions, .tied_embeddings = tied,
                  .initializer_range = c.number_or("initializer_range", 0.02)};
  b.note("ChatGLM-6B (v1) layout. Each layer stores attention.rotary_emb.inv_freq (a persistent buffer).");

  b.block("transformer.word_embeddings", "embedding");
  token_embedding(b, "transformer.word_embeddings", vocab, hidden);
  for (int i = 0; i < layers; ++i) {
    const std::string p = "transformer.layers." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    residual_layer(b, {.prefix = p, .hidden = hidden, .norm = NormKind::layernorm,
                       .attn = {.prefix = p + ".attention", .hidden = hidden, .heads = heads,
                                .kv_heads = heads, .head_dim = head_dim, .o_bias = true,
                                .o = "dense", .fused_qkv = "query_key_value", .fused_bias = true},
                       .attn_norm = p + ".input_layernorm",
                       .mlp = {.prefix = p + ".mlp", .hidden = hidden, .intermediate = inner,
                               .gated = false, .bias = true, .act = "gelu_new",
                               .up = "dense_h_to_4h", .down = "dense_4h_to_h"},
                       .mlp_norm = p + ".post_attention_layernorm"});
    b.buffer(p + ".attention.rotary_emb.inv_freq", {(rotary + 1) / 2});
  }
  b.block("final", "final");
  b.norm("transformer.final_layernorm", hidden, NormKind::layernorm);
  lm_head(b, "lm_head", hidden, vocab, tied ? "transformer.word_embeddings.weight" : "");
  return b.finish();
}

Model chatglm_v2(const Config& c) {
  ModelBuilder b("chatglm", "chatglm");
  // ChatGLMConfig (v2/v3/GLM-4) defaults: num_layers=28, padded_vocab_size=65024,
  // hidden_size=4096, ffn_hidden_size=13696, kv_channels=128, num_attention_heads=32,
  // seq_length=2048, rmsnorm=True, post_layer_norm=True, add_bias_linear=False,
  // add_qkv_bias=False, multi_query_attention=False, multi_query_group_num=1.
  const int64_t vocab = c.positive_or({"padded_vocab_size"}, 65024);
  const int64_t hidden = c.positive_or({"hidden_size"}, 4096);
  const int64_t layers = c.positive_or({"num_layers"}, 28);
  const int64_t heads = c.positive_or({"num_attention_heads"}, 32);
  const int64_t ffn = c.positive_or({"ffn_hidden_size"}, 13696);
  const int64_t kv_channels = c.positive_or({"kv_channels"}, 128);
  const int64_t positions = c.positive_or({"seq_length"}, 2048);
  const bool mqa = c.boolean_or("multi_query_attention", false);
  const int64_t kv_heads = mqa ? c.positive_or({"multi_query_group_num"}, 1) : heads;
  const bool bias_linear = c.boolean_or("add_bias_linear", false);
  const bool qkv_bias = bias_linear || c.boolean_or("add_qkv_bias", false);
  const NormKind norm = c.boolean_or("rmsnorm", true) ? NormKind::rmsnorm : NormKind::layernorm;
  const bool final_norm = c.boolean_or("post_layer_norm", true);
  require(heads % kv_heads == 0, c, "multi_query_group_num",
          "multi_query_group_num must divide num_attention_heads.");

  b.dims() = Dims{.hidden = hidden, .layers = layers, .heads = heads, .kv_heads = kv_heads,
                  .head_dim = kv_channels, .intermediate = ffn, .vocab = vocab,
                  .max_positions = positions, .tied_embeddings = false,
                  .initializer_range = c.number_or("initializer_range", 0.02)};
  b.note("ChatGLM2/3 / GLM-4 layout. transformer.rotary_pos_emb.inv_freq is a persistent buffer; "
         "transformer.output_layer is never tied (the class has no get_output_embeddings).");

  b.block("transformer.embedding", "embedding");
  token_embedding(b, "transformer.embedding.word_embeddings", vocab, hidden);
  // RotaryEmbedding(rotary_dim // 2): inv_freq has rotary_dim / 4 entries.
  b.buffer("transformer.rotary_pos_emb.inv_freq", {(kv_channels / 2 + 1) / 2});
  for (int i = 0; i < layers; ++i) {
    const std::string p = "transformer.encoder.layers." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    residual_layer(b, {.prefix = p, .hidden = hidden, .norm = norm,
                       .attn = {.prefix = p + ".self_attention", .hidden = hidden, .heads = heads,
                                .kv_heads = kv_heads, .head_dim = kv_channels,
                                .o_bias = bias_linear, .o = "dense",
                                .fused_qkv = "query_key_value", .fused_bias = qkv_bias},
                       .attn_norm = p + ".input_layernorm",
                       .mlp = {.prefix = p + ".mlp", .hidden = hidden, .intermediate = ffn,
                               .gated = true, .bias = bias_linear, .act = "silu",
                               .down = "dense_4h_to_h", .fused_gate_up = "dense_h_to_4h"},
                       .mlp_norm = p + ".post_attention_layernorm"});
  }
  b.block("final", "final");
  if (final_norm) b.norm("transformer.encoder.final_layernorm", hidden, norm);
  lm_head(b, "transformer.output_layer", hidden, vocab, "");
  return b.finish();
}
}  // namespace

Model chatglm(const Config& c) {
  const bool v2 = c.has("padded_vocab_size") || c.has("ffn_hidden_size") || c.has("kv_channels") ||
                  c.has("multi_query_attention");
  return v2 ? chatglm_v2(c) : chatglm_v1(c);
}

}  // namespace cardfit::families

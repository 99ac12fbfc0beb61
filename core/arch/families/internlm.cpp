// InternLM (remote code, modeling_internlm.py) and InternLM2 (remote code, modeling_internlm2.py).
// InternLM is Llama's layout with a bias on q/k/v/o when config.bias (InternLMConfig default True).
// InternLM2 renames and fuses: model.tok_embeddings, layers.{i}.attention.wqkv (one projection of
// (heads + 2 * kv_heads) * head_dim rows, bias = config.bias), attention.wo (bias = config.bias),
// feed_forward.w1 / w3 / w2 (gate / up / down, no bias), attention_norm / ffn_norm, model.norm and
// the head "output". Both configs: tie_word_embeddings=False, max_position_embeddings=2048.
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model internlm(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 2048});
  const bool bias = c.boolean_or("bias", true);
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("internlm", "internlm");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int, const std::string& p) {
    pre_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads,
                     .kv_heads = d.kv_heads, .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias,
                     .v_bias = bias, .o_bias = bias},
            .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate, .act = act},
            .hidden = d.hidden});
  });
  return b.finish();
}

Model internlm2(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 2048});
  const bool bias = c.boolean_or("bias", true);
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("internlm2", "internlm");
  set_dims(b, d, c);
  b.block("model.tok_embeddings", "embedding");
  token_embedding(b, "model.tok_embeddings", d.vocab, d.hidden);
  for (int i = 0; i < d.layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    pre_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".attention", .hidden = d.hidden, .heads = d.heads,
                     .kv_heads = d.kv_heads, .head_dim = d.head_dim, .o_bias = bias, .o = "wo",
                     .fused_qkv = "wqkv", .fused_bias = bias},
            .mlp = {.prefix = p + ".feed_forward", .hidden = d.hidden, .intermediate = d.intermediate,
                    .act = act, .gate = "w1", .up = "w3", .down = "w2"},
            .input_norm = "attention_norm", .post_attn_norm = "ffn_norm", .hidden = d.hidden});
  }
  b.block("final", "final");
  b.norm("model.norm", d.hidden, NormKind::rmsnorm);
  lm_head(b, "output", d.hidden, d.vocab, d.tied ? "model.tok_embeddings.weight" : "");
  return b.finish();
}

}  // namespace cardfit::families

// The first Qwen (remote code, modeling_qwen.py, model_type "qwen"; Qwen-1.8B/7B/14B/72B).
// transformer.wte; transformer.h.{i}.ln_1 / ln_2 (RMSNorm); attn.c_attn, one projection making
// q, k and v (3 * kv_channels * heads rows, always with a bias); attn.c_proj (bias = not no_bias);
// mlp.w1 and mlp.w2 of intermediate_size // 2 rows each, combined as w1(x) * silu(w2(x)), and
// mlp.c_proj back to hidden; transformer.ln_f; lm_head. QWenConfig: kv_channels=128,
// max_position_embeddings=8192, no_bias=True, tie_word_embeddings=False.
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model qwen(const Config& c) {
  DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 8192});
  d.head_dim = c.positive_or({"kv_channels"}, 128);
  require(d.kv_heads == d.heads, c, "num_key_value_heads",
          "Qwen's c_attn projects full q, k and v: num_key_value_heads must equal num_attention_heads.");
  require(d.intermediate % 2 == 0, c, "intermediate_size",
          "intermediate_size (" + std::to_string(d.intermediate) +
              ") must be even: Qwen's w1 and w2 each take half of it.");
  const int64_t ff = d.intermediate / 2;  // QWenMLP: ff_dim_in = intermediate_size // 2
  const bool bias = !c.boolean_or("no_bias", true);
  d.intermediate = ff;

  ModelBuilder b("qwen", "qwen");
  set_dims(b, d, c);
  b.block("transformer.wte", "embedding");
  token_embedding(b, "transformer.wte", d.vocab, d.hidden);
  for (int i = 0; i < d.layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    pre_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                     .head_dim = d.head_dim, .o_bias = bias, .o = "c_proj", .fused_qkv = "c_attn",
                     .fused_bias = true},
            .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = ff, .bias = bias,
                    .act = "silu", .gate = "w2", .up = "w1", .down = "c_proj"},
            .input_norm = "ln_1", .post_attn_norm = "ln_2", .hidden = d.hidden});
  }
  b.block("final", "final");
  b.norm("transformer.ln_f", d.hidden, NormKind::rmsnorm);
  lm_head(b, "lm_head", d.hidden, d.vocab, d.tied ? "transformer.wte.weight" : "");
  return b.finish();
}

}  // namespace cardfit::families

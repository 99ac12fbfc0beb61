// Seed-OSS (transformers models/seed_oss/modeling_seed_oss.py, SeedOssForCausalLM): Llama's tensors
// with q/k/v biases (attention_bias), an o_proj bias of its own (attention_out_bias) and MLP biases
// (mlp_bias). SeedOssConfig: attention_bias=True, attention_out_bias=False, mlp_bias=False,
// head_dim=128, tie_word_embeddings=False, max_position_embeddings=524288.
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model seed_oss(const Config& c) {
  DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 524288});
  if (!c.has("head_dim")) d.head_dim = 128;
  const bool qkv_bias = c.boolean_or("attention_bias", true), o_bias = c.boolean_or("attention_out_bias", false);

  ModelBuilder b("seed_oss", "seed_oss");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int, const std::string& p) {
    pre_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                     .head_dim = d.head_dim, .q_bias = qkv_bias, .k_bias = qkv_bias, .v_bias = qkv_bias,
                     .o_bias = o_bias},
            .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate,
                    .bias = c.boolean_or("mlp_bias", false), .act = c.string_or("hidden_act", "silu")},
            .hidden = d.hidden});
  });
  return b.finish();
}

}  // namespace cardfit::families

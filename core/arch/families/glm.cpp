// GLM-4 (transformers models/glm: GlmForCausalLM, glm-4-9b-chat-hf) and GLM-4-0414 (models/glm4:
// Glm4ForCausalLM, GLM-4-9B/32B-0414, GLM-Z1). Both: q/k/v with bias (attention_bias, default True),
// o_proj [hidden, heads * head_dim] without, Phi-3's fused mlp.gate_up_proj (2 * intermediate
// rows) and down_proj, RMSNorms, partial rotary (no parameters), lm_head untied by default.
// GLM: Llama's two pre-norms. GLM-4-0414: sandwich norms, named as Glm4DecoderLayer names them:
// input_layernorm, post_self_attn_layernorm (on the attention output), post_attention_layernorm
// (before the MLP), post_mlp_layernorm (on the MLP output).
// GlmConfig / Glm4Config: num_key_value_heads=2, head_dim=128, max_position_embeddings=131072.
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
constexpr DecoderDefaults kGlmDefaults{.tie_word_embeddings = false, .max_positions = 131072, .kv_heads = 2, .head_dim = 128};

AttentionSpec glm_attention(const Config& c, const DecoderShape& d, const std::string& p) {
  const bool bias = c.boolean_or("attention_bias", true);
  return {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
          .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias, .v_bias = bias};
}

MlpSpec glm_mlp(const Config& c, const DecoderShape& d, const std::string& p) {
  return {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate,
          .act = c.string_or("hidden_act", "silu"), .fused_gate_up = "gate_up_proj"};
}
}  // namespace

Model glm(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, kGlmDefaults);
  ModelBuilder b("glm", "glm");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int, const std::string& p) {
    pre_norm_decoder_layer(b, {.prefix = p, .attn = glm_attention(c, d, p), .mlp = glm_mlp(c, d, p), .hidden = d.hidden});
  });
  return b.finish();
}

Model glm4(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, kGlmDefaults);
  ModelBuilder b("glm4", "glm");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int, const std::string& p) {
    sandwich_norm_decoder_layer(b, {.prefix = p, .attn = glm_attention(c, d, p), .mlp = glm_mlp(c, d, p),
                                    .post_attn_norm = "post_self_attn_layernorm",
                                    .pre_ff_norm = "post_attention_layernorm", .post_ff_norm = "post_mlp_layernorm",
                                    .hidden = d.hidden});
  });
  return b.finish();
}

}  // namespace cardfit::families

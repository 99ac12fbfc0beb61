// StableLM (transformers models/stablelm): LayerNorms with bias, q/k/v bias = use_qkv_bias (o_proj
// never), gated bias-free MLP. With qk_layernorm each head has its own bias-free LayerNorm
// (self_attn.q_layernorm.norms.{h}, k_layernorm over the kv heads). With use_parallel_residual the
// layer is x + attn(ln(x)) + mlp(ln(x)) and has no post_attention_layernorm. StableLmConfig:
// tie_word_embeddings=False, max_position_embeddings=4096; head_dim = hidden // heads.
#include "../layers.hpp"
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model stablelm(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 4096});
  const bool qkv_bias = c.boolean_or("use_qkv_bias", false);
  const bool qk_norm = c.boolean_or("qk_layernorm", false);
  const bool parallel = c.boolean_or("use_parallel_residual", false);
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("stablelm", "stablelm");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {.norm_kind = NormKind::layernorm}, [&](int, const std::string& p) {
    AttentionSpec attn{.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads,
                       .kv_heads = d.kv_heads, .head_dim = d.head_dim, .q_bias = qkv_bias,
                       .k_bias = qkv_bias, .v_bias = qkv_bias, .qk_norm = NormKind::layernorm_nobias};
    if (qk_norm) {
      attn.q_norm = "q_layernorm";
      attn.k_norm = "k_layernorm";
      attn.qk_norm_storage = AttentionSpec::kPerHeadModules;
    }
    const MlpSpec mlp{.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate, .act = act};
    if (parallel) {
      parallel_layer(b, {.prefix = p, .hidden = d.hidden, .norm = NormKind::layernorm,
                         .attn_norm = p + ".input_layernorm", .attn = attn, .mlp = mlp});
    } else {
      pre_norm_decoder_layer(b, {.prefix = p, .attn = attn, .mlp = mlp, .norm = NormKind::layernorm,
                                 .hidden = d.hidden});
    }
  });
  return b.finish();
}

}  // namespace cardfit::families

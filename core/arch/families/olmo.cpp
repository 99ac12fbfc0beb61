// OLMo (transformers models/olmo) and OLMo 2 (models/olmo2), AllenAI.
// OLMo: Llama's layout, but every LayerNorm is non-parametric (OlmoLayerNorm: no weight, no bias),
// so input_layernorm, post_attention_layernorm and model.norm store nothing.
// OLMo 2: no input norm; RMSNorms after attention (post_attention_layernorm) and after the MLP
// (post_feedforward_layernorm), each before its residual add; q_norm / k_norm over the whole
// projection ([heads * head_dim] and [kv_heads * head_dim]). Both: q/k/v/o bias = attention_bias,
// tie_word_embeddings=False, max_position_embeddings=2048.
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model olmo(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 2048});
  const bool bias = c.boolean_or("attention_bias", false);
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("olmo", "olmo");
  b.facts().depth_scaled_init = true;  // OLMo: init_fn scales residual outputs by depth
  set_dims(b, d, c);
  causal_lm_stack(b, d, {.norm_kind = NormKind::layernorm_noaffine}, [&](int, const std::string& p) {
    pre_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads,
                     .kv_heads = d.kv_heads, .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias,
                     .v_bias = bias, .o_bias = bias},
            .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate, .act = act},
            .norm = NormKind::layernorm_noaffine, .hidden = d.hidden});
  });
  return b.finish();
}

Model olmo2(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 2048});
  const bool bias = c.boolean_or("attention_bias", false);
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("olmo2", "olmo");
  b.facts().depth_scaled_init = true;
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int, const std::string& p) {
    sandwich_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads,
                     .kv_heads = d.kv_heads, .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias,
                     .v_bias = bias, .o_bias = bias, .qk_norm = NormKind::rmsnorm,
                     .q_norm = "q_norm", .k_norm = "k_norm", .qk_norm_per_head = false},
            .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate, .act = act},
            .norm = NormKind::rmsnorm, .input_norm = "", .pre_ff_norm = "", .hidden = d.hidden});
  });
  return b.finish();
}

}  // namespace cardfit::families

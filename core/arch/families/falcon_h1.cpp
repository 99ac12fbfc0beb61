// Falcon-H1 (transformers models/falcon_h1/modeling_falcon_h1.py / modular_falcon_h1.py,
// FalconH1ForCausalLM; configuration_falcon_h1.py). Every layer runs a Mamba-2 mixer and attention
// side by side on one input_layernorm, sums them into the residual, then pre_ff_layernorm → a Llama
// MLP (feed_forward.{gate,up,down}_proj, mlp_bias) → residual. The mixer (FalconH1Mixer, under
// ".mamba"): in_proj [inner + conv_dim + heads] (mamba_proj_bias), conv1d, dt_bias / A_log / D,
// the gated RMSNorm [inner] only with mamba_rms_norm (else y * silu(z)), out_proj with
// projectors_bias; inner = mamba_d_ssm (class default 1024; null: mamba_expand * hidden_size). The
// attention is LlamaAttention (head_dim, attention_bias). The µP multipliers (embedding, lm_head,
// key, attention in/out, ssm in/out, ssm_multipliers, mlp_multipliers) scale activations; the
// per-layer mup_vector they build is a non-persistent buffer: nothing of them is stored.
// FalconHybridMambaAttentionDynamicCache keeps every layer's K/V and its conv state
// [conv_dim, d_conv] and SSM state [heads, d_head, d_state], in the model's dtype.
#include <nlohmann/json.hpp>

#include "../../error.hpp"
#include "../decoder.hpp"
#include "../mamba2.hpp"
#include "hybrids2026.hpp"

namespace cardfit::families {

Model falcon_h1(const Config& c) {
  // FalconH1Config: tie_word_embeddings=False, max_position_embeddings=8192, num_key_value_heads=8.
  DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 8192,
                                          .intermediate_required = false});
  if (!c.raw().contains("num_key_value_heads")) d.kv_heads = 8;
  require(d.heads % d.kv_heads == 0, c, "num_key_value_heads", "num_key_value_heads must divide num_attention_heads.");
  const int64_t inter = c.positive_or({"intermediate_size"}, 14336);
  const bool attn_bias = c.boolean_or("attention_bias", false), mlp_bias = c.boolean_or("mlp_bias", false);
  const std::string act = c.string_or("hidden_act", "silu");

  // mamba_d_ssm: absent is the class default 1024; an explicit null means mamba_expand * hidden_size.
  const bool d_ssm_null = c.raw().contains("mamba_d_ssm") && c.raw().at("mamba_d_ssm").is_null();
  const int64_t inner = d_ssm_null ? checked_mul(c.positive_or({"mamba_expand"}, 2), d.hidden, "mamba_expand × hidden_size")
                                   : c.positive_or({"mamba_d_ssm"}, 1024);
  const int64_t m_heads = c.positive_or({"mamba_n_heads"}, 128);
  require(inner % m_heads == 0, c, "mamba_n_heads", "mamba_n_heads must divide the Mamba width (mamba_d_ssm).");
  int64_t m_head_dim = inner / m_heads;  // mamba_d_head "auto"
  if (c.has("mamba_d_head") && c.raw().at("mamba_d_head").is_string())
    require(c.string_or("mamba_d_head", "") == "auto", c, "mamba_d_head", "mamba_d_head is a number or \"auto\".");
  else if (c.has("mamba_d_head"))
    m_head_dim = c.positive({"mamba_d_head"});
  require(m_head_dim * m_heads == inner, c, "mamba_d_head",
          "mamba_d_head * mamba_n_heads must equal the Mamba width (" + std::to_string(inner) + ").");
  const Mamba2Spec mamba{.hidden = d.hidden, .heads = m_heads, .head_dim = m_head_dim,
                         .groups = c.positive_or({"mamba_n_groups"}, 1), .state = c.positive_or({"mamba_d_state"}, 256),
                         .conv_kernel = c.positive_or({"mamba_d_conv"}, 4),
                         .conv_bias = c.boolean_or("mamba_conv_bias", true),
                         .proj_bias = c.boolean_or("mamba_proj_bias", false), .act = act,
                         .state_bytes = 0,  // the cache holds both states in the model's dtype
                         .gated_norm = c.boolean_or("mamba_rms_norm", false),
                         .out_proj_bias = c.boolean_or("projectors_bias", false)};

  ModelBuilder b("falcon_h1", "falcon_h1");
  set_dims(b, d, c);
  b.block("model.embed_tokens", "embedding");
  token_embedding(b, "model.embed_tokens", d.vocab, d.hidden);
  for (int i = 0; i < d.layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    b.norm(p + ".input_layernorm", d.hidden, NormKind::rmsnorm);
    const ValueId h = b.cursor();  // the mixer and attention both read the normed input
    Mamba2Spec s = mamba;
    s.prefix = p + ".mamba";
    mamba2_mixer(b, s);
    b.residual(p + ".residual_mamba", d.hidden);
    b.read(h);
    attention_block(b, {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                        .head_dim = d.head_dim, .q_bias = attn_bias, .k_bias = attn_bias, .v_bias = attn_bias,
                        .o_bias = attn_bias});
    b.residual(p + ".residual_attn", d.hidden);
    b.norm(p + ".pre_ff_layernorm", d.hidden, NormKind::rmsnorm);
    mlp_block(b, {.prefix = p + ".feed_forward", .hidden = d.hidden, .intermediate = inter, .bias = mlp_bias, .act = act});
    b.residual(p + ".residual_mlp", d.hidden);
  }
  b.block("final", "final");
  b.norm("model.final_layernorm", d.hidden, NormKind::rmsnorm);
  lm_head(b, "lm_head", d.hidden, d.vocab, d.tied ? "model.embed_tokens.weight" : "");
  return b.finish();
}

}  // namespace cardfit::families

// IBM Granite 4.0 hybrids (transformers models/granitemoehybrid/modeling_granitemoehybrid.py,
// GraniteMoeHybridForCausalLM; configuration_granitemoehybrid.py). Every layer is input_layernorm →
// one mixer → residual → post_attention_layernorm → feed-forward → residual. The mixer is chosen
// by layer_types (alias layers_block_type; absent: every layer "mamba"): a Mamba-2 mixer under
// ".mamba" (BambaMixer: in_proj [inner + conv_dim + heads], conv1d, dt_bias/A_log/D, gated
// RMSNorm [inner], out_proj; mamba2.hpp) or GQA attention under ".self_attn" (attention_bias on
// q/k/v/o; RoPE or NoPE by position_embedding_type, neither stores a tensor). The feed-forward is
// always shared_mlp (input_linear [2 * shared_intermediate_size, hidden] = gate | up, output_linear),
// and with num_local_experts > 0 also block_sparse_moe beside it (GraniteMoE's router.layer,
// input_linear [E, 2 * intermediate_size, hidden], output_linear [E, hidden, intermediate_size],
// bare stacked parameters). The embedding / residual / attention / logits multipliers scale
// activations and store nothing. HybridMambaAttentionDynamicCache allocates the conv state
// [conv_dim, d_conv] and the SSM state [heads, d_head, d_state] in the model's dtype.
#include <nlohmann/json.hpp>

#include "../../error.hpp"
#include "../decoder.hpp"
#include "../layer_types.hpp"
#include "../mamba2.hpp"
#include "hybrids2026.hpp"

namespace cardfit::families {

Model granitemoehybrid(const Config& c) {
  // GraniteMoeHybridConfig: tie_word_embeddings=False, max_position_embeddings=2048,
  // num_key_value_heads = num_attention_heads, head_dim = hidden_size // num_attention_heads.
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 2048,
                                                .intermediate_required = false});
  const char* types_key = c.has("layer_types") || !c.has("layers_block_type") ? "layer_types" : "layers_block_type";
  const std::vector<std::string> types =
      read_layer_types(c, d.layers, {"mamba", "attention"}, [](int64_t) { return std::string("mamba"); }, types_key);
  const bool attn_bias = c.boolean_or("attention_bias", false);
  const std::string act = c.string_or("hidden_act", "silu");
  const int64_t experts = c.count_or({"num_local_experts"}, 8);  // 0: dense (shared_mlp only)
  const int64_t top_k = experts > 0 ? c.positive_or({"num_experts_per_tok"}, 2) : 0;
  require(top_k <= experts, c, "num_experts_per_tok", "num_experts_per_tok cannot exceed num_local_experts.");
  const int64_t expert_inter = experts > 0 ? c.positive_or({"intermediate_size"}, 11008) : 0;
  const int64_t shared_inter = c.positive_or({"shared_intermediate_size"}, 1024);

  // The Mamba-2 widths as the config class checks them: inner = mamba_expand * hidden_size,
  // mamba_d_head "auto" = inner // mamba_n_heads, and d_head * n_heads must equal inner.
  const int64_t inner = checked_mul(c.positive_or({"mamba_expand"}, 2), d.hidden, "mamba_expand × hidden_size");
  const int64_t m_heads = c.positive_or({"mamba_n_heads"}, 128);
  require(inner % m_heads == 0, c, "mamba_n_heads", "mamba_n_heads must divide mamba_expand * hidden_size.");
  int64_t m_head_dim = inner / m_heads;
  if (c.has("mamba_d_head") && c.raw().at("mamba_d_head").is_string())
    require(c.string_or("mamba_d_head", "") == "auto", c, "mamba_d_head", "mamba_d_head is a number or \"auto\".");
  else if (c.has("mamba_d_head"))
    m_head_dim = c.positive({"mamba_d_head"});
  require(m_head_dim * m_heads == inner, c, "mamba_d_head",
          "mamba_d_head * mamba_n_heads must equal mamba_expand * hidden_size (" + std::to_string(inner) + ").");
  const Mamba2Spec mamba{.hidden = d.hidden, .heads = m_heads, .head_dim = m_head_dim,
                         .groups = c.positive_or({"mamba_n_groups"}, 1), .state = c.positive_or({"mamba_d_state"}, 256),
                         .conv_kernel = c.positive_or({"mamba_d_conv"}, 4),
                         .conv_bias = c.boolean_or("mamba_conv_bias", true),
                         .proj_bias = c.boolean_or("mamba_proj_bias", false), .act = act,
                         .state_bytes = 0};  // the cache holds both states in the model's dtype

  ModelBuilder b("granitemoehybrid", "granite");
  set_dims(b, d, c);
  if (experts > 0) {
    b.dims().experts = experts;
    b.dims().experts_per_token = top_k;
  }
  b.block("model.embed_tokens", "embedding");
  token_embedding(b, "model.embed_tokens", d.vocab, d.hidden);
  for (int i = 0; i < d.layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    const bool is_mamba = types[size_t(i)] == "mamba";
    b.block(p, is_mamba ? "ssm_layer" : "decoder_layer", i);
    b.norm(p + ".input_layernorm", d.hidden, NormKind::rmsnorm);
    if (is_mamba) {
      Mamba2Spec s = mamba;
      s.prefix = p + ".mamba";
      mamba2_mixer(b, s);
    } else {
      attention_block(b, {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                          .head_dim = d.head_dim, .q_bias = attn_bias, .k_bias = attn_bias, .v_bias = attn_bias,
                          .o_bias = attn_bias});
    }
    b.residual(p + (is_mamba ? ".residual_mamba" : ".residual_attn"), d.hidden);
    b.norm(p + ".post_attention_layernorm", d.hidden, NormKind::rmsnorm);
    const ValueId x = b.cursor();  // the routed experts and shared_mlp both read the normed stream
    if (experts > 0) {
      fused_moe_block(b, {.prefix = p + ".block_sparse_moe", .hidden = d.hidden, .experts = experts, .top_k = top_k,
                          .intermediate = expert_inter, .router = "router.layer", .down = "output_linear.weight",
                          .layout = FusedExpertLayout::stacked, .act = act, .gate_up = "input_linear.weight",
                          .weighted_sum = true});
      b.read(x);
    }
    mlp_block(b, {.prefix = p + ".shared_mlp", .hidden = d.hidden, .intermediate = shared_inter, .act = act,
                  .down = "output_linear", .fused_gate_up = "input_linear"});
    b.residual(p + ".residual_mlp", d.hidden);
  }
  b.block("final", "final");
  b.norm("model.norm", d.hidden, NormKind::rmsnorm);
  lm_head(b, "lm_head", d.hidden, d.vocab, d.tied ? "model.embed_tokens.weight" : "");
  return b.finish();
}

}  // namespace cardfit::families

// Jamba (transformers models/jamba/modeling_jamba.py, JambaForCausalLM): a hybrid of attention
// layers (i % attn_layer_period == attn_layer_offset; GQA, no positional encoding) and Mamba-1
// layers with RMS-normed dt/B/C, each followed by a dense MLP or, where
// i % expert_layer_period == expert_layer_offset, an MoE (feed_forward.router + experts.{i}.*).
// Only the attention layers hold a KV cache; the Mamba layers keep a constant state.
#include <nlohmann/json.hpp>

#include "../decoder.hpp"
#include "../ssm.hpp"
#include "families.hpp"

namespace cardfit::families {

Model jamba(const Config& c) {
  // JambaConfig defaults.
  const int64_t vocab = c.positive_or({"vocab_size"}, 65536);
  const int64_t hidden = c.positive_or({"hidden_size"}, 4096);
  const int64_t intermediate = c.positive_or({"intermediate_size"}, 14336);
  const int64_t layers = c.positive_or({"num_hidden_layers"}, 32);
  const int64_t heads = c.positive_or({"num_attention_heads"}, 32);
  const int64_t kv_heads = c.positive_or({"num_key_value_heads"}, 8);
  const int64_t experts = c.positive_or({"num_experts"}, 16);
  const int64_t top_k = c.positive_or({"num_experts_per_tok"}, 2);
  const int64_t expert_period = c.positive_or({"expert_layer_period"}, 2);
  const int64_t expert_offset = c.count_or({"expert_layer_offset"}, 1);
  const int64_t attn_period = c.positive_or({"attn_layer_period"}, 8);
  const int64_t attn_offset = c.count_or({"attn_layer_offset"}, 4);
  const int64_t state = c.positive_or({"mamba_d_state"}, 16);
  const int64_t kernel = c.positive_or({"mamba_d_conv"}, 4);
  const int64_t expand = c.positive_or({"mamba_expand"}, 2);
  const bool conv_bias = c.boolean_or("mamba_conv_bias", true);
  const bool proj_bias = c.boolean_or("mamba_proj_bias", false);
  const bool tied = c.boolean_or("tie_word_embeddings", false);
  const int64_t window = c.count_or({"sliding_window"}, 0);
  const std::string act = c.string_or("hidden_act", "silu");
  require(attn_offset < attn_period, c, "attn_layer_offset", "attn_layer_offset must be smaller than attn_layer_period.");
  require(expert_offset < expert_period, c, "expert_layer_offset",
          "expert_layer_offset must be smaller than expert_layer_period.");
  require(hidden % heads == 0, c, "num_attention_heads", "hidden_size must be divisible by num_attention_heads.");
  require(heads % kv_heads == 0, c, "num_key_value_heads", "num_key_value_heads must divide num_attention_heads.");
  // mamba_dt_rank: "auto" (the default) is ceil(hidden_size / 16).
  const bool auto_rank = !c.has("mamba_dt_rank") || c.raw().at("mamba_dt_rank").is_string();
  const int64_t dt_rank = auto_rank ? (hidden + 15) / 16 : c.positive({"mamba_dt_rank"});
  const int64_t inner = expand * hidden;
  const int64_t head_dim = hidden / heads;

  ModelBuilder b("jamba", "jamba");
  Dims& d = b.dims();
  d.hidden = hidden;
  d.layers = layers;
  d.heads = heads;
  d.kv_heads = kv_heads;
  d.head_dim = head_dim;
  d.intermediate = intermediate;
  d.vocab = vocab;
  d.max_positions = c.positive_or({"max_position_embeddings"}, 262144);
  d.experts = experts > 1 ? experts : 0;
  d.experts_per_token = experts > 1 ? top_k : 0;
  d.sliding_window = window;
  d.tied_embeddings = tied;
  d.initializer_range = c.number_or("initializer_range", 0.02);
  d.ssm_inner = inner;
  d.ssm_state = state;
  d.ssm_conv_kernel = kernel;

  b.block("model.embed_tokens", "embedding");
  token_embedding(b, "model.embed_tokens", vocab, hidden);
  for (int i = 0; i < layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    const bool attention = i % attn_period == attn_offset;
    b.block(p, attention ? "decoder_layer" : "ssm_layer", i);
    DecoderLayerSpec layer{
        .prefix = p,
        .attn = {.prefix = p + ".self_attn", .hidden = hidden, .heads = heads, .kv_heads = kv_heads,
                 .head_dim = head_dim, .window = window},
        .mlp = {.prefix = p + ".feed_forward", .hidden = hidden, .intermediate = intermediate, .act = act},
        .post_attn_norm = "pre_ff_layernorm",
        .mixer_residual = "residual_mixer",
        .hidden = hidden};
    if (!attention) {
      ++d.ssm_layers;
      layer.mamba = MambaSpec{.prefix = p + ".mamba", .hidden = hidden, .inner = inner, .state = state,
                              .conv_kernel = kernel, .dt_rank = dt_rank, .conv_bias = conv_bias,
                              .proj_bias = proj_bias, .inner_norms = true, .act = act};
    }
    if (experts > 1 && i % expert_period == expert_offset)
      layer.moe = MoeSpec{.prefix = p + ".feed_forward", .hidden = hidden, .experts = experts, .top_k = top_k,
                          .expert_intermediate = intermediate, .router = "router", .expert = layer.mlp};
    pre_norm_decoder_layer(b, layer);
  }
  b.block("final", "final");
  b.norm("model.final_layernorm", hidden, NormKind::rmsnorm);
  lm_head(b, "lm_head", hidden, vocab, tied ? "model.embed_tokens.weight" : "");
  return b.finish();
}

}  // namespace cardfit::families

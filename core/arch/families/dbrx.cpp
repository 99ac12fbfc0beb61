// DBRX (transformers models/dbrx/modeling_dbrx.py): bias-free LayerNorms around a fused Wqkv GQA
// attention (norm_attn_norm), and an MoE whose experts are three bare parameters per layer
// (ffn.experts.mlp.w1/v1/w2, each [moe_num_experts * ffn_hidden_size, d_model]).
#include "../decoder.hpp"
#include "../vision.hpp"
#include "families.hpp"

namespace cardfit::families {

Model dbrx(const Config& c) {
  // DbrxConfig, DbrxAttentionConfig and DbrxFFNConfig defaults.
  const int64_t vocab = c.positive_or({"vocab_size"}, 32000);
  const int64_t hidden = c.positive_or({"d_model"}, 2048);
  const int64_t heads = c.positive_or({"n_heads"}, 16);
  const int64_t layers = c.positive_or({"n_layers"}, 24);
  const int64_t positions = c.positive_or({"max_seq_len"}, 2048);
  const bool tied = c.boolean_or("tie_word_embeddings", false);
  // A missing attn_config / ffn_config is the sub-config class's default.
  const Config attn = child_or_empty(c, "attn_config");
  const Config ffn = child_or_empty(c, "ffn_config");
  const int64_t kv_heads = attn.positive_or({"kv_n_heads"}, 1);
  const int64_t ffn_hidden = ffn.positive_or({"ffn_hidden_size"}, 3584);
  const int64_t experts = ffn.positive_or({"moe_num_experts"}, 4);
  const int64_t top_k = ffn.positive_or({"moe_top_k"}, 1);
  const std::string act = child_or_empty(ffn, "ffn_act_fn").string_or("name", "silu");
  require(hidden % heads == 0, c, "n_heads", "d_model must be divisible by n_heads.");
  require(heads % kv_heads == 0, attn, "kv_n_heads", "kv_n_heads must divide n_heads.");
  const int64_t head_dim = hidden / heads;

  ModelBuilder b("dbrx", "dbrx");
  b.dims() = Dims{.hidden = hidden, .layers = layers, .heads = heads, .kv_heads = kv_heads, .head_dim = head_dim,
                  .intermediate = ffn_hidden, .vocab = vocab, .max_positions = positions, .experts = experts,
                  .experts_per_token = top_k, .tied_embeddings = tied,
                  .initializer_range = c.number_or("initializer_range", 0.02)};

  const DecoderShape shape{.vocab = vocab, .hidden = hidden, .layers = layers, .tied = tied};
  const CausalLmNames names{.embed = "transformer.wte", .layers = "transformer.blocks", .norm = "transformer.norm_f",
                            .norm_kind = NormKind::layernorm_nobias};
  causal_lm_stack(b, shape, names, [&](int, const std::string& p) {
    pre_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".norm_attn_norm.attn", .hidden = hidden, .heads = heads, .kv_heads = kv_heads,
                     .head_dim = head_dim, .o = "out_proj", .fused_qkv = "Wqkv"},
            .norm = NormKind::layernorm_nobias,
            .input_norm = "norm_attn_norm.norm_1",
            .post_attn_norm = "norm_attn_norm.norm_2",
            .hidden = hidden,
            .fused_moe = FusedMoeSpec{.prefix = p + ".ffn", .hidden = hidden, .experts = experts, .top_k = top_k,
                                      .intermediate = ffn_hidden, .act = act}});
  });
  return b.finish();
}

}  // namespace cardfit::families

// OPT (transformers models/opt/modeling_opt.py): learned positions with 2 extra rows, optional
// project_in/project_out when word_embed_proj_dim differs from hidden_size (OPT-350m), pre-norm
// layers or post-norm ones (do_layer_norm_before=false, OPT-350m), biases per enable_bias, head
// tied to embed_tokens. Names as in OPTForCausalLM.
#include "../layers.hpp"
#include "families.hpp"

namespace cardfit::families {

Model opt(const Config& c) {
  ModelBuilder b("opt", "opt");
  b.facts().dropouts(0.1, 0, 0, 0.1);  // OPTConfig dropout; attention_dropout 0
  // OPTConfig defaults: do_layer_norm_before=True, _remove_final_layer_norm=False,
  // word_embed_proj_dim=None (hidden_size), enable_bias=True, layer_norm_elementwise_affine=True,
  // activation "relu", max_position_embeddings=2048, tie_word_embeddings=True.
  const int64_t vocab = c.positive({"vocab_size"});
  const int64_t hidden = c.positive({"hidden_size"});
  const int64_t layers = c.positive({"num_hidden_layers"});
  const int64_t heads = c.positive({"num_attention_heads"});
  const int64_t ffn = c.positive({"ffn_dim"});
  const int64_t positions = c.positive_or({"max_position_embeddings"}, 2048);
  const int64_t proj = c.positive_or({"word_embed_proj_dim"}, hidden);
  const bool pre_norm = c.boolean_or("do_layer_norm_before", true);
  const bool final_norm = pre_norm && !c.boolean_or("_remove_final_layer_norm", false);
  const bool bias = c.boolean_or("enable_bias", true);
  const NormKind norm = c.boolean_or("layer_norm_elementwise_affine", true) ? NormKind::layernorm
                                                                             : NormKind::layernorm_noaffine;
  const bool tied = c.boolean_or("tie_word_embeddings", true);
  const std::string act = c.string_or("activation_function", "relu");
  require(hidden % heads == 0, c, "num_attention_heads",
          "hidden_size must be divisible by num_attention_heads.");
  const int64_t head_dim = hidden / heads;

  b.dims() = Dims{.hidden = hidden, .layers = layers, .heads = heads, .kv_heads = heads,
                  .head_dim = head_dim, .intermediate = ffn, .vocab = vocab,
                  .max_positions = positions, .tied_embeddings = tied,
                  .initializer_range = c.number_or("init_std", 0.02)};

  const std::string d = "model.decoder";
  b.block(d + ".embeddings", "embedding");
  token_embedding(b, d + ".embed_tokens", vocab, proj);
  // OPTDecoder: project_in(embed_tokens(ids)) + embed_positions(...): positions are added after
  // the projection to the hidden width.
  if (proj != hidden) b.linear(d + ".project_in", proj, hidden, {.role = Role::other});
  learned_positions(b, d + ".embed_positions", positions, hidden, 2);
  for (int i = 0; i < layers; ++i) {
    const std::string p = d + ".layers." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    residual_layer(b, {.prefix = p, .hidden = hidden, .norm = norm, .post_norm = !pre_norm,
                       .attn = {.prefix = p + ".self_attn", .hidden = hidden, .heads = heads,
                                .kv_heads = heads, .head_dim = head_dim, .q_bias = bias,
                                .k_bias = bias, .v_bias = bias, .o_bias = bias, .o = "out_proj"},
                       .attn_norm = p + ".self_attn_layer_norm",
                       .mlp = {.prefix = p, .hidden = hidden, .intermediate = ffn, .gated = false,
                               .bias = bias, .act = act, .up = "fc1", .down = "fc2"},
                       .mlp_norm = p + ".final_layer_norm"});
  }
  b.block("final", "final");
  if (final_norm) b.norm(d + ".final_layer_norm", hidden, norm);
  if (proj != hidden) b.linear(d + ".project_out", hidden, proj, {.role = Role::other});
  lm_head(b, "lm_head", proj, vocab, tied ? d + ".embed_tokens.weight" : "");
  return b.finish();
}

}  // namespace cardfit::families

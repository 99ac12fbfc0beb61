// MiniMax-Text-01 / MiniMax-M1 in transformers' format (models/minimax/modeling_minimax.py,
// MiniMaxForCausalLM; the "-hf" checkpoints). layer_types picks each layer's mixer under
// ".self_attn": "linear_attention" is lightning attention (lightning_attention.hpp: qkv_proj,
// norm, output_gate, out_proj), "full_attention" is Mixtral's GQA (q/k/v/o_proj, no biases). Every
// layer then has Mixtral's sparse MoE, stored as conversion_mapping.py's "minimax" (= "mixtral")
// source names: block_sparse_moe.gate [experts, hidden] and block_sparse_moe.experts.{e}.w1 / w3 /
// w2. The residual is taken after each norm and scaled by the *_alpha_factor / *_beta_factor
// config values (no tensors). MiniMaxCache keeps K/V for the full-attention layers and the
// lightning state K^T V [heads, head_dim, head_dim] for the others.
#include <nlohmann/json.hpp>

#include "../../error.hpp"
#include "../decoder.hpp"
#include "../layer_types.hpp"
#include "../lightning_attention.hpp"
#include "hybrids2026.hpp"

namespace cardfit::families {

Model minimax(const Config& c) {
  // MiniMaxConfig: tie_word_embeddings=False, max_position_embeddings=4096*32, num_key_value_heads=8,
  // head_dim None (hidden_size // num_attention_heads), num_local_experts=8 (attribute_map
  // num_experts), num_experts_per_tok=2, intermediate_size=14336.
  DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 4096 * 32,
                                          .intermediate_required = false});
  if (!c.raw().contains("num_key_value_heads")) d.kv_heads = 8;
  require(d.heads % d.kv_heads == 0, c, "num_key_value_heads", "num_key_value_heads must divide num_attention_heads.");
  const int64_t inter = c.positive_or({"intermediate_size"}, 14336);
  const int64_t experts = c.positive_or({"num_local_experts", "num_experts"}, 8);
  const int64_t top_k = c.positive_or({"num_experts_per_tok"}, 2);
  require(top_k <= experts, c, "num_experts_per_tok", "num_experts_per_tok cannot exceed num_local_experts.");
  const std::string act = c.string_or("hidden_act", "silu");
  // The remote-code checkpoints' attn_type_list (0 lightning, 1 softmax) is not read by
  // transformers' MiniMaxConfig, which would then alternate the layers and not load those weights.
  require(c.has("layer_types") || !c.has("attn_type_list"), c, "attn_type_list",
          "minimax reads layer_types (\"linear_attention\" / \"full_attention\"); this config has only the remote "
          "code's attn_type_list, which transformers' MiniMaxConfig ignores. Use the -hf checkpoint's config.");
  // The remote code's shared expert (shared_intermediate_size, shared_moe_mode) has no module in
  // transformers' MiniMax: refused rather than dropped.
  require(c.count_or({"shared_intermediate_size"}, 0) == 0, c, "shared_intermediate_size",
          "minimax (transformers' MiniMaxForCausalLM) has no shared expert; this config asks for one.");
  const std::vector<std::string> types =
      read_layer_types(c, d.layers, {"full_attention", "linear_attention"},
                       [](int64_t i) { return std::string((i + 1) % 2 ? "full_attention" : "linear_attention"); });

  ModelBuilder b("minimax", "minimax");
  set_dims(b, d, c);
  b.dims().experts = experts;
  b.dims().experts_per_token = top_k;
  causal_lm_stack(b, d, {}, [&](int i, const std::string& p) {
    b.norm(p + ".input_layernorm", d.hidden, NormKind::rmsnorm);
    b.set_stream(b.cursor());  // the residual is the normed input
    if (types[size_t(i)] == "linear_attention")
      lightning_attention(b, {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads,
                              .head_dim = d.head_dim, .act = act});
    else
      attention_block(b, {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                          .head_dim = d.head_dim, .window = d.sliding_window});
    b.residual(p + ".residual_attn", d.hidden);
    b.norm(p + ".post_attention_layernorm", d.hidden, NormKind::rmsnorm);
    b.set_stream(b.cursor());
    moe_block(b, {.prefix = p + ".block_sparse_moe", .hidden = d.hidden, .experts = experts, .top_k = top_k,
                  .expert_intermediate = inter, .router = "gate",
                  .expert = {.act = act, .gate = "w1", .up = "w3", .down = "w2"}});
    b.residual(p + ".residual_mlp", d.hidden);
  });
  b.note("MiniMaxLightningAttention also registers decay buffers (slope_rate, query_decay, key_decay, "
         "diagonal_decay: heads x (1 + 2 x block_size + block_size^2) values a lightning layer), computed at "
         "init from the config; they are not parameters and are not listed as stored tensors.");
  return b.finish();
}

}  // namespace cardfit::families

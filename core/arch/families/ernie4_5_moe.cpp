// ERNIE 4.5 MoE (transformers models/ernie4_5_moe/modeling_ernie4_5_moe.py, Ernie4_5_MoeForCausalLM;
// ERNIE-4.5-21B-A3B, 300B-A47B): ERNIE 4.5's attention and MLP (use_bias switching every projection's
// bias, lm_head's included); layers i with (i + 1) % moe_layer_interval == 0 and moe_layer_start_index
// <= i <= moe_layer_end_index (-1: the last layer) are MoE: router mlp.gate [moe_num_experts, hidden]
// (kept in fp32), experts mlp.experts.{e}.* of moe_intermediate_size as the checkpoint stores them,
// one shared-expert MLP of moe_intermediate_size * moe_num_shared_experts, and
// mlp.moe_statics.e_score_correction_bias [1, moe_num_experts]: an nn.Parameter (requires_grad False)
// that only biases the top-k choice. Ernie4_5_MoeConfig: vocab 103424, hidden 2560, 28 layers, 20 / 4
// heads, head_dim 128, intermediate 12288, 64 experts, top 6, 2 shared, tie_word_embeddings True.
// The checkpoint's multi-token-prediction tensors (mtp*) are dropped on load (_keys_to_ignore_on_load_unexpected).
#include <nlohmann/json.hpp>

#include "../decoder.hpp"
#include "zoo2026.hpp"

namespace cardfit::families {

Model ernie4_5_moe(const Config& c) {
  DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = true, .max_positions = 131072});
  if (!c.has("head_dim")) d.head_dim = d.hidden / d.heads;  // LlamaAttention: hidden_size // heads
  const bool bias = c.boolean_or("use_bias", false);
  const int64_t experts = c.positive_or({"moe_num_experts"}, 64), top_k = c.positive_or({"moe_k"}, 6);
  const int64_t shared = c.count_or({"moe_num_shared_experts"}, 2), moe_inter = c.positive_or({"moe_intermediate_size"}, 1536);
  const int64_t start = c.count_or({"moe_layer_start_index"}, 1), interval = c.positive_or({"moe_layer_interval"}, 1);
  const auto& raw = c.raw();
  int64_t end = d.layers - 1;  // -1 (the class default) is the last layer
  if (raw.contains("moe_layer_end_index") && raw["moe_layer_end_index"].is_number_integer() &&
      raw["moe_layer_end_index"].get<int64_t>() != -1)
    end = c.count_or({"moe_layer_end_index"}, end);
  require(top_k <= experts, c, "moe_k", "moe_k cannot exceed moe_num_experts.");
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("ernie4_5_moe", "ernie4_5_moe");
  set_dims(b, d, c);
  b.block("model.embed_tokens", "embedding");
  token_embedding(b, "model.embed_tokens", d.vocab, d.hidden);
  for (int i = 0; i < d.layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    const bool sparse = (i + 1) % interval == 0 && i >= start && i <= end;
    DecoderLayerSpec layer{
        .prefix = p,
        .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                 .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias, .v_bias = bias, .o_bias = bias},
        .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate, .bias = bias, .act = act},
        .hidden = d.hidden};
    if (sparse)
      layer.moe = MoeSpec{.prefix = p + ".mlp", .hidden = d.hidden, .experts = experts, .top_k = top_k,
                          .expert_intermediate = moe_inter, .router = "gate", .expert = {.bias = bias, .act = act},
                          .shared_experts = shared > 0 ? 1 : 0,
                          .shared_intermediate = checked_mul(moe_inter, shared, "the shared experts' width")};
    // pre_norm_decoder_layer with the moe_statics parameter owned by its own node right after the MoE.
    b.norm(p + ".input_layernorm", d.hidden, NormKind::rmsnorm);
    attention_block(b, layer.attn);
    b.residual(p + ".residual_attn", d.hidden);
    b.norm(p + ".post_attention_layernorm", d.hidden, NormKind::rmsnorm);
    if (sparse) {
      moe_block(b, *layer.moe);
      const ValueId out = b.cursor();
      // Added to the routing probabilities for the top-k choice only: no activation, no FLOPs (in = 0).
      b.reads({});
      b.node({.name = p + ".mlp.moe_statics", .op = Op::other, .detail = "topk_correction_bias", .in = 0, .out = 0,
              .params = b.tensor(p + ".mlp.moe_statics.e_score_correction_bias", {1, experts}, Role::router)});
      b.read(out);
    } else {
      mlp_block(b, layer.mlp);
    }
    b.residual(p + ".residual_mlp", d.hidden);
  }
  b.block("final", "final");
  b.norm("model.norm", d.hidden, NormKind::rmsnorm);
  lm_head(b, "lm_head", d.hidden, d.vocab, d.tied ? "model.embed_tokens.weight" : "", bias);
  return b.finish();
}

}  // namespace cardfit::families

// Hunyuan MoE (transformers models/hunyuan_v1_moe/modular_hunyuan_v1_moe.py, HunYuanMoEV1ForCausalLM;
// Hunyuan-A13B): Hunyuan dense's attention (post-RoPE query_layernorm / key_layernorm [head_dim],
// attention_bias) with every layer's MLP a HunYuanMoE: router mlp.gate.wg [num_experts, hidden] (kept in
// fp32), experts mlp.experts.{e}.{gate,up,down}_proj and one shared MLP mlp.shared_mlp, all of
// intermediate_size (HunYuanMoEV1MLP is LlamaMLP(config): moe_intermediate_size and num_shared_expert
// are not read); moe_topk and num_experts are an int or a per-layer list. HunYuanMoEV1Config: vocab
// 290943, hidden 4096, intermediate 11008, 32 layers, 32 heads, num_experts 1, moe_topk 1, tie False.
#include <nlohmann/json.hpp>

#include "../decoder.hpp"
#include "zoo2026.hpp"

namespace cardfit::families {

namespace {
// An int, or a per-layer list (the remote code's format that transformers keeps): layer i's value.
int64_t per_layer(const Config& c, const char* key, int64_t layers, int64_t i, int64_t fallback) {
  if (c.raw().contains(key) && c.raw()[key].is_array()) {
    const std::vector<int64_t> v = c.integer_list(key);
    require(int64_t(v.size()) >= layers, c, key, std::string(key) + " needs one entry per layer.");
    require(v[size_t(i)] > 0, c, key, std::string(key) + " entries must be positive.");
    return v[size_t(i)];
  }
  return c.positive_or({key}, fallback);
}
}  // namespace

Model hunyuan_v1_moe(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 2048});
  const bool bias = c.boolean_or("attention_bias", false);
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("hunyuan_v1_moe", "hunyuan_v1_moe");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int i, const std::string& p) {
    const int64_t experts = per_layer(c, "num_experts", d.layers, i, 1), top_k = per_layer(c, "moe_topk", d.layers, i, 1);
    require(top_k <= experts, c, "moe_topk", "moe_topk cannot exceed num_experts.");
    pre_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                     .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias, .v_bias = bias, .o_bias = bias,
                     .qk_norm = NormKind::rmsnorm, .q_norm = "query_layernorm", .k_norm = "key_layernorm"},
            .hidden = d.hidden,
            .moe = MoeSpec{.prefix = p + ".mlp", .hidden = d.hidden, .experts = experts, .top_k = top_k,
                           .expert_intermediate = d.intermediate, .router = "gate.wg", .expert = {.act = act},
                           .shared_experts = 1, .shared_intermediate = d.intermediate, .shared_name = "shared_mlp"}});
  });
  return b.finish();
}

}  // namespace cardfit::families

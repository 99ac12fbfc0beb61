// Multi-head latent attention (DeepSeek-V2/V3, transformers models/deepseek_v3/modeling_deepseek_v3.py):
// queries through an optional low-rank q_a/q_b pair, keys and values from one shared latent
// (kv_a_proj_with_mqa → kv_a_layernorm → kv_b_proj). The KV cache holds the latent plus the
// shared rotary key: kv_lora_rank + qk_rope_head_dim elements per token and layer.
#pragma once
#include <string>

#include "builder.hpp"

namespace cardfit {

struct MlaSpec {
  std::string prefix;            // "model.layers.0.self_attn"
  int64_t hidden = 0;
  int64_t heads = 0;
  int64_t q_lora_rank = 0;       // 0: one q_proj [heads*(nope+rope), hidden] (DeepSeek-V2-Lite)
  int64_t kv_lora_rank = 0;
  int64_t qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
  bool bias = false;             // attention_bias: q_a_proj, kv_a_proj_with_mqa and o_proj
  NormKind latent_norm = NormKind::rmsnorm;
  int64_t window = 0;
  // DeepSeek Sparse Attention (GLM-5): a lightning indexer (dsa_indexer.hpp) reads x and the query
  // latent and picks index_topk keys per query; its keys (index_head_dim per token) are cached beside
  // the latent. 0 heads: no indexer. Needs q_lora_rank > 0.
  int64_t index_heads = 0, index_head_dim = 0, index_topk = 0;
  bool index_runs = true;  // false: the layer reuses the previous layer's top-k; its indexer never runs
  // Kimi-K3 (mla_use_output_gate): sigmoid(g_proj(x)) [heads * v_head_dim, hidden] scales the attention
  // output before o_proj. Empty: none.
  std::string output_gate;
};
/// q (or q_a, q_a_layernorm, q_b), kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj, the attention op
/// (cache_dim = kv_lora_rank + qk_rope_head_dim, + index_head_dim with a running indexer), o_proj.
void mla_attention_block(ModelBuilder& b, const MlaSpec& spec);

}  // namespace cardfit

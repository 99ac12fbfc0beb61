// DeepSeek Sparse Attention's lightning indexer (transformers models/glm_moe_dsa/modeling_glm_moe_dsa.py,
// GlmMoeDsaIndexer, read 2026-12-01): queries wq_b [heads × head_dim, q_lora_rank] from the attention's
// query latent, one shared key wk [head_dim, hidden] through k_norm (nn.LayerNorm, weight and bias),
// per-head weights weights_proj [heads, hidden]; score(s, t) = Σ_h w[s, h] · relu(q[s, h] · k[t]) over every
// key, then the top `topk` keys per query. The whole forward is @torch.no_grad(): it keeps nothing for
// backward and its weights get no gradient. Its keys of every token are cached (_cached_keys, in the
// activation dtype): the attention node counts them in its cache_dim (mla.cpp).
#pragma once
#include <string>

#include "builder.hpp"

namespace cardfit {

struct IndexerSpec {
  std::string prefix;  // "model.layers.0.self_attn.indexer."
  int64_t hidden = 0, q_lora_rank = 0;
  int64_t heads = 0, head_dim = 0, topk = 0;
  bool runs = true;    // false (indexer_types "shared"): the weights exist, the indexer never runs
};

/// The indexer's tensors and nodes, reading x and the query latent; returns its top-k indices (a running
/// indexer) or kNoValue (one that never runs: its weights on one parameter-only node).
ValueId lightning_indexer(ModelBuilder& b, const IndexerSpec& spec, ValueId x, ValueId q_latent);

}  // namespace cardfit

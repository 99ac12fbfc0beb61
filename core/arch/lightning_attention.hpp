// MiniMax's lightning attention (transformers models/minimax/modeling_minimax.py
// MiniMaxLightningAttention): linear attention with a per-head exponential decay (slope_rate) and
// no KV cache; each sequence keeps one state K^T V [heads, head_dim, head_dim] per layer, in the
// activation dtype (the cache stores attn_weights_inter, made .to(value_states)).
#pragma once
#include <string>

#include "builder.hpp"

namespace cardfit {

struct LightningAttentionSpec {
  std::string prefix;          // "model.layers.0.self_attn"
  int64_t hidden = 0;
  int64_t heads = 0, head_dim = 0;
  std::string act = "silu";    // hidden_act, applied to the qkv projection
};
/// Dataflow of the forward pass, in node order:
///   x → qkv_proj [3 * heads * head_dim, hidden] (no bias) → act
///   q, k, v → lightning scan (intra-block (QK^T ⊙ decay) V + inter-block Q (K^T V); no parameters)
///   → norm (RMSNorm [heads * head_dim])
///   x → output_gate [heads * head_dim, hidden] (no bias); sigmoid(gate) ⊙ norm(o)
///   → out_proj [hidden, heads * head_dim] (no bias)
/// The decay buffers (slope_rate, query_decay, key_decay, diagonal_decay) are computed at init and
/// are not parameters.
void lightning_attention(ModelBuilder& b, const LightningAttentionSpec& spec);

}  // namespace cardfit

// Kimi Delta Attention, the linear-attention mixer of Kimi Linear / Kimi-K3 (the hub's remote
// modeling_kimi_linear.py; read in SGLang's models/kimi_k3.py, 0000e9b4, mlx-lm's models/kimi_k3.py and
// vLLM's layers/kda.py, 2026-12-07): no KV cache; each sequence keeps the short convolutions' last
// inputs and a recurrent state [heads, head_dim, head_dim] per layer.
#pragma once
#include <string>

#include "builder.hpp"

namespace cardfit {

struct KdaSpec {
  std::string prefix;       // "language_model.model.layers.0.self_attn"
  int64_t hidden = 0, heads = 0, head_dim = 0;
  int64_t conv_kernel = 0;  // short_conv_kernel_size
  int64_t gate_rank = 0;    // f_a_proj's width (Kimi-K3: head_dim)
  int64_t a_log = 0;        // A_log's stored length (Kimi-K3 stores head_dim entries; the heads use the first `heads`)
};
/// Dataflow of the forward pass, in node order:
///   x → q_proj, k_proj, v_proj [heads * head_dim, hidden] → q_conv1d / k_conv1d / v_conv1d (depthwise,
///       causal, no bias, F32 in the checkpoint) → silu
///   x → f_a_proj [gate_rank, hidden] → f_b_proj [heads * head_dim, gate_rank]: the per-channel decay
///       input, g = lower_bound * sigmoid(exp(A_log) * (f + dt_bias))
///   x → b_proj [heads, hidden]: beta = sigmoid
///   x → g_proj [heads * head_dim, hidden]: the output gate
///   q, k (L2-normed), v, g, beta → the delta rule (chunked scan; owns A_log and dt_bias) → o
///   o, gate → o_norm (RMSNorm over head_dim, one [head_dim] weight, times sigmoid(gate)) → o_proj
void kda_mixer(ModelBuilder& b, const KdaSpec& spec);

}  // namespace cardfit

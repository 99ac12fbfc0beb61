// The gated delta net linear-attention mixer (transformers models/qwen3_next/modeling_qwen3_next.py
// Qwen3NextGatedDeltaNet, models/qwen3_5/modeling_qwen3_5.py Qwen3_5GatedDeltaNet): no KV cache;
// each sequence keeps a conv state [conv_dim, conv_kernel] (conv_dim = 2 * key_dim + value_dim)
// and a recurrent state [value_heads, key_head_dim, value_head_dim] per layer.
#pragma once
#include <string>

#include "builder.hpp"

namespace cardfit {

struct GatedDeltaNetSpec {
  std::string prefix;              // "model.layers.0.linear_attn"
  int64_t hidden = 0;
  int64_t key_heads = 0, value_heads = 0;        // linear_num_key_heads / linear_num_value_heads
  int64_t key_head_dim = 0, value_head_dim = 0;  // linear_key_head_dim / linear_value_head_dim
  int64_t conv_kernel = 0;                       // linear_conv_kernel_dim
  // Qwen3-Next fuses the input projections (in_proj_qkvz [2K + 2V, hidden], in_proj_ba [2 * Hv,
  // hidden]); Qwen3.5 splits them (in_proj_qkv [2K + V], in_proj_z [V], in_proj_b / in_proj_a [Hv]).
  bool split_projections = false;
  std::string act = "silu";
  int recurrent_state_bytes = 4;   // the chunked/fused kernels return the final state in fp32
};
/// Dataflow of the forward pass, in node order:
///   x → in_proj_qkvz (or in_proj_qkv + in_proj_z) → q, k, v, z
///   x → in_proj_ba (or in_proj_b + in_proj_a) → beta = sigmoid(b), g = -exp(A_log) * softplus(a + dt_bias)
///   [q | k | v] → conv1d (depthwise, causal, no bias) → silu
///   q, k (l2-normed), v, g, beta → gated delta rule (chunked scan; owns A_log and dt_bias) → o [V]
///   o, z → norm (RMSNormGated over value_head_dim: rmsnorm(o) * weight * silu(z))
///   → out_proj [hidden, V]
void gated_delta_net(ModelBuilder& b, const GatedDeltaNetSpec& spec);

/// RMSNormGated per head (one [head_dim] weight the heads share): rmsnorm(o) * weight * act(gate) over
/// `width` features, o the cursor. The gated delta net's `norm`, Kimi Delta Attention's `o_norm`.
void head_gated_rmsnorm(ModelBuilder& b, const std::string& name, int64_t width, int64_t head_dim, ValueId gate);

}  // namespace cardfit

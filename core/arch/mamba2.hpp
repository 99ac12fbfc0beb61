// The Mamba-2 mixer (transformers models/zamba2/modeling_zamba2.py Zamba2MambaMixer, as
// models/nemotron_h/modeling_nemotron_h.py NemotronHMamba2Mixer configures it): no KV cache; each
// sequence keeps a conv state [conv_dim, conv_kernel] (conv_dim = inner + 2 * n_groups * state) and an
// SSM state [heads, head_dim, state] per layer.
#pragma once
#include <optional>
#include <string>

#include "builder.hpp"

namespace cardfit {

struct Mamba2Spec {
  std::string prefix;           // "backbone.layers.0.mixer"
  int64_t hidden = 0;
  int64_t heads = 0, head_dim = 0;  // mamba_num_heads, mamba_head_dim: inner = heads * head_dim
  int64_t groups = 0;           // n_groups (B and C are shared within a group)
  int64_t state = 0;            // ssm_state_size
  int64_t conv_kernel = 0;      // conv_kernel
  bool conv_bias = true;        // use_conv_bias
  bool proj_bias = false;       // use_bias: in_proj and out_proj
  std::string act = "silu";     // mamba_hidden_act
  int state_bytes = 0;          // bytes per SSM-state element; 0 = the activation dtype
  bool gated_norm = true;       // false: y * silu(z) without the norm and its weight (Falcon-H1 mamba_rms_norm)
  std::optional<bool> out_proj_bias;  // set: out_proj's bias apart from in_proj's (Falcon-H1 projectors_bias)
};
/// Dataflow of the forward pass, in node order:
///   x → in_proj [inner (gate z) + conv_dim (x, B, C) + heads (dt)]
///   [x | B | C] → conv1d (depthwise, causal, + bias) → act
///   x, B, C, dt (+ dt_bias, softplus) → selective state-space scan (owns A_log, D, dt_bias) → y [inner]
///   y, z → norm (grouped RMSNormGated over inner / n_groups, gate silu(z)) → out_proj [hidden, inner]
void mamba2_mixer(ModelBuilder& b, const Mamba2Spec& spec);

}  // namespace cardfit

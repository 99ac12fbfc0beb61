// The Mamba-1 selective-state-space mixer (transformers models/mamba/modeling_mamba.py MambaMixer,
// models/jamba/modeling_jamba.py JambaMambaMixer): no attention and no KV cache; each sequence
// keeps a constant-size conv state [inner, conv_kernel] and SSM state [inner, state] per layer.
#pragma once
#include <string>

#include "builder.hpp"

namespace cardfit {

struct MambaSpec {
  std::string prefix;          // "backbone.layers.0.mixer" / "model.layers.0.mamba"
  int64_t hidden = 0;
  int64_t inner = 0;           // intermediate_size = expand * hidden
  int64_t state = 0;           // state_size / mamba_d_state
  int64_t conv_kernel = 0;     // conv_kernel / mamba_d_conv
  int64_t dt_rank = 0;         // time_step_rank / mamba_dt_rank
  bool conv_bias = true;       // use_conv_bias
  bool proj_bias = false;      // use_bias: in_proj and out_proj
  bool inner_norms = false;    // Jamba: RMSNorms dt_layernorm [dt_rank], b_layernorm, c_layernorm [state]
  std::string act = "silu";
};
/// in_proj [2*inner, hidden], depthwise conv1d [inner, 1, kernel], x_proj [dt_rank + 2*state, inner],
/// dt_proj [inner, dt_rank] + bias, A_log [inner, state], D [inner], out_proj [hidden, inner].
void mamba_mixer(ModelBuilder& b, const MambaSpec& spec);

}  // namespace cardfit

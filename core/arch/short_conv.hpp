// LFM2's gated short convolution (transformers models/lfm2/modeling_lfm2.py, Lfm2ShortConv): the token
// mixer of its conv layers. No KV cache; each sequence keeps a conv state [hidden, conv_L_cache] per
// layer (Lfm2HybridConvCache, in the model's dtype).
#pragma once
#include <string>

#include "builder.hpp"

namespace cardfit {

struct ShortConvSpec {
  std::string prefix;      // "model.layers.0.conv"
  int64_t hidden = 0;
  int64_t kernel = 3;      // conv_L_cache
  bool bias = false;       // conv_bias: in_proj, conv and out_proj
};
/// Dataflow, in node order:
///   x → in_proj [3 · hidden] = [B | C | x]
///   B · x (keeps B and x) → conv (depthwise causal Conv1d [hidden, 1, kernel]; holds the conv state)
///   C · conv (keeps C and the conv output) → out_proj [hidden, hidden]
void short_conv_mixer(ModelBuilder& b, const ShortConvSpec& spec);

}  // namespace cardfit

// Experts stored as bare stacked parameters with biases and a router with a bias (transformers
// models/gpt_oss/modeling_gpt_oss.py GptOssMLP: router GptOssTopKRouter weight [E, hidden] + bias [E];
// experts GptOssExperts gate_up_proj [E, hidden, 2 * I] (stored input-major: x @ W), gate_up_proj_bias
// [E, 2 * I], down_proj [E, I, hidden], down_proj_bias [E, hidden]; models/llama4 Llama4TextExperts has the
// same layout without biases and a bias-free router). Like fused_moe_block these are not
// nn.Linear: PEFT's LoRA does not target them and bitsandbytes leaves them unquantized.
#pragma once
#include <string>

#include "builder.hpp"

namespace cardfit {

struct BiasedExpertsSpec {
  std::string prefix;          // "model.layers.0.mlp"
  int64_t hidden = 0, experts = 0, top_k = 0, intermediate = 0;
  std::string router = "router", experts_name = "experts";
  std::string act = "swiglu_clamped";  // gpt-oss: (up + 1) * gate * sigmoid(1.702 * gate), clamped at 7
  bool biases = true;          // {gate_up,down}_proj_bias (gpt-oss); Llama 4's experts have none
  bool router_bias = true;     // gpt-oss's router has a bias; Llama 4's (a bias-free nn.Linear) has not
};
/// Dataflow: x → router (logits [E], top-k softmax) ; x → gate_up (per chosen expert, + bias) →
/// gated activation (interleaved gate/up halves) → down (+ bias) → weighted sum over the top-k.
void biased_stacked_experts(ModelBuilder& b, const BiasedExpertsSpec& spec);

}  // namespace cardfit

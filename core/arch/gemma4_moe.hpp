// Gemma 4's feed-forward with enable_moe_block (transformers models/gemma4/modeling_gemma4.py,
// Gemma4TextDecoderLayer, Gemma4TextRouter, Gemma4TextExperts; gemma-4-26B-A4B): a dense MLP and a
// routed mixture of experts side by side, each with its own norms, summed before the layer's
// post_feedforward_layernorm.
#pragma once
#include <string>

#include "decoder.hpp"

namespace cardfit {

struct Gemma4MoeSpec {
  int64_t experts = 0, top_k = 0, intermediate = 0;  // num_experts, top_k_experts, moe_intermediate_size
  std::string act = "gelu_pytorch_tanh";             // hidden_activation
};

/// One Gemma4TextDecoderLayer with enable_moe_block: the sandwich-norm attention half of
/// sandwich_norm_decoder_layer (input_layernorm → attention → post_attention_layernorm → + x = r), then
///   pre_feedforward_layernorm(r) → mlp (gate/up/down_proj) → post_feedforward_layernorm_1 = h1;
///   the router reads r: router.norm (no weight) · router.scale [hidden] · hidden^-0.5 → router.proj
///   [experts, hidden] → softmax, top-k, renormalised, · router.per_expert_scale [experts];
///   pre_feedforward_layernorm_2(r) → experts.gate_up_proj [experts, 2 · intermediate, hidden] →
///   act(gate) · up → experts.down_proj [experts, hidden, intermediate] → weighted sum →
///   post_feedforward_layernorm_2 = h2;
///   h1 + h2 → post_feedforward_layernorm → + r.
/// The spec's norm names and moe field are not used: Gemma 4's names are fixed by its modules.
void gemma4_moe_decoder_layer(ModelBuilder& b, const SandwichLayerSpec& layer, const Gemma4MoeSpec& moe);

}  // namespace cardfit

// The text families added for issue 10's 2026 zoo (Tier 2: small deltas from traced families);
// registry.cpp maps model_type to them. Declared apart from families.hpp, like wrappers.hpp, so that
// adding one rebuilds only the files that use it.
#pragma once
#include "../../config.hpp"
#include "../../model.hpp"

namespace cardfit::families {

Model cohere2(const Config& cfg);           // Command R7B / A: cohere's parallel block, sliding + NoPE full layers
Model phimoe(const Config& cfg);            // Phi-3.5-MoE: Mixtral's experts with LayerNorms and biases
Model lfm2(const Config& cfg);              // LFM2: gated short-conv layers and attention layers
Model lfm2_moe(const Config& cfg);          // LFM2-MoE: LFM2's layers, dense then sigmoid-routed MoE feed-forwards
Model glm4_moe_lite(const Config& cfg);     // GLM-4.7-Flash: DeepSeek-V3's latent attention over GLM-4.5's MoE
Model ernie4_5_moe(const Config& cfg);      // ERNIE 4.5 MoE: per-expert experts, shared experts, moe_statics
Model hunyuan_v1_dense(const Config& cfg);  // Hunyuan dense: Llama layers with post-RoPE q/k RMSNorms
Model hunyuan_v1_moe(const Config& cfg);    // Hunyuan MoE: the same attention, experts + one shared MLP

}  // namespace cardfit::families

// The multimodal wrappers over traced text families (issue 10); registry.cpp maps model_type to them.
// Declared apart from families.hpp so that adding a wrapper rebuilds only the files that use it.
#pragma once
#include "../../config.hpp"
#include "../../model.hpp"

namespace cardfit::families {

Model qwen3_5(const Config& cfg);      // Qwen3-VL vision tower (no deepstack) + Qwen3.5 hybrid text
Model qwen3_5_moe(const Config& cfg);  // the same tower + Qwen3.5-MoE text
Model gemma4(const Config& cfg);       // Gemma 4 vision tower (+ audio tower) + Gemma 4 text
Model diffusion_gemma(const Config& cfg);  // block diffusion: Gemma 4 vision tower + one Gemma 4 MoE stack (encoder = decoder) + self-conditioning
Model gemma4_unified(const Config& cfg);  // encoder-free vision / audio embedders + Gemma 4 text without PLE or MoE
Model mistral3(const Config& cfg);
Model llama4(const Config& cfg);             // Llama 4 vision model + projector + llama4_text
Model qwen3_vl_moe_text(const Config& cfg);  // Qwen3-VL-MoE's language model: Qwen3 attention, input-major stacked experts
Model qwen3_omni_moe(const Config& cfg);     // thinker (audio tower, vision tower, qwen3_omni_moe_text) + talker + code2wav
Model qwen3_vl_moe(const Config& cfg);       // Qwen3-VL vision tower (deepstack) + qwen3_vl_moe_text
Model kimi_k3(const Config& cfg);            // MoonViT3d + KDA / gated-MLA hybrid, attention residuals, latent MoE     // Pixtral vision tower + Mistral 3 projector + mistral / ministral3 text

}  // namespace cardfit::families

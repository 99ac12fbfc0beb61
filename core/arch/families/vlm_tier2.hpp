// Tier 2 vision-language wrappers over traced text families (issue 10); registry.cpp maps
// model_type to them. Apart from wrappers.hpp so that parallel branches add their own headers.
#pragma once
#include "../../config.hpp"
#include "../../model.hpp"

namespace cardfit::families {

Model idefics3(const Config& cfg);  // idefics3 and smolvlm: SigLIP-style tower + pixel-shuffle connector + a text model
Model lfm2_vl(const Config& cfg);   // SigLIP2 NaFlex tower + pixel-unshuffle MLP projector + lfm2
Model glm_ocr(const Config& cfg);   // GLM-OCR vision model + merger + a GLM-4-layered text model
Model glm4v(const Config& cfg);     // GLM-4.1V / 4.6V-Flash: Glm4vVisionModel + GLM-4-0414 layers
Model glm4v_moe(const Config& cfg); // GLM-4.5V / 4.6V: the same tower + GLM-4.5 MoE layers
Model glm4v_text(const Config& cfg);      // their text_config alone: the language model
Model glm4v_moe_text(const Config& cfg);
Model paligemma(const Config& cfg); // PaliGemma (2): SigLIP tower + one linear projector + Gemma (2)
Model deepseek_vl_v2(const Config& cfg);  // DeepSeek-VL2: timm SigLIP tower + MlpProjector + DeepSeek-V2 MoE

}  // namespace cardfit::families

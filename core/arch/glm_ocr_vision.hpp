// The GLM-OCR vision model (transformers models/glm_ocr/modeling_glm_ocr.py, GlmOcrVisionModel:
// Glm4vVisionModel without its learned position table and post-conv norm; read 2026-12-01), stored
// under "model.visual." in the published checkpoint. Built from ModelBuilder's public primitives.
#pragma once
#include <string>

#include "../config.hpp"
#include "builder.hpp"

namespace cardfit {

struct GlmOcrVisionSpec {
  std::string prefix = "model.visual";
  int64_t hidden = 1024, depth = 24, heads = 16, intermediate = 4096, out_hidden = 1536;
  int64_t patch = 14, temporal_patch = 2, merge = 2, channels = 3, image_size = 336;
  bool bias = true;                 // attention_bias: qkv, proj and the MLP's three projections
  std::string act = "silu";
  int64_t patches_per_image = 0;    // the planning assumption: (image_size / patch)² patches
};
/// patch_embed.proj (Conv3d [hidden, C, temporal_patch, patch, patch] + bias: one linear map per patch)
/// → blocks.N (norm1 RMSNorm → attn.qkv → q_norm / k_norm RMSNorm [head_dim] → attention over the whole
/// image (2-D rotary, no parameters) → attn.proj → add → norm2 → mlp gate_proj / up_proj → act(gate) · up
/// → down_proj → add) → post_layernorm RMSNorm → downsample (Conv2d [out_hidden, hidden, merge, merge] +
/// bias over each merge × merge group) → merger (proj [out, out] → post_projection_norm LayerNorm → GELU
/// → gate_proj / up_proj [out · in_channels, out] → act · up → down_proj; no biases): the image's tokens.
void glm_ocr_vision(ModelBuilder& b, const GlmOcrVisionSpec& spec);
/// GlmOcrVisionConfig with its class defaults.
GlmOcrVisionSpec read_glm_ocr_vision(const Config& vision);

}  // namespace cardfit

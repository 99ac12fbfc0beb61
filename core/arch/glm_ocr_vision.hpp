// The GLM-OCR vision model (transformers models/glm_ocr/modeling_glm_ocr.py, GlmOcrVisionModel:
// Glm4vVisionModel without its learned position table and post-conv norm; read 2026-12-01), stored
// under "model.visual." in the published checkpoint, and with `glm4v` Glm4vVisionModel itself (GLM-4.1V,
// GLM-4.5V; read 2026-12-08). Built from ModelBuilder's public primitives.
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
  // Glm4vVisionModel (GLM-4.1V, GLM-4.5V / 4.6V; models/glm4v/modeling_glm4v.py), whose tower GLM-OCR
  // trimmed: post_conv_layernorm and a learned embeddings.position_embedding [(image_size / patch)²,
  // hidden] after the patch embedding, no q/k norms, attention_bias on qkv alone, each block's MLP
  // out_hidden wide and the merger's gate / up intermediate wide (GLM-OCR: intermediate and
  // out_hidden · in_channels).
  bool glm4v = false;
};
/// patch_embed.proj (Conv3d [hidden, C, temporal_patch, patch, patch] + bias: one linear map per patch)
/// → blocks.N (norm1 RMSNorm → attn.qkv → q_norm / k_norm RMSNorm [head_dim] → attention over the whole
/// image (2-D rotary, no parameters) → attn.proj → add → norm2 → mlp gate_proj / up_proj → act(gate) · up
/// → down_proj → add) → post_layernorm RMSNorm → downsample (Conv2d [out_hidden, hidden, merge, merge] +
/// bias over each merge × merge group) → merger (proj [out, out] → post_projection_norm LayerNorm → GELU
/// → gate_proj / up_proj [out · in_channels, out] → act · up → down_proj; no biases): the image's tokens.
void glm_ocr_vision(ModelBuilder& b, const GlmOcrVisionSpec& spec);
/// The vision config over its class's defaults: GlmOcrVisionConfig's (the default) or Glm4vVisionConfig's.
GlmOcrVisionSpec read_glm_ocr_vision(const Config& vision, GlmOcrVisionSpec defaults = {});
/// Glm4vVisionConfig's defaults (depth 24, hidden 1536, 12 heads, out_hidden 4096, intermediate 13696,
/// attention_bias false; patch, merge, channels and image as GLM-OCR's), with `glm4v` set.
GlmOcrVisionSpec glm4v_vision_defaults();

}  // namespace cardfit

// Kimi-K3's vision tower, MoonViT3d, and its projector, PatchMergerMLPV2 (the hub's remote
// modeling_kimi_k3.py; read in SGLang's models/kimi_k3_vl.py, 2026-12-07), stored under
// "vision_tower." and "mm_projector.".
#pragma once
#include <string>

#include "builder.hpp"

namespace cardfit {

struct MoonVitSpec {
  int64_t hidden = 0, layers = 0, heads = 0, qkv_hidden = 0, intermediate = 0, text_hidden = 0;
  int64_t patch = 14, channels = 3, merge = 2;  // merge_kernel_size: merge × merge patches per token
  int64_t pos_height = 64, pos_width = 64;      // init_pos_emb_height / _width: the stored position grid
  int64_t patches_per_image = 0;                // the planning assumption: patches of one image
  std::string act = "gelu_pytorch_tanh";
};
/// patch_embed.proj (Conv2d, no bias) + patch_embed.pos_emb [height, width, hidden] interpolated to the
/// image's grid (a sincos time embedding for video, no parameters) → encoder.blocks.N (norm0 RMSNorm →
/// wqkv (no bias; heads × qkv_hidden / heads each for q, k, v) → attention over the whole image, 2-D
/// rotary → wo → add → norm1 → mlp fc0 → act → fc1 → add) → encoder.final_layernorm → the sd2_tpool
/// merge (frames averaged, merge × merge patches concatenated) → mm_projector proj.0 → GELU → proj.2 →
/// post_norm (RMSNorm over the text width). Domain::vision blocks.
void moonvit(ModelBuilder& b, const MoonVitSpec& spec);

}  // namespace cardfit

// A timm VisionTransformer as DeepSeek-VL2's remote code builds it (deepseek-ai/DeepSeek-VL2
// deepseek_vl2/models/siglip_vit.py, with timm.layers AttentionPoolLatent / Mlp / PatchEmbed; read
// 2026-12-01): stored under "vision." with timm's names. Built from ModelBuilder's public primitives.
#pragma once
#include <string>

#include "builder.hpp"

namespace cardfit {

struct TimmVitSpec {
  std::string prefix = "vision";
  int64_t width = 1152, layers = 27, heads = 16, mlp_hidden = 4304;  // mlp_hidden = int(width · mlp_ratio)
  int64_t image_size = 384, patch = 14, channels = 3;
  bool map_pool = true;  // global_pool "map": the AttentionPoolLatent head is built (and stored) even
                         // when ignore_head skips it in the forward pass
};
/// Patches per image: (image_size // patch)², as timm's PatchEmbed grid (a Conv2d, stride = kernel).
int64_t timm_vit_patches(const TimmVitSpec& spec);
/// patch_embed.proj (Conv2d + bias) → + pos_embed [1, patches, width] (no class token) → blocks.N
/// (norm1 LayerNorm → attn.qkv (bias) → attention over the image → attn.proj → add → norm2 → mlp.fc1 →
/// GELU(tanh) → mlp.fc2 → add) → norm. The attention pool (latent [1, 1, width], q, kv, proj, norm,
/// mlp.fc1/fc2) is listed with its parameters; it runs on no token (ignore_head), so it costs no FLOPs.
void timm_vit(ModelBuilder& b, const TimmVitSpec& spec);

}  // namespace cardfit

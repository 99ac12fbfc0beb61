// Standalone vision and contrastive towers: the Google ViT encoder (transformers models/vit/
// modeling_vit.py: "vit." names, cls_token, layernorm_before/after) and the CLIP / SigLIP text
// transformer (models/clip/modeling_clip.py CLIPTextTransformer, models/siglip/modeling_siglip.py
// SiglipTextTransformer). CLIP's and SigLIP's vision transformer is vit_encoder (vision.hpp).
// Built from ModelBuilder's public primitives; each builder's comment gives the forward order.
#pragma once
#include <string>

#include "../config.hpp"
#include "blocks.hpp"

namespace cardfit {

struct GoogleVitSpec {
  std::string prefix;            // "vit" (heads), "" (ViTModel)
  int64_t hidden = 0, layers = 0, heads = 0, intermediate = 0;
  int64_t image_size = 0, patch_size = 0, channels = 3;
  bool qkv_bias = true;
  std::string act = "gelu";
  bool mask_token = false;       // embeddings.mask_token (ViTForMaskedImageModeling)
};
/// embeddings (patch Conv2d → concat cls_token → + position_embeddings) → encoder.layer.N
/// (layernorm_before → attention.attention.query/key/value → attn → attention.output.dense → add →
/// layernorm_after → intermediate.dense → act → output.dense → add) → layernorm. Domain::vision
/// blocks of (image_size / patch_size)^2 + 1 tokens per image.
void google_vit(ModelBuilder& b, const GoogleVitSpec& spec);
int64_t google_vit_tokens(const GoogleVitSpec& spec);

struct TextTowerSpec {
  std::string prefix;            // "text_model"
  int64_t vocab = 0, hidden = 0, layers = 0, heads = 0, intermediate = 0, positions = 0;
  std::string act = "quick_gelu";
  int64_t head_out = 0;          // SigLIP: text_model.head [head_out, hidden] with bias; 0 = none
};
/// embeddings (token_embedding + position_embedding) → encoder.layers.N (layer_norm1 → self_attn
/// q/k/v/out_proj → add → layer_norm2 → mlp fc1 → act → fc2 → add) → final_layer_norm (→ head).
/// CLIP's text mask is causal, but the tower is run once per text (no KV cache): planned as
/// bidirectional attention over the sequence.
void text_tower(ModelBuilder& b, const TextTowerSpec& spec);

}  // namespace cardfit

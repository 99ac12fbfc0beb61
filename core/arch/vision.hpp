// Multimodal building blocks: a ViT image encoder (CLIP and SigLIP vision towers, transformers
// models/clip/modeling_clip.py and models/siglip/modeling_siglip.py), the projectors that map its
// features into a language model, and the grafting of a separately traced language model under a
// prefix ("language_model."). Vision tensors carry Role::vision and layer -1 (they are not decoder
// layers); their attention is bidirectional, so it holds no KV cache.
#pragma once
#include <string>

#include "../config.hpp"
#include "builder.hpp"

namespace cardfit {

struct VitSpec {
  std::string prefix;             // "vision_tower.vision_model"
  int64_t hidden = 0, layers = 0, heads = 0, intermediate = 0;
  int64_t image_size = 0, patch_size = 0, channels = 3;
  std::string act = "gelu_pytorch_tanh";
  bool class_token = false;       // CLIP: embeddings.class_embedding [hidden], one extra position
  bool patch_bias = true;         // SigLIP's patch Conv2d has a bias, CLIP's has none
  std::string pre_norm;           // CLIP: "pre_layrnorm" (sic, as in the checkpoint)
  bool post_norm = true;          // "post_layernorm"
  bool pooling_head = false;      // SigLIP: the attention-pooling "head" (probe, MHA, LN, MLP)
  NormKind norm = NormKind::layernorm;
  bool patch_linear = false;      // SigLIP2 NaFlex: an nn.Linear [hidden, C·p²] over pre-cut patches, not a Conv2d
  int64_t position_table = 0;     // SigLIP2: num_patches rows, resized to each image's grid (0: one row per token)
};
/// Embeddings (patch Conv2d, positions, optional class token), encoder layers
/// (layer_norm1, self_attn q/k/v/out_proj, layer_norm2, mlp fc1/fc2, all with biases), final norms.
/// Its blocks are Domain::vision: each image runs (image_size / patch_size)^2 patch tokens (+1
/// class token for CLIP) through them, at the tower's own width.
void vit_encoder(ModelBuilder& b, const VitSpec& spec);
/// Starts a block over the tokens of each image (Domain::vision; Domain::audio: of each sample's
/// fixed audio window) with its own stream width; layer -1 (not a decoder layer).
void vision_block(ModelBuilder& b, std::string name, std::string kind, int64_t tokens_per_image, int64_t width,
                  Domain domain = Domain::vision);
/// Patch tokens per image: (image_size / patch_size)^2.
int64_t vit_patches(const VitSpec& spec);
/// Tokens per image through the encoder layers: the patches, plus CLIP's class token.
int64_t vit_tokens(const VitSpec& spec);

/// The CLIP/SigLIP vision config a multimodal config nests, with the config class defaults applied
/// (CLIPVisionConfig or SiglipVisionConfig by `model_type`, or `default_type` when it has none).
/// Throws Error(field_range) for a vision tower it does not know.
VitSpec read_vit(const Config& vision_config, const std::string& default_type, const std::string& prefix);

/// The encoder dimensions a SigLIP-style vision config names alike, each with its config class's
/// default: hidden_size, intermediate_size, num_hidden_layers, num_attention_heads, num_channels,
/// patch_size, hidden_act. read_vit_dims reads them into `s` and requires hidden_size to divide by
/// num_attention_heads (a coded error naming num_attention_heads); the rest of `s` is the caller's.
struct VitDefaults {
  int64_t hidden = 0, intermediate = 0, layers = 0, heads = 0, channels = 3, patch_size = 0;
  const char* act = "gelu_pytorch_tanh";
};
void read_vit_dims(const Config& vision_config, const VitDefaults& defaults, VitSpec& s);

/// LLaVA-style projector: linear_1 [text, vision*features] → act → linear_2 [text, text].
struct MlpProjectorSpec {
  std::string prefix;             // "multi_modal_projector"
  int64_t in = 0, hidden = 0, out = 0;
  bool bias = true;
  std::string act = "gelu";
  std::string first = "linear_1", second = "linear_2";
  int64_t tokens_per_image = 0;   // image tokens it maps into the text (LLaVA-1.5: 576)
};
void mlp_projector(ModelBuilder& b, const MlpProjectorSpec& spec);

/// Gemma 3-style projector: average-pooled patches, an RMSNorm over the vision width
/// ("mm_soft_emb_norm") and one bare matrix [vision, text] ("mm_input_projection_weight").
struct MatrixProjectorSpec {
  std::string prefix;             // "multi_modal_projector"
  int64_t in = 0, out = 0;
  std::string norm = "mm_soft_emb_norm", weight = "mm_input_projection_weight";
  int64_t tokens_per_image = 0;   // tokens per image after pooling (Gemma 3: mm_tokens_per_image, 256)
};
void matrix_projector(ModelBuilder& b, const MatrixProjectorSpec& spec);

/// Appends a separately traced model (its tensors, buffers, blocks and notes) with every name
/// prefixed, as a multimodal checkpoint stores its language model; `take_dims` copies its Dims.
void append_model(ModelBuilder& b, const Model& sub, const std::string& prefix, bool take_dims);

/// `cfg`'s object with `defaults` filled in where a key is absent or null, as a config class's
/// constructor does; the result reports paths under cfg.path(). An absent object gives the defaults.
Config with_defaults(const Config& cfg, const std::string& defaults_json);
/// `cfg.child(key)` when present (an error unless it is an object), else an empty object reporting
/// the path $.key, for sub-configs whose absence means the class defaults.
Config child_or_empty(const Config& cfg, const std::string& key);
/// A multimodal wrapper's text_config as its config class builds it: the class's own text config
/// (`text_type`) whatever model_type the sub-config names, tie_word_embeddings from the top level
/// (default `tie_default`) where the sub-config has none; errors report paths under $.text_config.
Config wrapped_text_config(const Config& cfg, const std::string& text_type, bool tie_default);

}  // namespace cardfit

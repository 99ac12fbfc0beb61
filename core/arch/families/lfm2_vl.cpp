// LFM2-VL (transformers models/lfm2_vl/modeling_lfm2_vl.py and configuration_lfm2_vl.py,
// Lfm2VlForConditionalGeneration, model_type "lfm2_vl"; the 2025 remote code's configs say "lfm2-vl"; read
// 2026-12-01). Stored as the published checkpoints hold it (_checkpoint_conversion_mapping is empty):
//   model.vision_tower.vision_model.*  Siglip2VisionModel (models/siglip2/modeling_siglip2.py): the
//       NaFlex embeddings (patch_embedding an nn.Linear [hidden, C · p²] over pre-cut patches,
//       position_embedding [num_patches, hidden] resized to each image's grid), SigLIP encoder layers,
//       post_layernorm, the attention-pooling head unless vision_use_head is false;
//   model.multi_modal_projector.*  pixel_unshuffle folds downsample_factor² patches into one token (a
//       view), then layer_norm [hidden · f²] (vLLM: only when projector_use_layernorm, default true),
//       linear_1 [projector_hidden_size, hidden · f²], act, linear_2 [text hidden, projector_hidden_size],
//       biases by projector_bias;
//   model.language_model.*  the lfm2 family's trace of text_config; lm_head tied by text_config's
//       tie_embedding / tie_word_embeddings (Lfm2Config default true), as get_text_config() decides.
// vision_feature_layer is not read: get_image_features takes the tower's last_hidden_state.
// Images: one tile_size × tile_size tile each (512 px: 1024 patches of 16 px, 256 text tokens after
// the 2 × 2 unshuffle); the processor cuts larger images into tiles (plus a thumbnail), smaller ones
// keep fewer patches, so `images` counts tiles.
#include <cmath>

#include <nlohmann/json.hpp>

#include "../../error.hpp"
#include "../qwen_vision.hpp"
#include "../registry.hpp"
#include "../vision.hpp"
#include "vlm_tier2.hpp"

namespace cardfit::families {

namespace {
// Siglip2VisionConfig defaults (hidden 768, intermediate 3072, 12 layers, 12 heads, 3 channels,
// num_patches 256, patch 16); vision_use_head is no class attribute, so the head is built unless the
// config says false. `tile` is the planned image side in pixels.
VitSpec read_siglip2_vision(const Config& v, int64_t tile) {
  const std::string type = v.string_or("model_type", "siglip2_vision_model");
  if (type != "siglip2_vision_model")
    throw Error(ErrorCode::field_range,
                "vision tower model_type \"" + type.substr(0, 60) + "\" is not supported for lfm2-vl; cardfit traces "
                "\"siglip2_vision_model\".",
                v.path_of("model_type"));
  VitSpec s;
  s.prefix = "model.vision_tower.vision_model";
  read_vit_dims(v, {.hidden = 768, .intermediate = 3072, .layers = 12, .heads = 12, .patch_size = 16}, s);
  s.position_table = v.positive_or({"num_patches"}, 256);
  s.pooling_head = v.boolean_or("vision_use_head", true);
  s.patch_linear = true;
  s.image_size = tile;
  const auto side = int64_t(std::llround(std::sqrt(double(s.position_table))));
  require(side * side == s.position_table, v, "num_patches",
          "vision_config.num_patches (" + std::to_string(s.position_table) + ") must be a square: the position "
          "table is reshaped to a square grid.");
  return s;
}
}  // namespace

Model lfm2_vl(const Config& c) {
  nlohmann::json text = child_or_empty(c, "text_config").raw();
  if (!text.contains("model_type")) text["model_type"] = "lfm2";
  if (!text.contains("tie_word_embeddings") && !text.contains("tie_embedding") && c.has("tie_word_embeddings"))
    text["tie_word_embeddings"] = c.boolean_or("tie_word_embeddings", true);
  const Model language = trace_model(Config(std::make_shared<const nlohmann::json>(std::move(text)), c.path_of("text_config")));

  const int64_t tile = c.positive_or({"tile_size"}, 512);
  const VitSpec v = read_siglip2_vision(child_or_empty(c, "vision_config"), tile);
  require(tile % v.patch_size == 0, c, "tile_size",
          "tile_size (" + std::to_string(tile) + ") must be a multiple of vision_config.patch_size (" +
              std::to_string(v.patch_size) + ").");
  const int64_t f = c.positive_or({"downsample_factor"}, 2);
  require((tile / v.patch_size) % f == 0, c, "downsample_factor",
          "downsample_factor (" + std::to_string(f) + ") must divide the patches per tile side (" +
              std::to_string(tile / v.patch_size) + ").");
  const int64_t in = checked_mul(v.hidden, f * f, "vision hidden_size × downsample_factor²");
  const int64_t mid = c.positive_or({"projector_hidden_size"}, 2560);
  const bool bias = c.boolean_or("projector_bias", true);

  ModelBuilder b(c.string_or("model_type", "lfm2-vl"), "lfm2_vl");
  vit_encoder(b, v);
  const std::string p = "model.multi_modal_projector.";
  vision_block(b, "model.multi_modal_projector", "projector", vit_patches(v) / (f * f), in);
  if (c.boolean_or("projector_use_layernorm", true)) b.norm(p + "layer_norm", in, NormKind::layernorm, Role::projector);
  b.linear(p + "linear_1", in, mid, {.bias = bias, .role = Role::projector});
  b.activation(p + "act", mid, c.string_or("projector_hidden_act", "gelu"));
  b.linear(p + "linear_2", mid, language.dims.hidden, {.bias = bias, .role = Role::projector});
  append_renamed(b, language, "model.", "model.language_model.");
  b.note("Images: one " + std::to_string(tile) + " x " + std::to_string(tile) + " tile each (" +
         std::to_string(vit_patches(v)) + " patches, " + std::to_string(vit_patches(v) / (f * f)) +
         " text tokens after the pixel unshuffle); the processor cuts a larger image into tiles (and a thumbnail) and "
         "keeps a smaller one at its own size, so scale `images` to the tiles you feed.");
  return b.finish();
}

}  // namespace cardfit::families

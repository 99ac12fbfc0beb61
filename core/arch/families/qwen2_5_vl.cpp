// Qwen2.5-VL (transformers models/qwen2_5_vl/modeling_qwen2_5_vl.py,
// Qwen2_5_VLForConditionalGeneration): the windowed vision transformer and patch merger
// (qwen_vision.hpp, "visual.") and a Qwen2 text model traced by the llama family from the
// top-level keys (or text_config). Names as the published checkpoints store them: "visual.*",
// "model.*", "lm_head.*" (current transformers nests them as model.visual / model.language_model
// and maps these names on load with _checkpoint_conversion_mapping). Images have a dynamic
// resolution; the plan assumes one 448 × 448 image per sample (1024 patches, 256 text tokens).
#include <nlohmann/json.hpp>

#include "../qwen_vision.hpp"
#include "../registry.hpp"
#include "../vision.hpp"
#include "families.hpp"

namespace cardfit::families {

Model qwen2_5_vl(const Config& c) {
  // Older configs keep the text keys at the top level, newer ones under text_config.
  const bool nested = c.has("text_config");
  nlohmann::json text_json = nested ? c.child("text_config").raw() : c.raw();
  text_json.erase("vision_config");
  text_json["model_type"] = "qwen2";
  const Config text(std::make_shared<const nlohmann::json>(std::move(text_json)), nested ? c.path_of("text_config") : c.path());
  const Model language = trace_model(text);
  const QwenVisionSpec v = read_qwen2_5_vision(child_or_empty(c, "vision_config"), language.dims.hidden);

  ModelBuilder b(c.string_or("model_type", "qwen2_5_vl"), "qwen2_5_vl");
  qwen2_5_vision(b, v);
  append_model(b, language, "", true);
  b.note("Images: planned as one 448 x 448 image per sample (" + std::to_string(v.patches_per_image) + " patches, " +
         std::to_string(v.patches_per_image / (v.merge * v.merge)) + " text tokens); Qwen2.5-VL resizes each image "
         "to its own resolution (min_pixels/max_pixels of the processor), so scale `images` to the patches you feed.");
  b.note("Vision attention: windows of " + std::to_string(v.window) + " patches, the whole image in " +
         std::to_string(v.full_blocks.size()) + " blocks (fullatt_block_indexes).");
  return b.finish();
}

}  // namespace cardfit::families

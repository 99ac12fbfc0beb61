// Qwen2.5-VL (transformers models/qwen2_5_vl/modeling_qwen2_5_vl.py,
// Qwen2_5_VLForConditionalGeneration) and Qwen2-VL (models/qwen2_vl/modeling_qwen2_vl.py,
// Qwen2VLForConditionalGeneration): the vision transformer and patch merger (qwen_vision.hpp,
// "visual."; Qwen2.5-VL's windowed with RMSNorms and a gated MLP, Qwen2-VL's global with LayerNorms
// and fc1/fc2) and a Qwen2 text model traced by the llama family from the top-level keys (or
// text_config). Names as the published checkpoints store them: "visual.*", "model.*", "lm_head.*"
// (current transformers nests them as model.visual / model.language_model and maps these names on
// load with _checkpoint_conversion_mapping). Images have a dynamic resolution; the plan assumes one
// 448 × 448 image per sample (1024 patches, 256 text tokens).
#include <nlohmann/json.hpp>

#include "../qwen_vision.hpp"
#include "../registry.hpp"
#include "../vision.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
// The Qwen2 text model: older configs keep its keys at the top level, newer ones under text_config.
Model qwen2_text(const Config& c) {
  const bool nested = c.has("text_config");
  nlohmann::json text_json = nested ? c.child("text_config").raw() : c.raw();
  text_json.erase("vision_config");
  text_json["model_type"] = "qwen2";
  const Config text(std::make_shared<const nlohmann::json>(std::move(text_json)), nested ? c.path_of("text_config") : c.path());
  return trace_model(text);
}

void image_note(ModelBuilder& b, const QwenVisionSpec& v, const std::string& release) {
  b.note("Images: planned as one 448 x 448 image per sample (" + std::to_string(v.patches_per_image) + " patches, " +
         std::to_string(v.patches_per_image / (v.merge * v.merge)) + " text tokens); " + release + " resizes each image "
         "to its own resolution (min_pixels/max_pixels of the processor), so scale `images` to the patches you feed.");
}
}  // namespace

Model qwen2_5_vl(const Config& c) {
  const Model language = qwen2_text(c);
  const QwenVisionSpec v = read_qwen2_5_vision(child_or_empty(c, "vision_config"), language.dims.hidden);

  ModelBuilder b(c.string_or("model_type", "qwen2_5_vl"), "qwen2_5_vl");
  qwen2_5_vision(b, v);
  append_model(b, language, "", true);
  image_note(b, v, "Qwen2.5-VL");
  b.note("Vision attention: windows of " + std::to_string(v.window) + " patches, the whole image in " +
         std::to_string(v.full_blocks.size()) + " blocks (fullatt_block_indexes).");
  return b.finish();
}

Model qwen2_vl(const Config& c) {
  const Model language = qwen2_text(c);
  const Config vision = child_or_empty(c, "vision_config");
  const QwenVisionSpec v = read_qwen2_vision(vision);
  // The merger's output is the text model's input: PatchMerger(dim=vision_config.hidden_size).
  require(v.out_hidden == language.dims.hidden, vision, "hidden_size",
          "vision_config.hidden_size (" + std::to_string(v.out_hidden) + ") must equal the text model's hidden_size (" +
              std::to_string(language.dims.hidden) + "): the merger writes the text model's input.");

  ModelBuilder b(c.string_or("model_type", "qwen2_vl"), "qwen2_5_vl");
  qwen2_5_vision(b, v);
  append_model(b, language, "", true);
  image_note(b, v, "Qwen2-VL");
  return b.finish();
}

}  // namespace cardfit::families

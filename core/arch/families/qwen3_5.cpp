// Qwen3.5 / Qwen3.6 (transformers models/qwen3_5/modeling_qwen3_5.py, Qwen3_5ForConditionalGeneration)
// and Qwen3.5-MoE / Qwen3.6-MoE (models/qwen3_5_moe/modeling_qwen3_5_moe.py,
// Qwen3_5MoeForConditionalGeneration): Qwen3-VL's wrapper over the hybrid Qwen3.5 text model. The
// vision tower is Qwen3-VL's (qwen_vision.hpp qwen3_vision, "model.visual.") without its deepstack
// mergers (Qwen3_5VisionModel deletes deepstack_visual_indexes and deepstack_merger_list, so a listed
// index adds nothing); the language model is text_config traced by the qwen3_5_text or
// qwen3_5_moe_text family (Qwen3_5Config builds its text_config class whatever model_type the
// sub-config names), stored as "model.language_model.*" beside an untied "lm_head.*"
// (tie_word_embeddings: top level, default False). Images: one 448 × 448 image per sample planned.
#include "../qwen_vision.hpp"
#include "../registry.hpp"
#include "../vision.hpp"
#include "wrappers.hpp"

namespace cardfit::families {

namespace {
Model wrapper(const Config& c, const std::string& text_type, const std::string& family) {
  Model language = trace_model(wrapped_text_config(c, text_type, false));  // Qwen3_5Config: tie default False
  // Qwen3_5VisionConfig: Qwen3VLVisionConfig's defaults (depth 27, hidden 1152, patch 16, 2304 positions).
  QwenVisionSpec v = read_qwen3_vision(child_or_empty(c, "vision_config"), language.dims.hidden);
  v.deepstack.clear();
  require(v.out_hidden == language.dims.hidden, c, "vision_config",
          "vision_config.out_hidden_size (" + std::to_string(v.out_hidden) + ") must equal the text hidden_size (" +
              std::to_string(language.dims.hidden) + ").");

  ModelBuilder b(c.string_or("model_type", family), family);
  qwen3_vision(b, v);
  append_renamed(b, std::move(language), "model.", "model.language_model.");
  b.note("Images: planned as one 448 x 448 image per sample (" + std::to_string(v.patches_per_image) + " patches, " +
         std::to_string(v.patches_per_image / (v.merge * v.merge)) + " text tokens); Qwen3.5 resizes each image to its "
         "own resolution, so scale `images` to the patches you feed.");
  return b.finish();
}
}  // namespace

Model qwen3_5(const Config& c) { return wrapper(c, "qwen3_5_text", "qwen3_5"); }
Model qwen3_5_moe(const Config& c) { return wrapper(c, "qwen3_5_moe_text", "qwen3_5_moe"); }

}  // namespace cardfit::families

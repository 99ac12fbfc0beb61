// Qwen3-VL (transformers models/qwen3_vl/modeling_qwen3_vl.py, Qwen3VLForConditionalGeneration): the
// vision transformer with its merger and deepstack mergers (qwen_vision.hpp qwen3_vision,
// "model.visual.") and a Qwen3 text model from text_config traced by the qwen3 family, stored as
// the published checkpoints hold it: "model.language_model.*" and "lm_head.*". Deepstack: the
// mergers of deepstack_visual_indexes add their features to the text hidden states at the image
// tokens after the first text layers (no parameters beyond the mergers). Images have a dynamic
// resolution; the plan assumes one 448 × 448 image per sample (784 patches, 196 text tokens).
#include "../qwen_vision.hpp"
#include "../registry.hpp"
#include "../vision.hpp"
#include "families.hpp"

namespace cardfit::families {

Model qwen3_vl_over(const Config& c, const std::string& text_type, const std::string& family) {
  Model language = trace_model(wrapped_text_config(c, text_type, false));
  const QwenVisionSpec v = read_qwen3_vision(child_or_empty(c, "vision_config"), language.dims.hidden);
  require(v.out_hidden == language.dims.hidden, c, "vision_config",
          "vision_config.out_hidden_size (" + std::to_string(v.out_hidden) + ") must equal the text hidden_size (" +
              std::to_string(language.dims.hidden) + ").");

  ModelBuilder b(c.string_or("model_type", family), family);
  qwen3_vision(b, v);
  append_renamed(b, std::move(language), "model.", "model.language_model.");
  b.note("Images: planned as one 448 x 448 image per sample (" + std::to_string(v.patches_per_image) + " patches, " +
         std::to_string(v.patches_per_image / (v.merge * v.merge)) + " text tokens); Qwen3-VL resizes each image to its "
         "own resolution, so scale `images` to the patches you feed.");
  b.note("Deepstack: " + std::to_string(v.deepstack.size()) + " mergers add the features of vision blocks to the "
         "text hidden states at the image tokens.");
  return b.finish();
}

// Qwen3VLConfig: tie_word_embeddings (top level) defaults to False; Qwen3VLTextConfig has Qwen3's
// shape with head_dim 128.
Model qwen3_vl(const Config& c) { return qwen3_vl_over(c, "qwen3", "qwen3_vl"); }

}  // namespace cardfit::families

// Llama 4 (transformers models/llama4/modeling_llama4.py, Llama4ForConditionalGeneration, model_type
// llama4): Llama-4-Scout-17B-16E, Llama-4-Maverick-17B-128E. The vision model and projector of
// llama4_vision.hpp ("vision_model.", "multi_modal_projector.") and the language model, text_config
// traced by the llama4_text family (Llama4Config builds Llama4TextConfig from it), stored as the
// published checkpoints hold it: "language_model.model.*" and "language_model.lm_head.*"
// (tie_word_embeddings: top level, default False). Images: planned as one image_size × image_size
// tile each (Scout: 336 px, 576 patches + the class token, 144 text tokens after the pixel shuffle);
// Llama4ImageProcessor cuts larger images into up to max_patches tiles plus a global one.
#include "../llama4_vision.hpp"
#include "../registry.hpp"
#include "../vision.hpp"
#include "wrappers.hpp"

namespace cardfit::families {

Model llama4(const Config& c) {
  const Model language = trace_model(wrapped_text_config(c, "llama4_text", false));
  const Llama4VisionSpec v = read_llama4_vision(child_or_empty(c, "vision_config"));

  ModelBuilder b(c.string_or("model_type", "llama4"), "llama4");
  llama4_vision(b, v, language.dims.hidden);
  append_model(b, language, "language_model.", true);
  const int64_t side = v.image_size / v.patch, tokens = side * side / (v.shuffle_denominator * v.shuffle_denominator);
  b.note("Images: planned as one " + std::to_string(v.image_size) + " x " + std::to_string(v.image_size) + " tile each (" +
         std::to_string(side * side) + " patches and the class token through the vision model, " + std::to_string(tokens) +
         " text tokens after the pixel shuffle); Llama4ImageProcessor cuts a larger image into several tiles plus a "
         "global one, so scale `images` to the tiles you feed.");
  return b.finish();
}

}  // namespace cardfit::families

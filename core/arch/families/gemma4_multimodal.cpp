// Gemma 4 (transformers models/gemma4/modeling_gemma4.py, Gemma4ForConditionalGeneration, model_type
// gemma4): text_config traced by the gemma4_text family (Gemma4Config builds Gemma4TextConfig from it),
// stored as "model.language_model.*" with lm_head tied to its embed_tokens (tie_word_embeddings=True).
// A vision_config adds the vision tower and embed_vision, an audio_config the audio tower and
// embed_audio (gemma4_towers.hpp); an absent sub-config leaves its tower out, as Gemma4Model does.
// Images: planned at Gemma4ImageProcessor's default budget (280 soft tokens from 2520 patches).
#include "../gemma4_towers.hpp"
#include "../qwen_vision.hpp"  // append_renamed
#include "../registry.hpp"
#include "../vision.hpp"
#include "wrappers.hpp"

namespace cardfit::families {

Model gemma4(const Config& c) {
  Model language = trace_model(wrapped_text_config(c, "gemma4_text", true));  // Gemma4Config: tie default True

  ModelBuilder b(c.string_or("model_type", "gemma4"), "gemma4");
  if (c.has("vision_config")) gemma4_vision(b, read_gemma4_vision(c.child("vision_config")), language.dims.hidden);
  if (c.has("audio_config")) gemma4_audio(b, read_gemma4_audio(c.child("audio_config")), language.dims.hidden);
  append_renamed(b, std::move(language), "model.", "model.language_model.");
  if (c.has("vision_config"))
    b.note("Images: planned at Gemma4ImageProcessor's default budget, 280 soft tokens per image from 2520 patches "
           "(max_soft_tokens 280 x pooling_kernel_size 3^2); the other budgets (70 to 1120) scale the tower's work.");
  if (c.has("audio_config"))
    b.note("Audio: the audio tower's weights are counted; cardfit plans no audio clips, so its activations and "
           "FLOPs are not in the plan.");
  return b.finish();
}

}  // namespace cardfit::families

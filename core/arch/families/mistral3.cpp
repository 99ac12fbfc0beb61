// Mistral 3 (transformers models/mistral3/modeling_mistral3.py, Mistral3ForConditionalGeneration):
// Mistral Small 3.1 / 3.2 and Ministral 3. A Pixtral vision tower and the Mistral 3 projector
// (pixtral.hpp, "vision_tower.", "multi_modal_projector.") and a language model traced by its own
// family from text_config (Mistral3Config: model_type "mistral" where it names none; "ministral3" for
// Ministral 3), stored as the published checkpoints hold it: "language_model.model.*" and
// "language_model.lm_head.*" (current transformers maps these to model.language_model.* on load).
// Images: planned at the processor's largest size, image_size × image_size (1540 px: 110 × 110
// patches of 14 px, 55 × 55 = 3025 tokens after the 2 × 2 merger).
#include <nlohmann/json.hpp>

#include "../pixtral.hpp"
#include "../registry.hpp"
#include "../vision.hpp"
#include "wrappers.hpp"

namespace cardfit::families {

Model mistral3(const Config& c) {
  // Mistral3Config: no text_config is this MistralConfig (Mistral Small 3.1's language model).
  constexpr const char* kMistralSmall = R"({"model_type": "mistral", "head_dim": 128, "hidden_size": 5120,
    "intermediate_size": 32768, "max_position_embeddings": 131072, "num_attention_heads": 32,
    "num_hidden_layers": 40, "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "vocab_size": 131072})";
  const Config text = c.has("text_config") ? with_defaults(c.child("text_config"), R"({"model_type": "mistral"})")
                                           : with_defaults(child_or_empty(c, "text_config"), kMistralSmall);
  const Model language = trace_model(text);
  const PixtralSpec v = read_pixtral(c);

  ModelBuilder b(c.string_or("model_type", "mistral3"), "mistral3");
  pixtral_vision(b, v, language.dims.hidden);
  append_model(b, language, "language_model.", true);
  const int64_t side = v.image_size / v.patch;
  b.note("Images: planned at the processor's largest size, " + std::to_string(v.image_size) + " x " +
         std::to_string(v.image_size) + " (" + std::to_string(side * side) + " patches, " +
         std::to_string((side / v.merge) * (side / v.merge)) + " text tokens); smaller images keep their "
         "own size, so scale `images` to the patches you feed.");
  return b.finish();
}

}  // namespace cardfit::families

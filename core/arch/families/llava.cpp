// LLaVA (transformers models/llava/modeling_llava.py, LlavaForConditionalGeneration): a CLIP (or
// SigLIP) vision tower, a two-layer MLP projector, and a language model traced by its own family
// from text_config and stored under "language_model." (the published checkpoints' naming:
// language_model.model.*, language_model.lm_head, vision_tower.vision_model.*, multi_modal_projector.*).
#include <nlohmann/json.hpp>

#include "../registry.hpp"
#include "../vision.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
// LlavaConfig: text_config without model_type is "llama"; no text_config is LlamaConfig().
// LlamaConfig's own defaults are filled in so a partial Llama text_config traces as the class reads it.
constexpr const char* kLlamaDefaults = R"({"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096,
  "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32,
  "max_position_embeddings": 2048})";
// LlavaConfig: no vision_config is this CLIPVisionConfig (CLIP ViT-L/14 at 336 pixels).
constexpr const char* kClipDefaults = R"({"model_type": "clip_vision_model", "hidden_size": 1024,
  "intermediate_size": 4096, "num_hidden_layers": 24, "num_attention_heads": 16, "image_size": 336,
  "patch_size": 14})";
}  // namespace

Model llava(const Config& c) {
  const Config text_in = child_or_empty(c, "text_config");
  const std::string text_type = text_in.string_or("model_type", "llama");
  const Config text = text_type == "llama" ? with_defaults(text_in, kLlamaDefaults)
                                           : with_defaults(text_in, R"({"model_type": ")" + text_type + "\"}");
  const Config vision = c.has("vision_config") ? c.child("vision_config")
                                                      : with_defaults(child_or_empty(c, "vision_config"), kClipDefaults);
  const VitSpec v = read_vit(vision, "clip_vision_model", "vision_tower.vision_model");
  // vision_feature_layer: one layer index, or a list whose features are concatenated.
  int64_t feature_layers = 1;
  if (c.has("vision_feature_layer") && c.raw().at("vision_feature_layer").is_array())
    feature_layers = int64_t(c.integer_list("vision_feature_layer").size());

  // vision_feature_select_strategy "default" drops the first token (CLIP's class token) of the
  // selected features, "full" keeps them all: the image tokens each image puts into the text.
  const std::string strategy = c.string_or("vision_feature_select_strategy", "default");
  require(strategy == "default" || strategy == "full", c, "vision_feature_select_strategy",
          "vision_feature_select_strategy must be \"default\" or \"full\".");
  const int64_t image_tokens = vit_tokens(v) - (strategy == "default" ? 1 : 0);

  const Model language = trace_model(text);
  ModelBuilder b(c.string_or("model_type", "llava"), "llava");
  vit_encoder(b, v);
  mlp_projector(b, {.prefix = "multi_modal_projector", .in = checked_mul(v.hidden, feature_layers, "the vision hidden_size × feature layers"),
                    .hidden = language.dims.hidden, .out = language.dims.hidden,
                    .bias = c.boolean_or("multimodal_projector_bias", true),
                    .act = c.string_or("projector_hidden_act", "gelu"), .tokens_per_image = image_tokens});
  append_model(b, language, "language_model.", true);
  b.note("Language model traced by the \"" + language.family + "\" family from text_config (model_type \"" +
         text_type + "\").");
  return b.finish();
}

}  // namespace cardfit::families

// Idefics3 and SmolVLM (transformers models/idefics3/modeling_idefics3.py,
// Idefics3ForConditionalGeneration; models/smolvlm/modular_smolvlm.py, SmolVLMForConditionalGeneration,
// which keeps Idefics3's modules and changes only how image rows are merged into the text, read
// 2026-12-01). Stored as the published checkpoints hold it:
//   model.vision_model.*  Idefics3VisionTransformer: SigLIP's embeddings (patch Conv2d with bias,
//                         position table [(image_size / patch_size)², hidden]), encoder layers and
//                         post_layernorm, no pooling head (vit.hpp's SigLIP tower);
//   model.connector.modality_projection.proj  the pixel shuffle folds scale_factor² patches into one
//                         token (a view, no parameters), then one bias-free Linear
//                         [text hidden, vision hidden · scale_factor²];
//   model.text_model.*    the text model (AutoModel of text_config, "llama" when it names none),
//                         traced by its own family; lm_head.weight at the top, tied to
//                         model.text_model.embed_tokens when the top-level tie_word_embeddings is true
//                         (Idefics3ForConditionalGeneration.tie_weights reads the top level; default false).
// Images: one image_size × image_size tile each (SmolVLM-256M: 512 px, 1024 patches, 64 text tokens
// after the 4 × 4 shuffle); the processor cuts a larger image into tiles plus a global one, so
// `images` counts tiles.
#include <nlohmann/json.hpp>

#include "../qwen_vision.hpp"
#include "../registry.hpp"
#include "../vision.hpp"
#include "vlm_tier2.hpp"

namespace cardfit::families {

namespace {
// Idefics3Config / SmolVLMConfig: no text_config is LlamaConfig(rms_norm_eps=1e-5, tie False),
// whose own defaults are these.
constexpr const char* kLlamaDefaults = R"({"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096,
  "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32,
  "max_position_embeddings": 2048, "rms_norm_eps": 1e-05})";

// Idefics3VisionConfig / SmolVLMVisionConfig defaults (the same numbers in both classes). The
// sub-config's model_type is not read: the class is fixed by the wrapper.
VitSpec read_idefics3_vision(const Config& v) {
  VitSpec s;
  s.prefix = "model.vision_model";
  read_vit_dims(v, {.hidden = 1152, .intermediate = 3072, .layers = 12, .heads = 16, .patch_size = 32}, s);
  s.image_size = v.positive_or({"image_size"}, 224);
  s.pooling_head = false;  // Idefics3VisionTransformer: embeddings, encoder, post_layernorm only
  require(s.image_size % s.patch_size == 0, v, "patch_size",
          "the vision image_size (" + std::to_string(s.image_size) + ") must be a multiple of patch_size (" +
              std::to_string(s.patch_size) + ").");
  return s;
}
}  // namespace

Model idefics3(const Config& c) {
  const std::string type = c.string_or("model_type", "idefics3");
  // The text model: text_config's own model_type ("llama" when absent), tie_word_embeddings from the
  // top level, which is what tie_weights reads.
  nlohmann::json text = c.has("text_config") ? with_defaults(c.child("text_config"), R"({"model_type": "llama"})").raw()
                                             : nlohmann::json::parse(kLlamaDefaults);
  text["tie_word_embeddings"] = c.boolean_or("tie_word_embeddings", false);
  const Model language = trace_model(Config(std::make_shared<const nlohmann::json>(std::move(text)), c.path_of("text_config")));
  const VitSpec v = read_idefics3_vision(child_or_empty(c, "vision_config"));

  // pixel_shuffle reshapes the sqrt(seq) × sqrt(seq) patch grid by scale_factor on each side.
  const int64_t scale = c.positive_or({"scale_factor"}, 2);
  const int64_t side = v.image_size / v.patch_size;
  require(side % scale == 0, c, "scale_factor",
          "scale_factor (" + std::to_string(scale) + ") must divide the patches per image side (" + std::to_string(side) + ").");
  const int64_t fold = checked_mul(scale, scale, "scale_factor²");
  const int64_t tokens = vit_patches(v) / fold;

  ModelBuilder b(type, "idefics3");
  vit_encoder(b, v);
  vision_block(b, "model.connector", "projector", tokens, checked_mul(v.hidden, fold, "vision hidden_size × scale_factor²"));
  b.linear("model.connector.modality_projection.proj", checked_mul(v.hidden, fold, "vision hidden_size × scale_factor²"),
           language.dims.hidden, {.bias = false, .role = Role::projector});
  append_renamed(b, language, "model.", "model.text_model.");
  b.note("Language model traced by the \"" + language.family + "\" family from text_config; images: one " +
         std::to_string(v.image_size) + " x " + std::to_string(v.image_size) + " tile each (" +
         std::to_string(vit_patches(v)) + " patches, " + std::to_string(tokens) + " text tokens after the " +
         std::to_string(scale) + " x " + std::to_string(scale) + " pixel shuffle); the processor cuts a larger image "
         "into tiles plus a global one, so scale `images` to the tiles you feed.");
  return b.finish();
}

}  // namespace cardfit::families

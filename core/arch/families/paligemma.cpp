// PaliGemma and PaliGemma 2 (transformers models/paligemma/modeling_paligemma.py,
// PaliGemmaForConditionalGeneration; read 2026-12-08): a SigLIP vision tower, one linear projector and a
// Gemma (PaliGemma) or Gemma 2 (PaliGemma 2) language model, stored as the published checkpoints hold them
// (vision_tower.vision_model.*, multi_modal_projector.linear, language_model.model.*; lm_head tied to the
// embedding, not stored). PaliGemmaConfig: no text_config is Gemma at hidden 2048, 18 layers, 8 heads,
// 1 KV head, intermediate 16384, vocab_size (257152); no vision_config is SigLIP so400m at 224 px
// (hidden 1152, 27 layers, 16 heads, intermediate 4096, patch 14) without its pooling head;
// multi_modal_projector.linear [projection_dim (2048), vision hidden] with a bias. Each image is
// (image_size / patch_size)² tokens (256 at 224 px) the text attends to bidirectionally with the prompt
// (a prefix-LM mask: the same memory as causal attention).
#include <nlohmann/json.hpp>

#include "../registry.hpp"
#include "../vision.hpp"
#include "vlm_tier2.hpp"

namespace cardfit::families {

Model paligemma(const Config& c) {
  const std::string gemma = R"({"model_type": "gemma", "hidden_size": 2048, "num_hidden_layers": 18,
    "num_attention_heads": 8, "num_key_value_heads": 1, "intermediate_size": 16384, "vocab_size": )" +
                            std::to_string(c.positive_or({"vocab_size"}, 257152)) + "}";
  const Config text = with_defaults(child_or_empty(c, "text_config"), gemma);
  const Config vision = with_defaults(child_or_empty(c, "vision_config"), R"({"model_type": "siglip_vision_model",
    "hidden_size": 1152, "num_hidden_layers": 27, "num_attention_heads": 16, "intermediate_size": 4096,
    "patch_size": 14, "vision_use_head": false})");
  const VitSpec v = read_vit(vision, "siglip_vision_model", "vision_tower.vision_model");
  const Model language = trace_model(text);
  const int64_t projection = c.positive_or({"projection_dim"}, 2048);
  require(projection == language.dims.hidden, c, "projection_dim",
          "projection_dim (" + std::to_string(projection) + ") must equal the text hidden_size (" +
              std::to_string(language.dims.hidden) + "): the projected image tokens go into the text.");

  ModelBuilder b(c.string_or("model_type", "paligemma"), "paligemma");
  vit_encoder(b, v);
  vision_block(b, "multi_modal_projector", "projector", vit_patches(v), projection);
  b.linear("multi_modal_projector.linear", v.hidden, projection, {.bias = true, .role = Role::projector});
  append_model(b, language, "language_model.", true);
  return b.finish();
}

}  // namespace cardfit::families

// GLM-4.1V / GLM-4.6V-Flash (transformers models/glm4v/modeling_glm4v.py, Glm4vForConditionalGeneration)
// and GLM-4.5V / GLM-4.6V (models/glm4v_moe/modeling_glm4v_moe.py, Glm4vMoeForConditionalGeneration);
// read 2026-12-08. Stored as the published checkpoints hold them:
//   model.visual.*          Glm4vVisionModel (glm_ocr_vision.hpp, glm4v: the position table and
//       post_conv_layernorm GLM-OCR dropped; GLM-4.5V's report lists exactly these tensors);
//   model.language_model.*  glm4v: GLM-4-0414's sandwich-norm layers (the glm4 family) with q/k/v biases
//       hard-coded True; glm4v_moe: GLM-4.5's MoE layers (the glm4_moe family: first_k_dense_replace
//       dense layers, then routed experts stored per expert and one shared expert);
//   lm_head.weight          untied (tie_word_embeddings false).
// Their text_config pasted alone (glm4v_text, glm4v_moe_text) plans the language model with its lm_head.
// M-RoPE has no parameters. Images: one image_size × image_size image each (336 px: 576 patches of 14 px,
// 144 text tokens after the 2 × 2 downsample); the processor keeps an image near its own resolution.
#include <nlohmann/json.hpp>

#include "../glm_ocr_vision.hpp"
#include "../qwen_vision.hpp"
#include "../registry.hpp"
#include "../vision.hpp"
#include "vlm_tier2.hpp"

namespace cardfit::families {

namespace {
// Glm4vTextConfig's defaults (GLM-4.1V-9B) and Glm4vMoeTextConfig's (GLM-4.5V).
constexpr const char* kGlm4vText = R"({"vocab_size": 151552, "hidden_size": 4096, "intermediate_size": 13696,
  "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 2, "max_position_embeddings": 32768})";
constexpr const char* kGlm4vMoeText = R"({"vocab_size": 151552, "hidden_size": 4096, "intermediate_size": 10944,
  "num_hidden_layers": 46, "num_attention_heads": 96, "num_key_value_heads": 8, "head_dim": 128,
  "moe_intermediate_size": 1408, "n_routed_experts": 128, "n_shared_experts": 1, "num_experts_per_tok": 8,
  "first_k_dense_replace": 1, "attention_bias": true, "max_position_embeddings": 65536})";

// The language model as Glm4vTextModel / Glm4vMoeTextModel build it, under its class's defaults: the
// glm4 trace with q/k/v biases whatever attention_bias says (Glm4vTextAttention hard-codes them), or the
// glm4_moe trace.
Model glm4v_language(const Config& text, bool moe) {
  nlohmann::json t = with_defaults(text, moe ? kGlm4vMoeText : kGlm4vText).raw();
  t["model_type"] = moe ? "glm4_moe" : "glm4";
  if (!moe) t["attention_bias"] = true;
  return trace_model(Config(std::make_shared<const nlohmann::json>(std::move(t)), text.path()));
}

Model glm4v_family(const Config& c, bool moe) {
  Model language = glm4v_language(wrapped_text_config(c, moe ? "glm4_moe" : "glm4", false), moe);
  const GlmOcrVisionSpec v = read_glm_ocr_vision(child_or_empty(c, "vision_config"), glm4v_vision_defaults());
  require(v.out_hidden == language.dims.hidden, c, "vision_config",
          "vision_config.out_hidden_size (" + std::to_string(v.out_hidden) + ") must equal the text hidden_size (" +
              std::to_string(language.dims.hidden) + "): the merger's tokens go into the text.");

  ModelBuilder b(c.string_or("model_type", moe ? "glm4v_moe" : "glm4v"), "glm4v");
  glm_ocr_vision(b, v);
  append_renamed(b, std::move(language), "model.", "model.language_model.");
  return b.finish();
}

// A text_config pasted alone: the language model with its lm_head, named as a causal LM.
Model glm4v_text_alone(const Config& c, bool moe) {
  Model m = glm4v_language(c, moe);
  m.model_type = c.string_or("model_type", moe ? "glm4v_moe_text" : "glm4v_text");
  return m;
}
}  // namespace

Model glm4v(const Config& c) { return glm4v_family(c, false); }
Model glm4v_moe(const Config& c) { return glm4v_family(c, true); }
Model glm4v_text(const Config& c) { return glm4v_text_alone(c, false); }
Model glm4v_moe_text(const Config& c) { return glm4v_text_alone(c, true); }

}  // namespace cardfit::families

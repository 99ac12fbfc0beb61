// GLM-OCR (transformers models/glm_ocr/modular_glm_ocr.py and modeling_glm_ocr.py,
// GlmOcrForConditionalGeneration = Glm4vForConditionalGeneration's skeleton; read 2026-12-01). Stored
// as the published checkpoint holds it:
//   model.visual.*          the vision model of glm_ocr_vision.hpp;
//   model.language_model.*  GlmOcrTextModel: embed_tokens, layers.N (GLM-4's four RMSNorms:
//       input_layernorm → self_attn (q/k/v/o_proj without biases, head_dim from the config, M-RoPE
//       without parameters) → post_self_attn_layernorm → add → post_attention_layernorm → mlp
//       (gate_up_proj [2 · intermediate, hidden] → silu(gate) · up → down_proj) → post_mlp_layernorm
//       → add), norm;
//   lm_head.weight          untied unless tie_word_embeddings (GlmOcrConfig default false).
// The checkpoint also stores a multi-token-prediction layer, model.language_model.layers.{L}.*
// (text_config.num_nextn_predict_layers), which the model class does not load
// (_keys_to_ignore_on_load_unexpected): GLM-4.5's layout (a copy of the last layer with its own
// embed_tokens, enorm, hnorm, eh_proj, shared_head.norm and .head), listed as a stored extra, not
// counted. The hub's total, 1,325,258,240 in 526 tensors, is the model's and exactly that layer's.
// Images: one image_size × image_size image each (336 px: 576 patches of 14 px, 144 text tokens after
// the 2 × 2 downsample); the processor keeps each image near its own resolution.
#include <nlohmann/json.hpp>

#include "../decoder.hpp"
#include "../glm_ocr_vision.hpp"
#include "../qwen_vision.hpp"
#include "../registry.hpp"
#include "../stored_extras.hpp"
#include "../vision.hpp"
#include "vlm_tier2.hpp"

namespace cardfit::families {

namespace {
// GlmOcrTextConfig defaults (vocab 59392, hidden 1024, intermediate 4096, 16 layers, 16 heads, 8 KV
// heads, 131072 positions); tie_word_embeddings from the top level where text_config has none.
constexpr const char* kTextDefaults = R"({"vocab_size": 59392, "hidden_size": 1024, "intermediate_size": 4096,
  "num_hidden_layers": 16, "num_attention_heads": 16, "num_key_value_heads": 8, "max_position_embeddings": 131072})";

Model glm_ocr_text(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 131072});
  const std::string act = c.string_or("hidden_act", "silu");
  ModelBuilder b("glm_ocr_text", "glm_ocr");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int, const std::string& p) {
    sandwich_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                     .head_dim = d.head_dim},
            .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate, .act = act,
                    .fused_gate_up = "gate_up_proj"},
            .input_norm = "input_layernorm",
            .post_attn_norm = "post_self_attn_layernorm",
            .pre_ff_norm = "post_attention_layernorm",
            .post_ff_norm = "post_mlp_layernorm",
            .hidden = d.hidden});
  });
  return b.finish();
}
}  // namespace

Model glm_ocr(const Config& c) {
  nlohmann::json text = with_defaults(child_or_empty(c, "text_config"), kTextDefaults).raw();
  if (!text.contains("tie_word_embeddings")) text["tie_word_embeddings"] = c.boolean_or("tie_word_embeddings", false);
  const Config tc(std::make_shared<const nlohmann::json>(std::move(text)), c.path_of("text_config"));
  Model language = glm_ocr_text(tc);
  const GlmOcrVisionSpec v = read_glm_ocr_vision(child_or_empty(c, "vision_config"));
  const int64_t text_hidden = tc.positive_or({"hidden_size"}, 1024);
  require(v.out_hidden == text_hidden, c, "vision_config",
          "vision_config.out_hidden_size (" + std::to_string(v.out_hidden) + ") must equal the text hidden_size (" +
              std::to_string(text_hidden) + "): the merger's tokens go into the text.");

  ModelBuilder b(c.string_or("model_type", "glm_ocr"), "glm_ocr");
  glm_ocr_vision(b, v);
  append_renamed(b, std::move(language), "model.", "model.language_model.");
  const int64_t mtp = tc.count_or({"num_nextn_predict_layers"}, 0);
  if (mtp > 0) {
    const int64_t layers = tc.positive_or({"num_hidden_layers"}, 16);
    add_nextn_layers(b.model(), mtp, layers, layers - 1, text_hidden, tc.positive_or({"vocab_size"}, 59392),
                     "model.language_model.layers.");
    b.note("The checkpoint also stores " + std::to_string(mtp) + " multi-token-prediction layer(s) under "
           "model.language_model.layers." + std::to_string(layers) +
           ".*, which GlmOcrForConditionalGeneration does not load; not counted here.");
  }
  b.note("Images: planned as one " + std::to_string(v.image_size) + " x " + std::to_string(v.image_size) + " image each (" +
         std::to_string(v.patches_per_image) + " patches, " +
         std::to_string(v.patches_per_image / (v.merge * v.merge)) + " text tokens); the processor keeps each image "
         "near its own resolution, so scale `images` to the patches you feed.");
  return b.finish();
}

}  // namespace cardfit::families

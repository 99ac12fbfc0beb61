// Gemma 4 unified, the encoder-free Gemma 4 12B (transformers models/gemma4_unified/
// modeling_gemma4_unified.py, Gemma4UnifiedForConditionalGeneration, model_type gemma4_unified).
// The text model is Gemma 4's text stack without per-layer embeddings and without MoE
// (Gemma4UnifiedTextModel has neither; the published config still carries
// hidden_size_per_layer_input 0 and vocab_size_per_layer_input "for BC: not used by the model",
// convert_gemma4_unified_weights.py), so it is traced by the gemma4_text family with those forced
// off and Gemma4UnifiedTextConfig's own defaults filled in, stored as "model.language_model.*" with
// lm_head tied to its embed_tokens. A vision_config adds the encoder-free vision embedder, an
// audio_config the raw-waveform projection (gemma4_unified_embedders.hpp).
#include <nlohmann/json.hpp>

#include "../gemma4_unified_embedders.hpp"
#include "../qwen_vision.hpp"  // append_renamed
#include "../registry.hpp"
#include "../vision.hpp"
#include "wrappers.hpp"

namespace cardfit::families {

namespace {
// Gemma4UnifiedTextConfig as the gemma4_text family reads it: the class defaults where the config is
// silent (configuration_gemma4_unified.py), no PLE, no MoE.
Config unified_text_config(const Config& c) {
  const Config wrapped = wrapped_text_config(c, "gemma4_text", true);  // Gemma4UnifiedConfig: tie default True
  const std::string mode = wrapped.string_or("use_bidirectional_attention", "vision");
  // "all" makes every layer bidirectional and sliding_window (sliding_window // 2) + 1: not traced.
  require(mode != "all", wrapped, "use_bidirectional_attention",
          "use_bidirectional_attention \"all\" (every token bidirectional) is not traced; Gemma 4 12B uses \"vision\".");
  nlohmann::json text = wrapped.raw();
  const std::pair<const char*, int64_t> defaults[] = {
      {"vocab_size", 262144}, {"hidden_size", 2304}, {"intermediate_size", 9216}, {"num_hidden_layers", 30},
      {"num_attention_heads", 8}, {"num_key_value_heads", 4}, {"head_dim", 256}, {"sliding_window", 1024},
      {"max_position_embeddings", 262144}};
  for (const auto& [key, value] : defaults)
    if (!text.contains(key) || text[key].is_null()) text[key] = value;
  text["hidden_size_per_layer_input"] = 0;
  text["enable_moe_block"] = false;
  return Config(std::make_shared<const nlohmann::json>(std::move(text)), wrapped.path());
}
}  // namespace

Model gemma4_unified(const Config& c) {
  Model language = trace_model(unified_text_config(c));

  ModelBuilder b(c.string_or("model_type", "gemma4_unified"), "gemma4");
  if (c.has("vision_config"))
    gemma4_unified_vision(b, read_gemma4_unified_vision(c.child("vision_config")), language.dims.hidden);
  if (c.has("audio_config"))
    gemma4_unified_audio(b, read_gemma4_unified_audio(c.child("audio_config")), language.dims.hidden);
  append_renamed(b, std::move(language), "model.", "model.language_model.");
  if (c.has("vision_config"))
    b.note("Images: planned at Gemma4UnifiedImageProcessor's default budget, 280 soft tokens per image (each a "
           "merged 48 x 48 patch, padded to max_soft_tokens); the other budgets (70 to 1120) scale the embedder's "
           "work. Image tokens attend bidirectionally within their block on sliding layers "
           "(use_bidirectional_attention \"vision\"); planned as causal attention.");
  if (c.has("audio_config"))
    b.note("Audio: the waveform projection's weights are counted (one soft token per 640-sample frame, no "
           "encoder); cardfit plans no audio clips, so its activations and FLOPs are not in the plan.");
  return b.finish();
}

}  // namespace cardfit::families

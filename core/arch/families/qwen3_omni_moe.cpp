// Qwen3-Omni-MoE (transformers models/qwen3_omni_moe/modular_qwen3_omni_moe.py,
// Qwen3OmniMoeForConditionalGeneration, read 2026-12-02; Qwen3-Omni-30B-A3B): the whole checkpoint,
// named as its safetensors store it. The thinker (Qwen3OmniMoeThinkerForConditionalGeneration) is the
// model that trains and serves text: thinker.audio_tower (qwen3_omni.hpp), thinker.visual (Qwen3-VL's
// tower with Omni's merger names, qwen_vision.hpp) and its language model (qwen3_omni_moe_text, as
// thinker.model.* and thinker.lm_head). The talker (talker.*, with talker.code_predictor.*) and the
// vocoder (code2wav.*) turn the thinker's states into speech; they are in the checkpoint and in
// memory, but no thinker training step or text-generation step runs them (see the notes).
#include "../audio_clip.hpp"
#include "../qwen3_omni.hpp"
#include "../qwen_vision.hpp"
#include "../registry.hpp"
#include "../vision.hpp"
#include "families.hpp"
#include "wrappers.hpp"

namespace cardfit::families {

namespace {
// Blocks from `first` on hold their weights but see no tokens: no activations, no gradients, no
// optimizer states (a block without tokens never runs; torch.optim skips a parameter whose grad is
// None), and they are not default LoRA targets.
void hold_weights_only(ModelBuilder& b, size_t first) {
  auto& blocks = b.model().blocks;
  for (size_t i = first; i < blocks.size(); ++i) {
    blocks[i].domain = Domain::audio;
    blocks[i].tokens_per_image = 0;
    for (auto& n : blocks[i].nodes) n.lora = false;
  }
}
}  // namespace

Model qwen3_omni_moe(const Config& c) {
  const Config thinker = child_or_empty(c, "thinker_config");
  Model language = trace_model(wrapped_text_config(thinker, "qwen3_omni_moe_text", false));
  const int64_t text_hidden = language.dims.hidden;
  QwenVisionSpec v = read_qwen3_vision(child_or_empty(thinker, "vision_config"), text_hidden);
  v.prefix = "thinker.visual";
  v.omni_merger_names = true;
  OmniAudioSpec a = read_omni_audio(child_or_empty(thinker, "audio_config"));
  require(v.out_hidden == text_hidden, thinker, "vision_config",
          "vision_config.out_hidden_size must equal the thinker's text hidden_size (" + std::to_string(text_hidden) + ").");
  require(a.out == text_hidden, thinker, "audio_config",
          "audio_config.output_dim must equal the thinker's text hidden_size (" + std::to_string(text_hidden) + ").");

  ModelBuilder b(c.string_or("model_type", "qwen3_omni_moe"), "qwen3_omni_moe");
  qwen3_vision(b, v);
  omni_audio_tower(b, a);
  rename_prefix(language, "model.", "thinker.model.");
  rename_prefix(language, "lm_head", "thinker.lm_head");
  append_model(b, language, "", true);
  const size_t speech = b.model().blocks.size();
  omni_talker(b, child_or_empty(c, "talker_config"));
  omni_code2wav(b, child_or_empty(c, "code2wav_config"));
  hold_weights_only(b, speech);

  b.note("Images: planned as one 448 x 448 image per sample (" + std::to_string(v.patches_per_image) + " patches, " +
         std::to_string(v.patches_per_image / (v.merge * v.merge)) + " text tokens); scale `images` to the patches you feed.");
  b.note(audio_clip_note(a.clip(), a.seconds));
  b.note("Talker, code predictor and code2wav: all their weights are loaded (the whole "
         "Qwen3OmniMoeForConditionalGeneration checkpoint) and counted, in serving and in training; no step planned "
         "here runs them: a thinker fine-tune gives them no gradient and no optimizer state (frozen), and serving "
         "plans text generation, without the talker's KV cache or speech-synthesis activations.");
  return b.finish();
}

}  // namespace cardfit::families

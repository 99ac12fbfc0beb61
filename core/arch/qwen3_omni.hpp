// The parts of a Qwen3-Omni-MoE checkpoint (transformers models/qwen3_omni_moe/modular_qwen3_omni_moe.py,
// read 2026-12-02; names as the published safetensors store them) that no other family has: the
// thinker's audio tower, the talker with its code predictor, and code2wav. The thinker's language
// model (qwen3_omni_moe_text) and vision tower (qwen_vision.hpp) are traced elsewhere.
#pragma once
#include <string>
#include <vector>

#include "../config.hpp"
#include "blocks.hpp"

namespace cardfit {

struct OmniAudioSpec {
  std::string prefix = "thinker.audio_tower";
  int64_t mels = 128, hidden = 1280, layers = 32, heads = 20, ffn = 5120, channels = 480, out = 2048;
  int64_t chunk_frames = 100;  // 2 * n_window mel frames per conv chunk
  int64_t window_chunks = 8;   // n_window_infer / (2 * n_window): chunks one attention window spans
  int64_t seconds = 30;        // the traced default: audio per sample (option audio_seconds rescales it)
  std::string act = "gelu";
  AudioClip clip() const;      // the rule Model::audio records (arch/audio_clip.hpp)
};
/// Qwen3OmniMoeAudioEncoder (Domain::audio), sized for spec.seconds and recorded as Model::audio:
/// the mel chunks through conv2d1..3 (Conv2d 3x3 stride 2,
/// GELU) → conv_out (nn.Linear channels * mels/8 → hidden, no bias) → + the sinusoidal
/// positional_embedding (a buffer, not stored) → layers (Whisper-style pre-norm: self_attn_layer_norm
/// → q/k/v (all with bias) → attention within windows of window_chunks chunks → out_proj → add →
/// final_layer_norm → fc1 → GELU → fc2 → add) → ln_post → proj1 → GELU → proj2 → out (the text width).
void omni_audio_tower(ModelBuilder& b, const OmniAudioSpec& spec);
/// Qwen3OmniMoeAudioEncoderConfig with its class defaults.
OmniAudioSpec read_omni_audio(const Config& audio);
/// Encoder tokens of one chunk of `frames` mel frames: three stride-2 convs, ceil(n / 2) each.
int64_t omni_audio_chunk_tokens(int64_t frames);

/// Qwen3OmniMoeTalkerForConditionalGeneration, "talker.": model.layers (Qwen3-MoE attention with
/// q/k norms; a sparse MoE of per-expert MLPs with a shared_expert and its sigmoid
/// shared_expert_gate [1, hidden]), model.norm, model.codec_embedding, text_projection and
/// hidden_projection (Qwen3OmniMoeTalkerResizeMLP thinker_hidden → thinker_hidden → hidden, biases),
/// codec_head; and code_predictor (Qwen3OmniMoeTalkerCodePredictorModelForConditionalGeneration:
/// dense Qwen3 layers, norm, num_code_groups - 1 codec_embedding tables and as many lm_head).
void omni_talker(ModelBuilder& b, const Config& talker);

/// Qwen3OmniMoeCode2Wav, "code2wav.": code_embedding [num_quantizers * codebook_size, hidden] →
/// pre_transformer (sliding-window layers with two LayerScales each, norm) → upsample (per
/// upsampling_ratio: a ConvTranspose1d and a ConvNeXt block) → decoder (Conv1d hidden → decoder_dim,
/// a block per upsample_rate halving the channels: SnakeBeta, ConvTranspose1d (kernel 2 * rate),
/// three residual units; a final SnakeBeta and Conv1d → 1 channel of waveform).
void omni_code2wav(ModelBuilder& b, const Config& code2wav);

}  // namespace cardfit

// Speech front ends and encoders: the wav2vec2 feature encoder (transformers models/wav2vec2/
// modeling_wav2vec2.py: a 1-D conv stack over the raw 16 kHz waveform, the feature projection and
// the weight-normed positional conv embedding) and Whisper's encoder (models/whisper/
// modeling_whisper.py: two Conv1d over log-mel frames, then a position table and pre-norm layers).
// Built from ModelBuilder's public primitives (tensor, node, linear, norm); each builder's comment
// gives the forward dataflow in order, for the explicit graph edges to come.
#pragma once
#include <string>
#include <vector>

#include "../config.hpp"
#include "blocks.hpp"

namespace cardfit {

struct Wav2Vec2FrontSpec {
  std::string prefix;                    // "wav2vec2"
  std::vector<int64_t> dims, kernels, strides;  // conv_dim, conv_kernel, conv_stride
  bool conv_bias = false;
  std::string norm = "group";            // feat_extract_norm: "group" (layer 0 only) or "layer" (every layer)
  std::string act = "gelu";              // feat_extract_activation
  int64_t hidden = 0;
  bool masked_spec_embed = true;         // mask_time_prob > 0 or mask_feature_prob > 0
  int64_t pos_kernel = 128, pos_groups = 16;  // num_conv_pos_embeddings, num_conv_pos_embedding_groups
  bool stable_layer_norm = false;        // do_stable_layer_norm: encoder.layer_norm after the layers
};
/// Block "<prefix>.feature_extractor" (text domain; seq = encoder frames, one per 320 samples,
/// 20 ms at 16 kHz): conv_layers.i.conv (→ layer_norm) → act, each node spanning
/// prod(strides after i) frames per encoder frame (tokens_scale; the kernels' few edge frames are
/// not counted). Block "<prefix>.feature_projection": layer_norm → projection → (masked_spec_embed
/// replaces masked frames) → encoder.pos_conv_embed.conv (weight_g [1, 1, k] and weight_v [hidden,
/// hidden / groups, k]: torch weight_norm(dim=2) as the published checkpoints store it) → act → add
/// → encoder.layer_norm (before the layers unless stable_layer_norm).
/// Returns the conv features (the value Wav2Vec2ForPreTraining's quantizer reads).
ValueId wav2vec2_front(ModelBuilder& b, const Wav2Vec2FrontSpec& spec);

struct WhisperEncoderSpec {
  std::string prefix;                    // "model.encoder"
  int64_t mels = 80, hidden = 0, layers = 0, heads = 0, ffn = 0, frames = 1500;  // max_source_positions
  std::string act = "gelu";
};
/// Domain::audio blocks of `frames` tokens per sample (Whisper pads every input to 30 s: 3000 mel
/// frames, 1500 after conv2): conv1 (Conv1d mels → hidden, k 3, pad 1, over 3000 frames) → act →
/// conv2 (k 3, stride 2) → act → + embed_positions [frames, hidden] (sinusoidal, frozen) → layers
/// (self_attn_layer_norm → self_attn (k_proj without bias) → add → final_layer_norm → fc1 → act →
/// fc2 → add) → layer_norm.
void whisper_encoder(ModelBuilder& b, const WhisperEncoderSpec& spec);

}  // namespace cardfit

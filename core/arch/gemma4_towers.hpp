// The Gemma 4 vision and audio towers (transformers models/gemma4/modeling_gemma4.py: Gemma4VisionModel,
// Gemma4AudioModel, Gemma4MultimodalEmbedder), as Gemma4ForConditionalGeneration stores them
// ("model.vision_tower.", "model.embed_vision.", "model.audio_tower.", "model.embed_audio.").
// Gemma4ClippableLinear stores its nn.Linear as "<name>.linear.weight" and, with use_clipped_linears,
// four scalar buffers (input_min/max, output_min/max) that the checkpoint holds: counted in a note,
// not listed.
#pragma once
#include <string>
#include <vector>

#include "../config.hpp"
#include "builder.hpp"

namespace cardfit {

struct Gemma4VisionSpec {
  int64_t hidden = 768, layers = 16, heads = 12, kv_heads = 12, head_dim = 64, intermediate = 3072;
  int64_t patch = 16, pool = 3, position_table = 10240;
  bool clipped = false, standardize = false;
  std::string act = "gelu_pytorch_tanh";
  int64_t soft_tokens = 280;  // the planning assumption: Gemma4ImageProcessor's max_soft_tokens
};
/// patch_embedder.input_proj (nn.Linear 3·patch² → hidden) + position_embedding_table [2, table, hidden]
/// (one row per x and per y) → encoder.layers.N (input_layernorm → q/k/v_proj → q_norm, k_norm
/// [head_dim] (v_norm has no weight) → bidirectional attention (2-D rotary) → o_proj →
/// post_attention_layernorm → add → pre_feedforward_layernorm → gate/up/down_proj →
/// post_feedforward_layernorm → add) → pooler (average over pool² patches, no parameters; standardize:
/// std_bias/std_scale buffers) → embed_vision (weightless RMSNorm → embedding_projection
/// [text_hidden, hidden]). Every image is padded to soft_tokens · pool² patches (Domain::vision).
void gemma4_vision(ModelBuilder& b, const Gemma4VisionSpec& spec, int64_t text_hidden);
/// Gemma4VisionConfig with its class defaults; coded errors name the field.
Gemma4VisionSpec read_gemma4_vision(const Config& vision);

struct Gemma4AudioSpec {
  int64_t hidden = 1024, layers = 12, heads = 8, conv_kernel = 5, out = 1536;
  std::vector<int64_t> channels = {128, 32};  // subsampling_conv_channels
  int64_t chunk = 12, context_left = 13, context_right = 0;  // attention_chunk_size, attention_context_*
  bool clipped = true;
  std::string act = "silu";
  int64_t seconds = 30;  // the traced default: audio per sample (option audio_seconds rescales it)
};
/// A Conformer (Universal Speech Model): subsample_conv_projection (layer0/1: Conv2d 3×3 stride 2
/// without bias + LayerNorm without bias; input_proj_linear [hidden, channels[0] / 4 · channels[1]]) →
/// layers.N (feed_forward1 (pre_layer_norm, ffw_layer_1 [4h, h], act, ffw_layer_2 [h, 4h],
/// post_layer_norm, add) → norm_pre_attn → self_attn (q/k/v_proj, per_dim_scale [head_dim],
/// relative_k_proj, chunked local attention, post) → norm_post_attn → add → lconv1d (pre_layer_norm,
/// linear_start [2h, h], GLU, depthwise_conv1d [h, 1, k], conv_norm, linear_end, add) → feed_forward2
/// → norm_out) → output_proj [out, h] + bias → embed_audio. Domain::audio blocks sized for
/// spec.seconds (Model::audio per_second: 25 tokens a second, at most 30 s).
void gemma4_audio(ModelBuilder& b, const Gemma4AudioSpec& spec, int64_t text_hidden);
/// Gemma4AudioConfig with its class defaults; coded errors name the field.
Gemma4AudioSpec read_gemma4_audio(const Config& audio);

}  // namespace cardfit

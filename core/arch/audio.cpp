// Speech front ends and encoders (see audio.hpp).
#include "audio.hpp"

#include "layers.hpp"

namespace cardfit {

namespace {
// A Conv1d as the planner sees it: a linear map from in_channels × kernel (one im2col row) to
// out_channels per output frame. Not an nn.Linear: not a LoRA target, not quantized.
Node conv1d(ModelBuilder& b, const std::string& name, int64_t in, int64_t out, int64_t kernel, int64_t groups,
            bool bias, Role role) {
  Node n;
  n.name = name;
  n.op = Op::linear;
  n.detail = "conv1d";
  n.linear = LinearKind::patch_conv;  // an nn.Conv1d: not quantized by bitsandbytes
  n.in = in / groups * kernel;
  n.out = out;
  n.params = b.tensor(name + ".weight", {out, in / groups, kernel}, role);
  if (bias) n.params += b.tensor(name + ".bias", {out}, role);
  return n;
}

void audio_block(ModelBuilder& b, const std::string& name, const std::string& kind, int layer, int64_t tokens,
                 int64_t width) {
  b.block(name, kind, layer);
  Block& blk = b.model().blocks.back();
  blk.domain = Domain::audio;
  blk.tokens_per_image = tokens;
  blk.width = width;
}
}  // namespace

ValueId wav2vec2_front(ModelBuilder& b, const Wav2Vec2FrontSpec& s) {
  const std::string p = s.prefix.empty() ? "" : s.prefix + ".";
  b.restart();  // the waveform: no stream before it
  b.block(p + "feature_extractor", "other");
  const size_t n = s.dims.size();
  for (size_t i = 0; i < n; ++i) {
    int64_t scale = 1;  // frames of this layer's output per encoder frame
    for (size_t j = i + 1; j < n; ++j) scale = checked_mul(scale, s.strides[j], "the conv feature extractor's total stride");
    const std::string l = p + "feature_extractor.conv_layers." + std::to_string(i);
    const int64_t in = i == 0 ? 1 : s.dims[i - 1], out = s.dims[i];
    Node conv = conv1d(b, l + ".conv", in, out, s.kernels[i], 1, s.conv_bias, Role::other);
    conv.tokens_scale = scale;
    if (i == 0) b.reads({});  // the raw waveform
    b.node(conv);
    if (s.norm == "layer" || (s.norm == "group" && i == 0)) {
      // GroupNorm(out, out) on layer 0 or LayerNorm(out) on each layer: a weight and a bias each.
      b.norm(l + ".layer_norm", out, NormKind::layernorm);
      b.model().blocks.back().nodes.back().tokens_scale = scale;
    }
    b.activation(l + ".activation", out, s.act);
    b.model().blocks.back().nodes.back().tokens_scale = scale;
  }

  const int64_t feat = s.dims.back();
  const ValueId features = b.cursor();
  b.set_stream(features);
  b.block(p + "feature_projection", "other");
  b.norm(p + "feature_projection.layer_norm", feat, NormKind::layernorm);
  b.linear(p + "feature_projection.projection", feat, s.hidden, {.bias = true, .role = Role::other});
  b.set_stream(b.cursor());  // the projected frames: what the positional conv is added to
  if (s.masked_spec_embed) {
    Node m;  // a learned vector that replaces the masked frames (SpecAugment during training)
    m.name = p + "masked_spec_embed";
    m.op = Op::other;
    m.detail = "masked_spec_embed";
    m.in = m.out = s.hidden;
    m.params = b.tensor(m.name, {s.hidden}, Role::other);
    b.node(m);
  }
  const std::string pc = p + "encoder.pos_conv_embed.conv";
  Node pos;
  pos.name = pc;
  pos.op = Op::linear;
  pos.detail = "conv1d";
  pos.linear = LinearKind::patch_conv;
  pos.in = s.hidden / s.pos_groups * s.pos_kernel;
  pos.out = s.hidden;
  pos.params = b.tensor(pc + ".weight_g", {1, 1, s.pos_kernel}, Role::position_embedding) +
               b.tensor(pc + ".weight_v", {s.hidden, s.hidden / s.pos_groups, s.pos_kernel}, Role::position_embedding) +
               b.tensor(pc + ".bias", {s.hidden}, Role::position_embedding);
  b.node(pos);
  b.activation(p + "encoder.pos_conv_embed.activation", s.hidden, "gelu");
  b.residual(p + "encoder.pos_conv_embed.residual", s.hidden);
  if (!s.stable_layer_norm) {
    b.norm(p + "encoder.layer_norm", s.hidden, NormKind::layernorm);
    b.set_stream(b.cursor());
  }
  return features;
}

void whisper_encoder(ModelBuilder& b, const WhisperEncoderSpec& s) {
  const std::string p = s.prefix + ".";
  // WhisperFeatureExtractor pads (or cuts) every input to its window, 2 × frames mel frames at
  // 100 a second, and WhisperEncoder refuses any other length.
  AudioClip& clip = b.model().audio;
  clip.rule = AudioClip::Rule::fixed_window;
  clip.seconds = clip.max_seconds = 2 * s.frames / clip.frames_per_second;
  b.restart();  // log-mel features: no stream before them
  audio_block(b, p + "conv", "other", -1, s.frames, s.hidden);
  Node c1 = conv1d(b, p + "conv1", s.mels, s.hidden, 3, 1, true, Role::other);
  c1.tokens_per_image = 2 * s.frames;  // conv1 keeps the 3000 mel frames; conv2 (stride 2) halves them
  b.reads({});
  b.node(c1);
  b.activation(p + "conv1.act", s.hidden, s.act);
  b.model().blocks.back().nodes.back().tokens_per_image = 2 * s.frames;
  b.node(conv1d(b, p + "conv2", s.hidden, s.hidden, 3, 1, true, Role::other));
  b.activation(p + "conv2.act", s.hidden, s.act);
  b.embedding(p + "embed_positions", s.frames, s.hidden, Role::position_embedding);
  for (int64_t i = 0; i < s.layers; ++i) {
    const std::string l = p + "layers." + std::to_string(i);
    audio_block(b, l, "encoder_layer", int(i), s.frames, s.hidden);
    residual_layer(b, {.prefix = l, .hidden = s.hidden, .norm = NormKind::layernorm,
                       .attn = {.prefix = l + ".self_attn", .hidden = s.hidden, .heads = s.heads, .kv_heads = s.heads,
                                .head_dim = s.hidden / s.heads, .q_bias = true, .k_bias = false, .v_bias = true,
                                .o_bias = true, .o = "out_proj", .causal = false},
                       .attn_norm = l + ".self_attn_layer_norm",
                       .mlp = {.prefix = l, .hidden = s.hidden, .intermediate = s.ffn, .gated = false, .bias = true,
                               .act = s.act, .up = "fc1", .down = "fc2"},
                       .mlp_norm = l + ".final_layer_norm"});
  }
  audio_block(b, p + "final", "other", -1, s.frames, s.hidden);
  b.norm(p + "layer_norm", s.hidden, NormKind::layernorm);
}

}  // namespace cardfit

// Qwen3-Omni-MoE's audio tower (see qwen3_omni.hpp): Qwen3OmniMoeAudioEncoder.
#include "qwen3_omni.hpp"

#include <algorithm>

#include "audio_clip.hpp"
#include "layers.hpp"
#include "vision.hpp"

namespace cardfit {

namespace {
// A Conv2d 3x3 as the planner sees it: in_channels × 9 → out_channels at each output position.
Node conv2d(ModelBuilder& b, const std::string& name, int64_t in, int64_t out, int64_t positions) {
  Node n;
  n.name = name;
  n.op = Op::linear;
  n.detail = "conv2d";
  n.linear = LinearKind::patch_conv;  // an nn.Conv2d: not an nn.Linear
  n.in = in * 9;
  n.out = out;
  n.params = b.tensor(name + ".weight", {out, in, 3, 3}, Role::other) + b.tensor(name + ".bias", {out}, Role::other);
  n.tokens_per_image = positions;
  return n;
}
int64_t half_up(int64_t n) { return (n + 1) / 2; }  // Conv2d k 3, stride 2, padding 1
}  // namespace

int64_t omni_audio_chunk_tokens(int64_t frames) { return half_up(half_up(half_up(frames))); }

OmniAudioSpec read_omni_audio(const Config& a) {
  // Qwen3OmniMoeAudioEncoderConfig defaults: num_mel_bins=128, encoder_layers=32,
  // encoder_attention_heads=20, encoder_ffn_dim=5120, d_model=1280, activation_function="gelu",
  // n_window=100, output_dim=3584, n_window_infer=400, downsample_hidden_size=480 (the class as
  // vLLM and SGLang copy it, read 2026-12-02; Qwen3-Omni-30B-A3B sets n_window 50, n_window_infer 800).
  OmniAudioSpec s;
  s.mels = a.positive_or({"num_mel_bins"}, 128);
  s.layers = a.positive_or({"encoder_layers"}, 32);
  s.heads = a.positive_or({"encoder_attention_heads"}, 20);
  s.ffn = a.positive_or({"encoder_ffn_dim"}, 5120);
  s.hidden = a.positive_or({"d_model"}, 1280);
  s.act = a.string_or("activation_function", "gelu");
  s.channels = a.positive_or({"downsample_hidden_size"}, 480);
  s.out = a.positive_or({"output_dim"}, 3584);
  const int64_t window = a.positive_or({"n_window"}, 100);
  s.chunk_frames = 2 * window;
  s.window_chunks = std::max<int64_t>(1, a.positive_or({"n_window_infer"}, 400) / s.chunk_frames);
  require(s.hidden % s.heads == 0, a, "encoder_attention_heads", "d_model must be divisible by encoder_attention_heads.");
  return s;
}

AudioClip OmniAudioSpec::clip() const {
  AudioClip c;
  c.rule = AudioClip::Rule::chunked;
  c.seconds = seconds;
  c.chunk_frames = chunk_frames;
  c.window_chunks = window_chunks;
  return c;
}

void omni_audio_tower(ModelBuilder& b, const OmniAudioSpec& s) {
  const std::string p = s.prefix + ".";
  b.model().audio = s.clip();
  const int64_t chunks = audio_clip_chunks(b.model().audio, s.seconds);  // 100 mel frames a second (10 ms hop)
  const int64_t tokens = audio_clip_tokens(b.model().audio, s.seconds);
  int64_t freq = s.mels, time = s.chunk_frames;
  b.restart();  // log-mel features: no stream before them
  vision_block(b, p + "conv", "other", tokens, s.hidden, Domain::audio);
  for (int i = 1; i <= 3; ++i) {
    freq = half_up(freq);
    time = half_up(time);
    const std::string c = p + "conv2d" + std::to_string(i);
    if (i == 1) b.reads({});
    b.node(conv2d(b, c, i == 1 ? 1 : s.channels, s.channels, chunks * freq * time));
    b.activation(c + ".act", s.channels, "gelu");
    b.model().blocks.back().nodes.back().tokens_per_image = chunks * freq * time;
  }
  b.linear(p + "conv_out", s.channels * freq, s.hidden, {.bias = false, .role = Role::other});
  b.set_stream(b.cursor());  // + positional_embedding: a sinusoidal buffer the checkpoint does not store
  for (int64_t i = 0; i < s.layers; ++i) {
    const std::string l = p + "layers." + std::to_string(i);
    vision_block(b, l, "encoder_layer", tokens, s.hidden, Domain::audio);
    b.model().blocks.back().layer = int(i);
    residual_layer(b, {.prefix = l, .hidden = s.hidden, .norm = NormKind::layernorm,
                       .attn = {.prefix = l + ".self_attn", .hidden = s.hidden, .heads = s.heads, .kv_heads = s.heads,
                                .head_dim = s.hidden / s.heads, .q_bias = true, .k_bias = true, .v_bias = true,
                                .o_bias = true, .o = "out_proj",
                                .window = s.window_chunks * omni_audio_chunk_tokens(s.chunk_frames), .causal = false},
                       .attn_norm = l + ".self_attn_layer_norm",
                       .mlp = {.prefix = l, .hidden = s.hidden, .intermediate = s.ffn, .gated = false, .bias = true,
                               .act = s.act, .up = "fc1", .down = "fc2"},
                       .mlp_norm = l + ".final_layer_norm"});
  }
  vision_block(b, p + "final", "projector", tokens, s.hidden, Domain::audio);
  b.norm(p + "ln_post", s.hidden, NormKind::layernorm);
  b.linear(p + "proj1", s.hidden, s.hidden, {.bias = true, .role = Role::projector});
  b.activation(p + "act", s.hidden, s.act);
  b.linear(p + "proj2", s.hidden, s.out, {.bias = true, .role = Role::projector});
}

}  // namespace cardfit

// The Gemma 4 vision and audio towers (see gemma4_towers.hpp).
#include "gemma4_towers.hpp"

#include "audio_clip.hpp"
#include "blocks.hpp"
#include "vision.hpp"

namespace cardfit {

namespace {
// Gemma4ClippableLinear: "<name>.linear"; with use_clipped_linears it also stores four scalar bounds
// (input_min/max, output_min/max), counted in `bounds` for the tower's note rather than listed one by
// one (the core report lists every buffer, and Gemma 4 E2B has 928 of them).
void clippable(ModelBuilder& b, const std::string& name, int64_t in, int64_t out, int64_t& bounds, Role role) {
  b.linear(name + ".linear", in, out, {.role = role});
  bounds += 4;
}
void note_bounds(ModelBuilder& b, const char* tower, bool clipped, int64_t bounds) {
  if (clipped)
    b.note(std::string("The ") + tower + " tower's checkpoint also stores " + std::to_string(bounds) +
           " scalar clip bounds (input_min/input_max/output_min/output_max of each Gemma4ClippableLinear, "
           "use_clipped_linears): buffers, not parameters, and not listed here.");
}

// A node without parameters (a pool, a weightless norm, a GLU), named for display.
void op(ModelBuilder& b, const std::string& name, const std::string& detail, int64_t in, int64_t out) {
  b.node({.name = name, .op = Op::other, .detail = detail, .in = in, .out = out});
}

// A Conv2d as the planner sees it: one linear map per output position, not an nn.Linear.
void conv(ModelBuilder& b, const std::string& name, Shape shape, int64_t in, int64_t out) {
  Node n{.name = name, .op = Op::linear, .detail = "conv", .in = in, .out = out,
         .params = b.tensor(name + ".weight", std::move(shape), Role::other)};
  n.linear = LinearKind::patch_conv;
  b.node(std::move(n));
}

// Gemma4MultimodalEmbedder: embedding_pre_projection_norm (no weight) → embedding_projection.
void embedder(ModelBuilder& b, const std::string& p, int64_t in, int64_t text_hidden) {
  op(b, p + ".embedding_pre_projection_norm", "rmsnorm_noscale", in, in);
  b.linear(p + ".embedding_projection", in, text_hidden, {.role = Role::projector});
}
}  // namespace

void gemma4_vision(ModelBuilder& b, const Gemma4VisionSpec& s, int64_t text_hidden) {
  const std::string p = "model.vision_tower.";
  const int64_t h = s.hidden, q_out = checked_mul(s.heads, s.head_dim, "the vision query width");
  const int64_t n = checked_mul(s.soft_tokens, checked_mul(s.pool, s.pool, "pooling_kernel_size²"), "patches per image");
  int64_t bounds = 0;
  b.restart();  // the tower starts from pixels, cut into patches by the processor
  vision_block(b, p + "patch_embedder", "vision_embedding", n, h);
  b.reads({});
  b.linear(p + "patch_embedder.input_proj", checked_mul(3, checked_mul(s.patch, s.patch, "patch_size²"), "patch pixels"), h,
           {.role = Role::vision});
  const std::string table = p + "patch_embedder.position_embedding_table";
  b.node({.name = table, .op = Op::position_embedding, .in = h, .out = h,
          .params = b.tensor(table, {2, s.position_table, h}, Role::vision)});
  b.set_stream(b.cursor());
  struct Proj {
    const char *name, *norm;
    int64_t width;
  };
  for (int64_t i = 0; i < s.layers; ++i) {
    const std::string k = p + "encoder.layers." + std::to_string(i), a = k + ".self_attn";
    vision_block(b, k, "vision_layer", n, h);
    b.norm(k + ".input_layernorm", h, NormKind::rmsnorm, Role::vision);
    const ValueId x = b.cursor();  // q, k and v read the normed stream
    std::vector<ValueId> qkv;
    for (const Proj& pr : {Proj{"q_proj", "q_norm", q_out}, Proj{"k_proj", "k_norm", q_out / s.heads * s.kv_heads},
                           Proj{"v_proj", "", q_out / s.heads * s.kv_heads}}) {
      b.read(x);
      clippable(b, a + "." + pr.name, h, pr.width, bounds, Role::vision);
      if (*pr.norm) {  // per head: one [head_dim] weight
        b.norm(a + "." + pr.norm, s.head_dim, NormKind::rmsnorm, Role::vision);
        b.last_node()->qk_norm = QkNorm::whole;
      }
      qkv.push_back(b.cursor());
    }
    b.reads(qkv);
    b.attention(a + ".attn", {.heads = s.heads, .kv_heads = s.kv_heads, .head_dim = s.head_dim, .causal = false}, q_out);
    clippable(b, a + ".o_proj", q_out, h, bounds, Role::vision);
    b.norm(k + ".post_attention_layernorm", h, NormKind::rmsnorm, Role::vision);
    b.residual(k + ".residual_attn", h);
    b.norm(k + ".pre_feedforward_layernorm", h, NormKind::rmsnorm, Role::vision);
    const ValueId y = b.cursor();  // gate and up read the normed stream
    clippable(b, k + ".mlp.gate_proj", h, s.intermediate, bounds, Role::vision);
    const ValueId gate = b.cursor();
    b.read(y);
    clippable(b, k + ".mlp.up_proj", h, s.intermediate, bounds, Role::vision);
    b.reads({gate, b.cursor()});
    b.gated_activation(k + ".mlp.act", s.intermediate, s.act);
    clippable(b, k + ".mlp.down_proj", s.intermediate, h, bounds, Role::vision);
    b.norm(k + ".post_feedforward_layernorm", h, NormKind::rmsnorm, Role::vision);
    b.residual(k + ".residual_mlp", h);
  }
  vision_block(b, "model.embed_vision", "projector", s.soft_tokens, h);
  op(b, p + "pooler", "avg_pool2d", h, h);
  b.model().blocks.back().nodes.back().tokens_per_image = n;  // the pool reads every patch
  if (s.standardize)
    for (const char* buffer : {"std_bias", "std_scale"}) b.buffer(p + buffer, {h});
  embedder(b, "model.embed_vision", h, text_hidden);
  note_bounds(b, "vision", s.clipped, bounds);
}

Gemma4VisionSpec read_gemma4_vision(const Config& v) {
  Gemma4VisionSpec s;
  s.hidden = v.positive_or({"hidden_size"}, s.hidden);
  s.layers = v.positive_or({"num_hidden_layers"}, s.layers);
  s.heads = v.positive_or({"num_attention_heads"}, s.heads);
  s.kv_heads = v.positive_or({"num_key_value_heads"}, s.kv_heads);
  s.head_dim = v.positive_or({"head_dim"}, s.head_dim);
  s.intermediate = v.positive_or({"intermediate_size"}, s.intermediate);
  s.patch = v.positive_or({"patch_size"}, s.patch);
  s.pool = v.positive_or({"pooling_kernel_size"}, s.pool);
  s.position_table = v.positive_or({"position_embedding_size"}, s.position_table);
  s.clipped = v.boolean_or("use_clipped_linears", s.clipped);
  s.standardize = v.boolean_or("standardize", s.standardize);
  s.act = v.string_or("hidden_activation", s.act);
  require(s.heads % s.kv_heads == 0, v, "num_key_value_heads",
          "vision_config.num_attention_heads must be a multiple of num_key_value_heads.");
  return s;
}

namespace {
// Gemma4AudioFeatureExtractor: 16 kHz, 10 ms hop, 128 mel bins (feature_size; the config has no
// key), clips cut at max_length 480,000 samples (30 s); Gemma4AudioSubSampleConvProjection halves
// time and frequency twice, so 25 encoder tokens a second (modeling_gemma4.py, read 2026-12-03).
constexpr int64_t kGemma4Mels = 128, kGemma4TokensPerSecond = 25, kGemma4MaxSeconds = 30;
int64_t half_up(int64_t n) { return (n + 1) / 2; }  // Conv2d k 3, stride 2, padding 1
}  // namespace

void gemma4_audio(ModelBuilder& b, const Gemma4AudioSpec& s, int64_t text_hidden) {
  AudioClip& clip = b.model().audio;
  clip.rule = AudioClip::Rule::per_second;
  clip.seconds = s.seconds;
  clip.max_seconds = kGemma4MaxSeconds;
  clip.tokens_per_second = kGemma4TokensPerSecond;
  const std::string p = "model.audio_tower.", sub = p + "subsample_conv_projection.";
  const int64_t h = s.hidden, c0 = s.channels[0], c1 = s.channels[1];
  // (samples − 161) // 160 + 1 = 100 S − 1 frames; ceil(frames / 2), then ceil(frames / 4) = 25 S.
  const int64_t frames = checked_mul(s.seconds, clip.frames_per_second, "audio frames") - 1;
  const int64_t tokens = audio_clip_tokens(clip, s.seconds);
  const int64_t freq0 = half_up(kGemma4Mels), freq1 = half_up(freq0);
  int64_t bounds = 0;
  auto block = [&](const std::string& name, const std::string& kind) {
    vision_block(b, name, kind, tokens, h, Domain::audio);
  };
  // One conv layer (Conv2d, LayerNorm over channels, ReLU), each node at the layer's own
  // time × frequency positions.
  auto conv_layer = [&](const std::string& l, Shape shape, int64_t in, int64_t out, int64_t positions) {
    auto at_positions = [&] { b.model().blocks.back().nodes.back().tokens_per_image = positions; };
    conv(b, l + ".conv", std::move(shape), in, out);
    at_positions();
    b.norm(l + ".norm", out, NormKind::layernorm_nobias);
    at_positions();
    b.activation(l + ".act", out, "relu");
    at_positions();
  };
  b.restart();  // log-mel frames
  block(p + "subsample_conv_projection", "other");
  b.reads({});
  conv_layer(sub + "layer0", {c0, 1, 3, 3}, 9, c0, checked_mul(half_up(frames), freq0, "audio conv positions"));
  conv_layer(sub + "layer1", {c1, c0, 3, 3}, c0 * 9, c1, checked_mul(tokens, freq1, "audio conv positions"));
  b.linear(sub + "input_proj_linear", c0 / 4 * c1, h, {.role = Role::other});
  b.set_stream(b.cursor());
  auto feed_forward = [&](const std::string& f) {
    b.norm(f + ".pre_layer_norm", h, NormKind::rmsnorm);
    clippable(b, f + ".ffw_layer_1", h, 4 * h, bounds, Role::mlp);
    b.activation(f + ".act", 4 * h, s.act);
    clippable(b, f + ".ffw_layer_2", 4 * h, h, bounds, Role::mlp);
    b.norm(f + ".post_layer_norm", h, NormKind::rmsnorm);
    b.residual(f + ".residual", h);
  };
  for (int64_t i = 0; i < s.layers; ++i) {
    const std::string k = p + "layers." + std::to_string(i), a = k + ".self_attn", c = k + ".lconv1d";
    block(k, "encoder_layer");
    feed_forward(k + ".feed_forward1");
    b.norm(k + ".norm_pre_attn", h, NormKind::rmsnorm);
    const ValueId x = b.cursor();
    std::vector<ValueId> qkv;
    for (const char* proj : {"q_proj", "k_proj", "v_proj"}) {
      b.read(x);
      clippable(b, a + "." + proj, h, h, bounds, Role::attention);
      qkv.push_back(b.cursor());
    }
    b.reads(qkv);
    b.node({.name = a + ".per_dim_scale", .op = Op::other, .detail = "per_dim_scale", .in = h, .out = h,
            .params = b.tensor(a + ".per_dim_scale", {h / s.heads}, Role::attention)});
    b.linear(a + ".relative_k_proj", h, h, {.role = Role::attention});  // over the relative position table
    // Gemma4AudioAttention: chunks of attention_chunk_size queries, each over a context of
    // chunk + context_left − 1 + context_right keys, in fp32 (its own matmuls, any implementation).
    b.attention(a + ".attn", {.heads = s.heads, .kv_heads = s.heads, .head_dim = h / s.heads,
                              .window = s.chunk + s.context_left - 1 + s.context_right, .causal = false,
                              .chunk = s.chunk}, h);
    clippable(b, a + ".post", h, h, bounds, Role::attention);
    b.norm(k + ".norm_post_attn", h, NormKind::rmsnorm);
    b.residual(k + ".residual_attn", h);
    b.norm(c + ".pre_layer_norm", h, NormKind::rmsnorm);
    clippable(b, c + ".linear_start", h, 2 * h, bounds, Role::mlp);
    op(b, c + ".glu", "glu", 2 * h, h);
    // A depthwise causal Conv1d (groups = hidden): each channel mixes its own last conv_kernel frames.
    b.node({.name = c + ".depthwise_conv1d", .op = Op::other, .detail = "depthwise_conv1d", .in = h, .out = h,
            .params = b.tensor(c + ".depthwise_conv1d.weight", {h, 1, s.conv_kernel}, Role::other)});
    b.norm(c + ".conv_norm", h, NormKind::rmsnorm);
    clippable(b, c + ".linear_end", h, h, bounds, Role::mlp);
    b.residual(c + ".residual", h);
    feed_forward(k + ".feed_forward2");
    b.norm(k + ".norm_out", h, NormKind::rmsnorm);
  }
  block("model.embed_audio", "projector");
  b.linear(p + "output_proj", h, s.out, {.bias = true, .role = Role::projector});
  embedder(b, "model.embed_audio", s.out, text_hidden);
  note_bounds(b, "audio", s.clipped, bounds);
  b.note(audio_clip_note(clip, s.seconds));
}

Gemma4AudioSpec read_gemma4_audio(const Config& a) {
  Gemma4AudioSpec s;
  s.hidden = a.positive_or({"hidden_size"}, s.hidden);
  s.layers = a.positive_or({"num_hidden_layers"}, s.layers);
  s.heads = a.positive_or({"num_attention_heads"}, s.heads);
  s.conv_kernel = a.positive_or({"conv_kernel_size"}, s.conv_kernel);
  s.out = a.positive_or({"output_proj_dims"}, s.out);
  s.clipped = a.boolean_or("use_clipped_linears", s.clipped);
  s.act = a.string_or("hidden_act", s.act);
  s.chunk = a.positive_or({"attention_chunk_size"}, s.chunk);
  s.context_left = a.positive_or({"attention_context_left"}, s.context_left);
  s.context_right = a.count_or({"attention_context_right"}, s.context_right);
  if (a.has("subsampling_conv_channels")) s.channels = a.integer_list("subsampling_conv_channels");
  require(s.channels.size() == 2 && s.channels[0] >= 4 && s.channels[1] > 0, a, "subsampling_conv_channels",
          "audio_config.subsampling_conv_channels must list two channel counts, the first at least 4.");
  require(s.hidden % s.heads == 0, a, "num_attention_heads",
          "audio_config.hidden_size must be divisible by num_attention_heads.");
  return s;
}

}  // namespace cardfit

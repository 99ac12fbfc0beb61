// The Qwen2.5-VL vision transformer (see qwen_vision.hpp).
#include "qwen_vision.hpp"

#include <algorithm>

#include "vision.hpp"

namespace cardfit {

namespace {
// The tower's start, from pixels: the patch embedding, a Conv3d with stride = kernel over
// temporal_patch × patch × patch pixels of each channel (not an nn.Linear); Qwen3-VL's has a bias.
void patch_embed(ModelBuilder& b, const QwenVisionSpec& s, const std::string& p, bool bias) {
  b.restart();
  vision_block(b, p + "patch_embed", "vision_embedding", s.patches_per_image, s.hidden);
  Node patch;
  patch.name = p + "patch_embed.proj";
  patch.op = Op::linear;
  patch.detail = "patch_conv2d";
  patch.linear = LinearKind::patch_conv;
  patch.in = s.channels * s.temporal_patch * s.patch * s.patch;
  patch.out = s.hidden;
  patch.params = b.tensor(patch.name + ".weight", {s.hidden, s.channels, s.temporal_patch, s.patch, s.patch}, Role::vision);
  if (bias) patch.params += b.tensor(patch.name + ".bias", {s.hidden}, Role::vision);
  b.reads({});  // pixel values
  b.node(patch);
}

// The planning assumption of every Qwen tower: one 448 x 448 image, cut into patches and merged
// merge x merge patches to a text token (14 px patches: 1024 patches, 256 tokens).
void plan_reference_image(QwenVisionSpec& s) {
  const int64_t per_side = std::max<int64_t>(1, 448 / s.patch / s.merge) * s.merge;
  s.patches_per_image = per_side * per_side;
}

// Qwen2-VL's and Qwen2.5-VL's patch grid keys, the same in both configs (older files: in_chans,
// spatial_patch_size), then the reference image.
void read_qwen2_patch_grid(const Config& v, QwenVisionSpec& s) {
  s.patch = v.positive_or({"patch_size", "spatial_patch_size"}, 14);
  s.temporal_patch = v.positive_or({"temporal_patch_size"}, 2);
  s.merge = v.positive_or({"spatial_merge_size"}, 2);
  s.channels = v.positive_or({"in_channels", "in_chans"}, 3);
  plan_reference_image(s);
}
}  // namespace

void qwen2_5_vision(ModelBuilder& b, const QwenVisionSpec& s) {
  const std::string p = s.prefix + ".";
  const int64_t n = s.patches_per_image;
  const LinearSpec l{.bias = true, .role = Role::vision};
  patch_embed(b, s, p, false);
  b.set_stream(b.cursor());
  for (int64_t i = 0; i < s.depth; ++i) {
    const std::string k = p + "blocks." + std::to_string(i);
    vision_block(b, k, "vision_layer", n, s.hidden);
    b.norm(k + ".norm1", s.hidden, s.norm, Role::vision);
    b.linear(k + ".attn.qkv", s.hidden, 3 * s.hidden, l);
    AttentionGeom g;
    g.heads = g.kv_heads = s.heads;
    g.head_dim = s.hidden / s.heads;
    g.causal = false;
    const bool full = std::find(s.full_blocks.begin(), s.full_blocks.end(), i) != s.full_blocks.end();
    g.window = full ? 0 : s.window;
    b.attention(k + ".attn.attn", g, s.hidden);
    b.linear(k + ".attn.proj", s.hidden, s.hidden, l);
    b.residual(k + ".residual_attn", s.hidden);
    b.norm(k + ".norm2", s.hidden, s.norm, Role::vision);
    mlp_block(b, {.prefix = k + ".mlp", .hidden = s.hidden, .intermediate = s.intermediate, .gated = s.gated_mlp,
                  .bias = true, .act = s.act, .up = s.gated_mlp ? "up_proj" : "fc1",
                  .down = s.gated_mlp ? "down_proj" : "fc2", .role = Role::vision});
    b.residual(k + ".residual_mlp", s.hidden);
  }
  // The merger runs on merged tokens (merge² patches each); ln_q normalises each patch first.
  const int64_t merged = s.hidden * s.merge * s.merge;
  vision_block(b, p + "merger", "projector", n / (s.merge * s.merge), s.hidden);
  b.norm(p + "merger.ln_q", s.hidden, s.norm, Role::projector);
  b.model().blocks.back().nodes.back().tokens_per_image = n;
  b.linear(p + "merger.mlp.0", merged, merged, {.bias = true, .role = Role::projector});
  b.activation(p + "merger.mlp.1", merged, "gelu");
  b.linear(p + "merger.mlp.2", merged, s.out_hidden, {.bias = true, .role = Role::projector});
}

namespace {
// A Qwen3-VL patch merger over merged tokens: norm (per patch, or after the 2x2 concat) → fc1 → GELU → fc2.
void qwen3_merger(ModelBuilder& b, const QwenVisionSpec& s, const std::string& name, bool postshuffle, ValueId from) {
  const int64_t n = s.patches_per_image, merged = s.hidden * s.merge * s.merge;
  vision_block(b, name, "projector", n / (s.merge * s.merge), s.hidden);
  b.read(from);
  const bool omni = s.omni_merger_names;
  b.norm(name + (omni ? ".ln_q" : ".norm"), postshuffle ? merged : s.hidden, NormKind::layernorm, Role::projector);
  if (!postshuffle) b.model().blocks.back().nodes.back().tokens_per_image = n;
  b.linear(name + (omni ? ".mlp.0" : ".linear_fc1"), merged, merged, {.bias = true, .role = Role::projector});
  b.activation(name + (omni ? ".mlp.1" : ".act"), merged, "gelu");
  b.linear(name + (omni ? ".mlp.2" : ".linear_fc2"), merged, s.out_hidden, {.bias = true, .role = Role::projector});
}
}  // namespace

void qwen3_vision(ModelBuilder& b, const QwenVisionSpec& s) {
  const std::string p = s.prefix + ".";
  const int64_t n = s.patches_per_image;
  const LinearSpec l{.bias = true, .role = Role::vision};
  patch_embed(b, s, p, true);
  b.embedding(p + "pos_embed", s.position_table, s.hidden, Role::vision);
  std::vector<ValueId> outputs;  // each block's output, for the deepstack mergers
  for (int64_t i = 0; i < s.depth; ++i) {
    const std::string k = p + "blocks." + std::to_string(i);
    vision_block(b, k, "vision_layer", n, s.hidden);
    b.norm(k + ".norm1", s.hidden, NormKind::layernorm, Role::vision);
    b.linear(k + ".attn.qkv", s.hidden, 3 * s.hidden, l);
    AttentionGeom g;
    g.heads = g.kv_heads = s.heads;
    g.head_dim = s.hidden / s.heads;
    g.causal = false;
    b.attention(k + ".attn.attn", g, s.hidden);
    b.linear(k + ".attn.proj", s.hidden, s.hidden, l);
    b.residual(k + ".residual_attn", s.hidden);
    b.norm(k + ".norm2", s.hidden, NormKind::layernorm, Role::vision);
    mlp_block(b, {.prefix = k + ".mlp", .hidden = s.hidden, .intermediate = s.intermediate, .gated = false,
                  .bias = true, .act = s.act, .up = "linear_fc1", .down = "linear_fc2", .role = Role::vision});
    b.residual(k + ".residual_mlp", s.hidden);
    outputs.push_back(b.stream());
  }
  const ValueId last = b.stream();
  qwen3_merger(b, s, p + "merger", false, last);
  for (size_t i = 0; i < s.deepstack.size(); ++i)
    qwen3_merger(b, s, p + (s.omni_merger_names ? "merger_list." : "deepstack_merger_list.") + std::to_string(i), true,
                 outputs[size_t(s.deepstack[i])]);
}

QwenVisionSpec read_qwen3_vision(const Config& v, int64_t text_hidden) {
  // Qwen3VLVisionConfig defaults: depth=27, hidden_size=1152, hidden_act="gelu_pytorch_tanh",
  // intermediate_size=4304, num_heads=16, in_channels=3, patch_size=16, spatial_merge_size=2,
  // temporal_patch_size=2, out_hidden_size=3584, num_position_embeddings=2304,
  // deepstack_visual_indexes=[8, 16, 24].
  QwenVisionSpec s;
  s.prefix = "model.visual";
  s.hidden = v.positive_or({"hidden_size"}, 1152);
  s.depth = v.positive_or({"depth"}, 27);
  s.heads = v.positive_or({"num_heads"}, 16);
  s.intermediate = v.positive_or({"intermediate_size"}, 4304);
  s.out_hidden = v.positive_or({"out_hidden_size"}, text_hidden > 0 ? text_hidden : 3584);
  s.patch = v.positive_or({"patch_size"}, 16);
  s.temporal_patch = v.positive_or({"temporal_patch_size"}, 2);
  s.merge = v.positive_or({"spatial_merge_size"}, 2);
  s.channels = v.positive_or({"in_channels"}, 3);
  s.act = v.string_or("hidden_act", "gelu_pytorch_tanh");
  s.position_table = v.positive_or({"num_position_embeddings"}, 2304);
  s.deepstack = v.has("deepstack_visual_indexes") ? v.integer_list("deepstack_visual_indexes")
                                                  : std::vector<int64_t>{8, 16, 24};
  require(s.hidden % s.heads == 0, v, "num_heads", "the vision hidden_size must be divisible by num_heads.");
  for (int64_t k : s.deepstack)
    require(k >= 0 && k < s.depth, v, "deepstack_visual_indexes", "deepstack_visual_indexes must name blocks below depth.");
  plan_reference_image(s);  // 28 x 28 patches of 16 px = 784 patches, 196 tokens
  return s;
}

void rename_prefix(Model& m, const std::string& from, const std::string& to) {
  auto rename = [&](std::string& name) {
    if (name.rfind(from, 0) == 0) name = to + name.substr(from.size());
  };
  for (auto& t : m.tensors) {
    rename(t.name);
    if (!t.tied_to.empty()) rename(t.tied_to);
  }
  for (auto& t : m.buffers) rename(t.name);
  for (auto& x : m.stored_extras) {
    rename(x.tensor.name);
    if (!x.replaces.empty()) rename(x.replaces);
  }
  for (auto& blk : m.blocks) {
    rename(blk.name);
    for (auto& n : blk.nodes) rename(n.name);
  }
}

void append_renamed(ModelBuilder& b, Model sub, const std::string& from, const std::string& to) {
  rename_prefix(sub, from, to);
  append_model(b, sub, "", true);
}

QwenVisionSpec read_qwen2_5_vision(const Config& v, int64_t text_hidden) {
  // Qwen2_5_VLVisionConfig defaults: depth=32, hidden_size=3584, intermediate_size=3420, num_heads=16,
  // in_channels=3, patch_size=14, spatial_merge_size=2, temporal_patch_size=2, window_size=112,
  // fullatt_block_indexes=[7, 15, 23, 31], hidden_act="silu".
  QwenVisionSpec s;
  s.hidden = v.positive_or({"hidden_size"}, 3584);
  s.depth = v.positive_or({"depth"}, 32);
  s.heads = v.positive_or({"num_heads"}, 16);
  s.intermediate = v.positive_or({"intermediate_size"}, 3420);
  s.out_hidden = v.positive_or({"out_hidden_size"}, text_hidden);
  read_qwen2_patch_grid(v, s);  // before the window, which is counted in patches
  s.act = v.string_or("hidden_act", "silu");
  // window_size is in pixels: (window / patch)² patches per window (112 / 14 → 8 × 8 = 64).
  const int64_t side = v.positive_or({"window_size"}, 112) / s.patch;
  s.window = side * side;
  s.full_blocks = v.has("fullatt_block_indexes") ? v.integer_list("fullatt_block_indexes")
                                                 : std::vector<int64_t>{7, 15, 23, 31};
  require(s.hidden % s.heads == 0, v, "num_heads", "the vision hidden_size must be divisible by num_heads.");
  return s;
}

QwenVisionSpec read_qwen2_vision(const Config& v) {
  // Qwen2VLVisionConfig defaults: depth=32, embed_dim=1280, hidden_size=3584 (the merger's output),
  // hidden_act="quick_gelu", mlp_ratio=4, num_heads=16, in_channels=3, patch_size=14,
  // spatial_merge_size=2, temporal_patch_size=2. Qwen2VLVisionBlock: mlp_hidden_dim = int(embed_dim * mlp_ratio).
  QwenVisionSpec s;
  s.hidden = v.positive_or({"embed_dim"}, 1280);
  s.depth = v.positive_or({"depth"}, 32);
  s.heads = v.positive_or({"num_heads"}, 16);
  const double ratio = v.number_or("mlp_ratio", 4.0);
  require(ratio > 0 && double(s.hidden) * ratio < 1e15, v, "mlp_ratio", "mlp_ratio must be a positive number.");
  s.intermediate = int64_t(double(s.hidden) * ratio);
  require(s.intermediate > 0, v, "mlp_ratio", "mlp_ratio times embed_dim must be at least 1.");
  s.out_hidden = v.positive_or({"hidden_size"}, 3584);
  read_qwen2_patch_grid(v, s);
  s.act = v.string_or("hidden_act", "quick_gelu");
  s.norm = NormKind::layernorm;
  s.gated_mlp = false;
  require(s.hidden % s.heads == 0, v, "num_heads", "the vision embed_dim must be divisible by num_heads.");
  return s;
}

}  // namespace cardfit

// The GLM-OCR vision model (see glm_ocr_vision.hpp).
#include "glm_ocr_vision.hpp"

#include "blocks.hpp"
#include "vision.hpp"

namespace cardfit {

namespace {
// A patch Conv (stride = kernel) as one linear map per output position: not an nn.Linear.
void patch_conv(ModelBuilder& b, const std::string& name, std::vector<int64_t> weight, int64_t in, int64_t out) {
  Node n;
  n.name = name;
  n.op = Op::linear;
  n.detail = "patch_conv2d";
  n.linear = LinearKind::patch_conv;
  n.in = in;
  n.out = out;
  n.params = b.tensor(name + ".weight", std::move(weight), Role::vision) + b.tensor(name + ".bias", {out}, Role::vision);
  b.node(n);
}
}  // namespace

void glm_ocr_vision(ModelBuilder& b, const GlmOcrVisionSpec& s) {
  const std::string p = s.prefix + ".";
  const int64_t n = s.patches_per_image, head_dim = s.hidden / s.heads;
  const LinearSpec qkv_spec{.bias = s.bias, .role = Role::vision}, l{.bias = s.bias && !s.glm4v, .role = Role::vision};
  b.restart();  // the tower starts from pixels
  vision_block(b, p + "patch_embed", "vision_embedding", n, s.hidden);
  b.reads({});  // pixel values
  patch_conv(b, p + "patch_embed.proj", {s.hidden, s.channels, s.temporal_patch, s.patch, s.patch},
             s.channels * s.temporal_patch * s.patch * s.patch, s.hidden);
  if (s.glm4v) {  // the table is resized (bicubic) to each image's grid and added
    b.norm(p + "post_conv_layernorm", s.hidden, NormKind::rmsnorm, Role::vision);
    const int64_t side = s.image_size / s.patch;
    b.embedding(p + "embeddings.position_embedding", side * side, s.hidden, Role::position_embedding);
  }
  b.set_stream(b.cursor());  // the patch embeddings are the residual stream of block 0
  for (int64_t i = 0; i < s.depth; ++i) {
    const std::string k = p + "blocks." + std::to_string(i);
    vision_block(b, k, "vision_layer", n, s.hidden);
    b.norm(k + ".norm1", s.hidden, NormKind::rmsnorm, Role::vision);
    b.linear(k + ".attn.qkv", s.hidden, 3 * s.hidden, qkv_spec);
    const ValueId qkv = b.cursor();
    if (!s.glm4v) {
      // q_norm / k_norm: one RMSNorm weight [head_dim] shared by the heads, over q and k (views of qkv).
      ValueId qk[2];
      const char* names[2] = {".attn.q_norm", ".attn.k_norm"};
      for (int j = 0; j < 2; ++j) {
        b.read(qkv);
        b.norm(k + names[j], head_dim, NormKind::rmsnorm, Role::vision);
        b.model().blocks.back().nodes.back().qk_norm = QkNorm::whole;
        b.model().values[size_t(b.cursor())].width = s.hidden;
        qk[j] = b.cursor();
      }
      b.reads({qk[0], qk[1], qkv});
    }
    AttentionGeom g;
    g.heads = g.kv_heads = s.heads;
    g.head_dim = head_dim;
    g.causal = false;
    b.attention(k + ".attn.attn", g, s.hidden);
    b.linear(k + ".attn.proj", s.hidden, s.hidden, l);
    b.residual(k + ".residual_attn", s.hidden);
    b.norm(k + ".norm2", s.hidden, NormKind::rmsnorm, Role::vision);
    mlp_block(b, {.prefix = k + ".mlp", .hidden = s.hidden, .intermediate = s.glm4v ? s.out_hidden : s.intermediate,
                  .gated = true, .bias = l.bias, .act = s.act, .role = Role::vision});
    b.residual(k + ".residual_mlp", s.hidden);
  }
  vision_block(b, p + "post", "vision_final", n, s.hidden);
  b.norm(p + "post_layernorm", s.hidden, NormKind::rmsnorm, Role::vision);
  // downsample folds each merge × merge group of patches into one token of out_hidden features.
  const int64_t tokens = n / (s.merge * s.merge), context = s.glm4v ? s.intermediate : s.out_hidden * s.channels;
  vision_block(b, p + "merger", "projector", tokens, s.out_hidden);
  patch_conv(b, p + "downsample", {s.out_hidden, s.hidden, s.merge, s.merge}, s.hidden * s.merge * s.merge, s.out_hidden);
  b.linear(p + "merger.proj", s.out_hidden, s.out_hidden, {.bias = false, .role = Role::projector});
  b.norm(p + "merger.post_projection_norm", s.out_hidden, NormKind::layernorm, Role::projector);
  b.activation(p + "merger.act1", s.out_hidden, "gelu");
  mlp_block(b, {.prefix = p + "merger", .hidden = s.out_hidden, .intermediate = context, .gated = true, .bias = false,
                .act = s.act, .role = Role::projector});
}

GlmOcrVisionSpec glm4v_vision_defaults() {
  GlmOcrVisionSpec s;
  s.hidden = 1536, s.heads = 12, s.intermediate = 13696, s.out_hidden = 4096, s.bias = false, s.glm4v = true;
  return s;
}

GlmOcrVisionSpec read_glm_ocr_vision(const Config& v, GlmOcrVisionSpec s) {
  // GlmOcrVisionConfig defaults: depth=24, hidden_size=1024, hidden_act="silu", attention_bias=True,
  // num_heads=16, image_size=336, out_hidden_size=1536, intermediate_size=4096; Glm4vVisionConfig's:
  // in_channels=3, patch_size=14, spatial_merge_size=2, temporal_patch_size=2.
  s.hidden = v.positive_or({"hidden_size"}, s.hidden);
  s.depth = v.positive_or({"depth"}, s.depth);
  s.heads = v.positive_or({"num_heads"}, s.heads);
  s.intermediate = v.positive_or({"intermediate_size"}, s.intermediate);
  s.out_hidden = v.positive_or({"out_hidden_size"}, s.out_hidden);
  s.patch = v.positive_or({"patch_size"}, s.patch);
  s.temporal_patch = v.positive_or({"temporal_patch_size"}, s.temporal_patch);
  s.merge = v.positive_or({"spatial_merge_size"}, s.merge);
  s.channels = v.positive_or({"in_channels"}, s.channels);
  s.image_size = v.positive_or({"image_size"}, s.image_size);
  s.bias = v.boolean_or("attention_bias", s.bias);
  s.act = v.string_or("hidden_act", s.act);
  require(s.hidden % s.heads == 0, v, "num_heads", "the vision hidden_size must be divisible by num_heads.");
  require(s.image_size % (s.patch * s.merge) == 0, v, "image_size",
          "vision_config.image_size (" + std::to_string(s.image_size) + ") must be a multiple of patch_size × "
          "spatial_merge_size (" + std::to_string(s.patch * s.merge) + ").");
  const int64_t side = s.image_size / s.patch;
  s.patches_per_image = side * side;
  return s;
}

}  // namespace cardfit

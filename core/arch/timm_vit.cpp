// A timm VisionTransformer as DeepSeek-VL2 builds it (see timm_vit.hpp).
#include "timm_vit.hpp"

#include "blocks.hpp"
#include "vision.hpp"

namespace cardfit {

int64_t timm_vit_patches(const TimmVitSpec& s) {
  const int64_t side = s.image_size / s.patch;
  return checked_mul(side, side, "the vision patch count");
}

void timm_vit(ModelBuilder& b, const TimmVitSpec& s) {
  const std::string p = s.prefix + ".";
  const int64_t n = timm_vit_patches(s), w = s.width;
  const LinearSpec l{.bias = true, .role = Role::vision};
  b.restart();  // the tower starts from pixels
  vision_block(b, p + "patch_embed", "vision_embedding", n, w);
  Node patch;  // a Conv2d with stride = kernel: one linear map per patch
  patch.name = p + "patch_embed.proj";
  patch.op = Op::linear;
  patch.detail = "patch_conv2d";
  patch.linear = LinearKind::patch_conv;
  patch.in = s.channels * s.patch * s.patch;
  patch.out = w;
  patch.params = b.tensor(patch.name + ".weight", {w, s.channels, s.patch, s.patch}, Role::vision) +
                 b.tensor(patch.name + ".bias", {w}, Role::vision);
  b.reads({});  // pixel values
  b.node(patch);
  Node pos;  // pos_embed: a bare parameter [1, patches, width] added to the patches
  pos.name = p + "pos_embed";
  pos.op = Op::position_embedding;
  pos.in = pos.out = w;
  pos.params = b.tensor(pos.name, {1, n, w}, Role::vision);
  b.node(pos);
  b.set_stream(b.cursor());
  for (int64_t i = 0; i < s.layers; ++i) {
    const std::string k = p + "blocks." + std::to_string(i);
    vision_block(b, k, "vision_layer", n, w);
    b.norm(k + ".norm1", w, NormKind::layernorm, Role::vision);
    b.linear(k + ".attn.qkv", w, 3 * w, l);
    AttentionGeom g;
    g.heads = g.kv_heads = s.heads;
    g.head_dim = w / s.heads;
    g.causal = false;
    b.attention(k + ".attn.attn", g, w);
    b.linear(k + ".attn.proj", w, w, l);
    b.residual(k + ".residual_attn", w);
    b.norm(k + ".norm2", w, NormKind::layernorm, Role::vision);
    mlp_block(b, {.prefix = k + ".mlp", .hidden = w, .intermediate = s.mlp_hidden, .gated = false, .bias = true,
                  .act = "gelu_pytorch_tanh", .up = "fc1", .down = "fc2", .role = Role::vision});
    b.residual(k + ".residual_mlp", w);
  }
  vision_block(b, p + "post", "vision_final", n, w);
  b.norm(p + "norm", w, NormKind::layernorm, Role::vision);
  const ValueId features = b.cursor();
  if (s.map_pool) {
    // AttentionPoolLatent: built and stored, never run (ignore_head): its own block of no tokens
    // carries the parameters and costs nothing.
    const std::string a = p + "attn_pool.";
    vision_block(b, p + "attn_pool", "vision_final", 0, w);
    Node latent;
    latent.name = a + "latent";
    latent.op = Op::embedding;
    latent.in = 1;
    latent.out = w;
    latent.params = b.tensor(latent.name, {1, 1, w}, Role::vision);
    b.reads({});
    b.node(latent);
    b.linear(a + "q", w, w, l);
    b.read(features);
    b.linear(a + "kv", w, 2 * w, l);
    b.linear(a + "proj", w, w, l);
    b.norm(a + "norm", w, NormKind::layernorm, Role::vision);
    mlp_block(b, {.prefix = a + "mlp", .hidden = w, .intermediate = s.mlp_hidden, .gated = false, .bias = true,
                  .act = "gelu", .up = "fc1", .down = "fc2", .role = Role::vision});
    b.set_stream(features);  // the projector reads the normed patches, not the pool
  }
}

}  // namespace cardfit

// MoonViT3d and PatchMergerMLPV2 (see moonvit.hpp).
#include "moonvit.hpp"

#include "vision.hpp"

namespace cardfit {

void moonvit(ModelBuilder& b, const MoonVitSpec& s) {
  const int64_t n = s.patches_per_image;
  const LinearSpec l{.bias = false, .role = Role::vision};
  b.restart();  // the tower starts from pixels
  vision_block(b, "vision_tower.patch_embed", "vision_embedding", n, s.hidden);
  Node patch;  // a Conv2d with stride = kernel: one linear map per patch
  patch.name = "vision_tower.patch_embed.proj";
  patch.op = Op::linear;
  patch.detail = "patch_conv2d";
  patch.linear = LinearKind::patch_conv;
  patch.lora = false;
  patch.in = checked_mul(s.channels, checked_mul(s.patch, s.patch, "patch_size²"), "channels × patch_size²");
  patch.out = s.hidden;
  patch.params = b.tensor(patch.name + ".weight", {s.hidden, s.channels, s.patch, s.patch}, Role::vision);
  b.reads({});
  b.node(patch);
  Node pos;  // the stored grid, resized to the image's: added to the patches, the sum is the stream
  pos.name = "vision_tower.patch_embed.pos_emb";
  pos.op = Op::position_embedding;
  pos.in = pos.out = s.hidden;
  pos.params = b.tensor(pos.name + ".weight", {s.pos_height, s.pos_width, s.hidden}, Role::vision);
  b.node(pos);
  b.set_stream(b.cursor());  // the patches plus positions: block 0's residual stream

  const int64_t head_dim = s.qkv_hidden / s.heads;
  for (int64_t i = 0; i < s.layers; ++i) {
    const std::string p = "vision_tower.encoder.blocks." + std::to_string(i) + ".";
    vision_block(b, p.substr(0, p.size() - 1), "vision_layer", n, s.hidden);
    b.norm(p + "norm0", s.hidden, NormKind::rmsnorm, Role::vision);
    b.linear(p + "wqkv", s.hidden, checked_mul(3, s.qkv_hidden, "3 × qkv_hidden_size"), l);
    const ValueId qkv = b.cursor();
    AttentionGeom g;
    g.heads = g.kv_heads = s.heads;
    g.head_dim = head_dim;
    g.causal = false;
    g.qkv_features = checked_mul(3, s.qkv_hidden, "3 × qkv_hidden_size");
    b.reads({qkv, qkv, qkv});
    b.attention(p + "attn", g, s.qkv_hidden);
    b.linear(p + "wo", s.qkv_hidden, s.hidden, l);
    b.residual(p + "residual_attn", s.hidden);
    b.norm(p + "norm1", s.hidden, NormKind::rmsnorm, Role::vision);
    b.linear(p + "mlp.fc0", s.hidden, s.intermediate, l);
    b.activation(p + "mlp.act", s.intermediate, s.act);
    b.linear(p + "mlp.fc1", s.intermediate, s.hidden, l);
    b.residual(p + "residual_mlp", s.hidden);
  }
  vision_block(b, "vision_tower.encoder.final", "vision_final", n, s.hidden);
  b.norm("vision_tower.encoder.final_layernorm", s.hidden, NormKind::rmsnorm, Role::vision);

  // merge × merge neighbours concatenated into one token (a view), then the MLP and its norm.
  const int64_t merged = checked_mul(s.hidden, s.merge * s.merge, "the merged width");
  vision_block(b, "mm_projector", "projector", n / (s.merge * s.merge), merged);
  const LinearSpec proj{.bias = false, .role = Role::projector};
  b.linear("mm_projector.proj.0", merged, merged, proj);
  b.activation("mm_projector.proj.1", merged, "gelu");
  b.linear("mm_projector.proj.2", merged, s.text_hidden, proj);
  b.norm("mm_projector.post_norm", s.text_hidden, NormKind::rmsnorm, Role::projector);
}

}  // namespace cardfit

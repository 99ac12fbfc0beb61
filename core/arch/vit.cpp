// Google ViT and the CLIP/SigLIP text tower (see vit.hpp).
#include "vit.hpp"

#include "vision.hpp"

namespace cardfit {

int64_t google_vit_tokens(const GoogleVitSpec& s) {
  const int64_t side = s.image_size / s.patch_size;
  return side * side + 1;
}

void google_vit(ModelBuilder& b, const GoogleVitSpec& s) {
  const std::string p = s.prefix.empty() ? "" : s.prefix + ".";
  const int64_t tokens = google_vit_tokens(s), patches = tokens - 1;
  const LinearSpec l{.bias = true, .role = Role::vision};

  b.restart();  // the tower starts from pixels
  vision_block(b, p + "embeddings", "vision_embedding", tokens, s.hidden);
  Node cls;  // concatenated before the patches
  cls.name = p + "embeddings.cls_token";
  cls.op = Op::embedding;
  cls.in = 1;
  cls.out = s.hidden;
  cls.params = b.tensor(cls.name, {1, 1, s.hidden}, Role::vision);
  if (s.mask_token) cls.params += b.tensor(p + "embeddings.mask_token", {1, 1, s.hidden}, Role::vision);
  cls.tokens_per_image = 1;
  b.reads({});
  b.node(cls);
  Node patch;  // a Conv2d with stride = kernel: one linear map per patch
  patch.name = p + "embeddings.patch_embeddings.projection";
  patch.op = Op::linear;
  patch.detail = "patch_conv2d";
  patch.linear = LinearKind::patch_conv;
  patch.in = s.channels * s.patch_size * s.patch_size;
  patch.out = s.hidden;
  patch.tokens_per_image = patches;
  patch.params = b.tensor(patch.name + ".weight", {s.hidden, s.channels, s.patch_size, s.patch_size}, Role::vision) +
                 b.tensor(patch.name + ".bias", {s.hidden}, Role::vision);
  b.reads({});  // pixel values
  b.node(patch);
  Node pos;  // a bare parameter [1, tokens, hidden] added to the embeddings
  pos.name = p + "embeddings.position_embeddings";
  pos.op = Op::position_embedding;
  pos.in = pos.out = s.hidden;
  pos.params = b.tensor(pos.name, {1, tokens, s.hidden}, Role::vision);
  b.node(pos);
  b.set_stream(b.cursor());  // [cls; patches] + positions: the stream

  for (int64_t i = 0; i < s.layers; ++i) {
    const std::string n = p + "encoder.layer." + std::to_string(i);
    vision_block(b, n, "vision_layer", tokens, s.hidden);
    b.norm(n + ".layernorm_before", s.hidden, NormKind::layernorm, Role::vision);
    const LinearSpec qkv{.bias = s.qkv_bias, .role = Role::vision};
    const ValueId x = b.cursor();  // query, key and value all read the normed stream
    std::vector<ValueId> parts;
    for (const char* part : {"query", "key", "value"}) {
      b.read(x);
      b.linear(n + ".attention.attention." + part, s.hidden, s.hidden, qkv);
      parts.push_back(b.cursor());
    }
    b.reads(parts);
    AttentionGeom g;
    g.heads = g.kv_heads = s.heads;
    g.head_dim = s.hidden / s.heads;
    g.causal = false;
    b.attention(n + ".attention.attention.attn", g, s.hidden);
    b.linear(n + ".attention.output.dense", s.hidden, s.hidden, l);
    b.residual(n + ".residual_attn", s.hidden);
    b.norm(n + ".layernorm_after", s.hidden, NormKind::layernorm, Role::vision);
    mlp_block(b, {.prefix = n, .hidden = s.hidden, .intermediate = s.intermediate, .gated = false, .bias = true,
                  .act = s.act, .up = "intermediate.dense", .down = "output.dense", .role = Role::vision});
    b.residual(n + ".residual_mlp", s.hidden);
  }
  vision_block(b, p + "post", "vision_final", tokens, s.hidden);
  b.norm(p + "layernorm", s.hidden, NormKind::layernorm, Role::vision);
}

void text_tower(ModelBuilder& b, const TextTowerSpec& s) {
  const std::string p = s.prefix + ".";
  b.restart();  // token ids
  b.block(p + "embeddings", "embedding");
  token_embedding(b, p + "embeddings.token_embedding", s.vocab, s.hidden);
  b.embedding(p + "embeddings.position_embedding", s.positions, s.hidden, Role::position_embedding);
  for (int64_t i = 0; i < s.layers; ++i) {
    const std::string n = p + "encoder.layers." + std::to_string(i);
    b.block(n, "encoder_layer", int(i));
    b.norm(n + ".layer_norm1", s.hidden, NormKind::layernorm);
    attention_block(b, {.prefix = n + ".self_attn", .hidden = s.hidden, .heads = s.heads, .kv_heads = s.heads,
                        .head_dim = s.hidden / s.heads, .q_bias = true, .k_bias = true, .v_bias = true,
                        .o_bias = true, .o = "out_proj", .causal = false});
    b.residual(n + ".residual_attn", s.hidden);
    b.norm(n + ".layer_norm2", s.hidden, NormKind::layernorm);
    mlp_block(b, {.prefix = n + ".mlp", .hidden = s.hidden, .intermediate = s.intermediate, .gated = false,
                  .bias = true, .act = s.act, .up = "fc1", .down = "fc2"});
    b.residual(n + ".residual_mlp", s.hidden);
  }
  b.block(p + "final", "final");
  b.norm(p + "final_layer_norm", s.hidden, NormKind::layernorm);
  if (s.head_out > 0) b.linear(p + "head", s.hidden, s.head_out, {.bias = true, .lora = false, .role = Role::head});
}

}  // namespace cardfit

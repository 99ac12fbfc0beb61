// The Pixtral vision encoder and Mistral 3's projector (see pixtral.hpp).
#include "pixtral.hpp"

#include <nlohmann/json.hpp>

#include "blocks.hpp"
#include "vision.hpp"

namespace cardfit {

void pixtral_vision(ModelBuilder& b, const PixtralSpec& s, int64_t text_hidden) {
  const int64_t side = s.image_size / s.patch, n = checked_mul(side, side, "patches per image"), h = s.hidden;
  const int64_t tokens = (side / s.merge) * (side / s.merge);  // at most n
  b.restart();  // the tower starts from pixels
  vision_block(b, "vision_tower.patch_conv", "vision_embedding", n, h);
  Node patch{.name = "vision_tower.patch_conv", .op = Op::linear, .detail = "patch_conv2d",
             .in = checked_mul(s.channels, checked_mul(s.patch, s.patch, "patch_size²"), "patch pixels"), .out = h,
             .params = b.tensor("vision_tower.patch_conv.weight", {h, s.channels, s.patch, s.patch}, Role::vision)};
  patch.linear = LinearKind::patch_conv;  // a Conv2d with stride = kernel: not an nn.Linear
  b.reads({});  // pixel values
  b.node(std::move(patch));
  b.norm("vision_tower.ln_pre", h, NormKind::rmsnorm, Role::vision);
  b.set_stream(b.cursor());
  const LinearSpec l{.role = Role::vision};
  for (int64_t i = 0; i < s.layers; ++i) {
    const std::string k = "vision_tower.transformer.layers." + std::to_string(i);
    vision_block(b, k, "vision_layer", n, h);
    b.norm(k + ".attention_norm", h, NormKind::rmsnorm, Role::vision);
    const ValueId x = b.cursor();  // q, k and v read the normed stream
    std::vector<ValueId> qkv;
    for (const char* proj : {"q_proj", "k_proj", "v_proj"}) {
      b.read(x);
      b.linear(k + ".attention." + proj, h, h, l);
      qkv.push_back(b.cursor());
    }
    b.reads(qkv);
    b.attention(k + ".attention.attn", {.heads = s.heads, .kv_heads = s.heads, .head_dim = h / s.heads, .causal = false}, h);
    b.linear(k + ".attention.o_proj", h, h, l);
    b.residual(k + ".residual_attn", h);
    b.norm(k + ".ffn_norm", h, NormKind::rmsnorm, Role::vision);
    mlp_block(b, {.prefix = k + ".feed_forward", .hidden = h, .intermediate = s.intermediate, .act = s.act,
                  .role = Role::vision});
    b.residual(k + ".residual_mlp", h);
  }
  // The projector: its norm runs on every patch, the merger and MLP on merged tokens.
  const std::string p = "multi_modal_projector.";
  const int64_t in = checked_mul(h, s.feature_layers, "the vision hidden_size × feature layers");
  const int64_t merged = checked_mul(in, checked_mul(s.merge, s.merge, "spatial_merge_size²"), "the merged patch width");
  vision_block(b, "multi_modal_projector", "projector", tokens, in);
  b.norm(p + "norm", in, NormKind::rmsnorm, Role::projector);
  b.model().blocks.back().nodes.back().tokens_per_image = n;
  b.linear(p + "patch_merger.merging_layer", merged, in, {.role = Role::projector});
  b.linear(p + "linear_1", in, text_hidden, {.bias = s.projector_bias, .role = Role::projector});
  b.activation(p + "act", text_hidden, s.projector_act);
  b.linear(p + "linear_2", text_hidden, text_hidden, {.bias = s.projector_bias, .role = Role::projector});
}

PixtralSpec read_pixtral(const Config& c) {
  PixtralSpec s;
  if (c.has("vision_config")) {
    const Config v = c.child("vision_config");
    const std::string type = v.string_or("model_type", "pixtral");
    require(type == "pixtral", v, "model_type", "vision_config.model_type \"" + type + "\" is not a Pixtral tower.");
    // PixtralVisionConfig defaults (the class's, where vision_config is given).
    s.hidden = v.positive_or({"hidden_size"}, 1024);
    s.layers = v.positive_or({"num_hidden_layers"}, 24);
    s.heads = v.positive_or({"num_attention_heads"}, 16);
    s.intermediate = v.positive_or({"intermediate_size"}, 4096);
    s.patch = v.positive_or({"patch_size"}, 16);
    s.image_size = v.positive_or({"image_size"}, 1024);
    s.channels = v.positive_or({"num_channels"}, 3);
    s.act = v.string_or("hidden_act", "gelu");
    require(s.hidden % s.heads == 0, v, "num_attention_heads", "vision_config.hidden_size must be divisible by num_attention_heads.");
    require(s.image_size >= s.patch, v, "image_size", "vision_config.image_size must be at least one patch_size.");
  }
  s.merge = c.positive_or({"spatial_merge_size"}, 2);
  if (c.has("vision_feature_layer") && c.raw().at("vision_feature_layer").is_array())
    s.feature_layers = int64_t(c.integer_list("vision_feature_layer").size());
  require(s.feature_layers > 0, c, "vision_feature_layer", "vision_feature_layer lists no layer.");
  s.projector_bias = c.boolean_or("multimodal_projector_bias", false);
  s.projector_act = c.string_or("projector_hidden_act", "gelu");
  require(s.image_size / s.patch >= s.merge, c, "spatial_merge_size", "spatial_merge_size exceeds the patches per image side.");
  return s;
}

}  // namespace cardfit

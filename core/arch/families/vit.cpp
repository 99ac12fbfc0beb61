// ViT (transformers models/vit/modeling_vit.py): the Google ViT encoder (vit.hpp google_vit) and the
// head of architectures[0]: ViTForImageClassification ("vit." prefix, no pooler, classifier
// [num_labels, hidden] on the class token), ViTModel (no prefix, pooler.dense [pooler_output_size,
// hidden] + pooler_act, as the published in21k checkpoints store it). Planned per image: each
// sample carries `images` images (default 1) of (image_size / patch_size)^2 + 1 tokens.
#include "../encoders.hpp"
#include "../vit.hpp"
#include "../vision.hpp"
#include "../layers.hpp"
#include "families.hpp"

namespace cardfit::families {

Model vit(const Config& c) {
  ModelBuilder b("vit", "vit");
  // ViTConfig defaults: hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
  // intermediate_size=3072, hidden_act="gelu", image_size=224, patch_size=16, num_channels=3,
  // qkv_bias=True, pooler_output_size=None (hidden_size), pooler_act="tanh".
  const std::string arch = first_architecture(c);
  const bool classify = arch.ends_with("ForImageClassification");
  GoogleVitSpec s{.prefix = classify ? "vit" : "", .hidden = c.positive_or({"hidden_size"}, 768),
                  .layers = c.positive_or({"num_hidden_layers"}, 12), .heads = c.positive_or({"num_attention_heads"}, 12),
                  .intermediate = c.positive_or({"intermediate_size"}, 3072),
                  .image_size = c.positive_or({"image_size"}, 224), .patch_size = c.positive_or({"patch_size"}, 16),
                  .channels = c.positive_or({"num_channels"}, 3), .qkv_bias = c.boolean_or("qkv_bias", true),
                  .act = c.string_or("hidden_act", "gelu")};
  require(s.hidden % s.heads == 0, c, "num_attention_heads", "hidden_size must be divisible by num_attention_heads.");
  require(s.image_size % s.patch_size == 0, c, "patch_size", "image_size must be a multiple of patch_size.");
  b.dims() = Dims{.hidden = s.hidden, .layers = s.layers, .heads = s.heads, .kv_heads = s.heads,
                  .head_dim = s.hidden / s.heads, .intermediate = s.intermediate,
                  .max_positions = google_vit_tokens(s), .encoder_only = true,
                  .initializer_range = c.number_or("initializer_range", 0.02)};
  google_vit(b, s);
  // The head reads the class token: one token per image.
  const size_t first = b.model().blocks.back().nodes.size();
  if (classify) {
    head_linear(b, "classifier", s.hidden, num_labels(c, 2));
  } else {
    const int64_t pooled = c.positive_or({"pooler_output_size"}, s.hidden);
    b.linear("pooler.dense", s.hidden, pooled, {.bias = true, .lora = false, .role = Role::head});
    b.activation("pooler.activation", pooled, c.string_or("pooler_act", "tanh"));
  }
  auto& nodes = b.model().blocks.back().nodes;
  for (size_t i = first; i < nodes.size(); ++i) nodes[i].tokens_per_image = 1;
  return b.finish();
}

}  // namespace cardfit::families

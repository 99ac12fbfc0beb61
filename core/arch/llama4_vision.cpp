// The Llama 4 vision model and projector (see llama4_vision.hpp).
#include "llama4_vision.hpp"

#include <cmath>

#include "blocks.hpp"
#include "vision.hpp"

namespace cardfit {

void llama4_vision(ModelBuilder& b, const Llama4VisionSpec& s, int64_t text_hidden) {
  const std::string p = "vision_model.";
  const int64_t side = s.image_size / s.patch, patches = checked_mul(side, side, "patches per image");
  const int64_t tokens = patches + 1, h = s.hidden;  // + the class token
  const int64_t fold = checked_mul(s.shuffle_denominator, s.shuffle_denominator, "the pixel shuffle");
  const LinearSpec l{.bias = true, .role = Role::vision};

  b.restart();  // the tower starts from pixels
  vision_block(b, p + "patch_embedding", "vision_embedding", tokens, h);
  b.reads({});  // unfolded pixel patches: Llama4UnfoldConvolution's nn.Linear
  b.linear(p + "patch_embedding.linear",
           checked_mul(s.channels, checked_mul(s.patch, s.patch, "patch_size²"), "patch pixels"), h, {.role = Role::vision});
  b.model().blocks.back().nodes.back().tokens_per_image = patches;
  const ValueId patch_out = b.cursor();
  Node cls{.name = p + "class_embedding", .op = Op::embedding, .in = 1, .out = h,
           .params = b.tensor(p + "class_embedding", {h}, Role::vision)};
  cls.tokens_per_image = 1;
  b.reads({});
  b.node(std::move(cls));
  b.reads({patch_out, b.cursor()});  // [patches; cls] + positions
  b.node({.name = p + "positional_embedding_vlm", .op = Op::position_embedding, .in = h, .out = h,
          .params = b.tensor(p + "positional_embedding_vlm", {tokens, h}, Role::vision)});
  b.norm(p + "layernorm_pre", h, NormKind::layernorm, Role::vision);
  b.set_stream(b.cursor());

  for (int64_t i = 0; i < s.layers; ++i) {
    const std::string k = p + "model.layers." + std::to_string(i);
    vision_block(b, k, "vision_layer", tokens, h);
    b.norm(k + ".input_layernorm", h, NormKind::layernorm, Role::vision);
    const ValueId x = b.cursor();  // q, k and v read the normed stream
    std::vector<ValueId> qkv;
    for (const char* proj : {"q_proj", "k_proj", "v_proj"}) {
      b.read(x);
      b.linear(k + ".self_attn." + proj, h, h, l);
      qkv.push_back(b.cursor());
    }
    b.reads(qkv);
    b.attention(k + ".self_attn.attn", {.heads = s.heads, .kv_heads = s.heads, .head_dim = h / s.heads, .causal = false}, h);
    b.linear(k + ".self_attn.o_proj", h, h, l);
    b.residual(k + ".residual_attn", h);
    b.norm(k + ".post_attention_layernorm", h, NormKind::layernorm, Role::vision);
    mlp_block(b, {.prefix = k + ".mlp", .hidden = h, .intermediate = s.intermediate, .gated = false, .bias = true,
                  .act = s.act, .up = "fc1", .down = "fc2", .role = Role::vision});
    b.residual(k + ".residual_mlp", h);
  }
  vision_block(b, p + "post", "vision_final", tokens, h);
  b.norm(p + "layernorm_post", h, NormKind::layernorm, Role::vision);
  b.set_stream(b.cursor());  // the adapter reads the normed patches

  // The class token dropped, the pixel shuffle folds fold patches into one token (a view, no op).
  const int64_t shuffled = patches / fold;
  vision_block(b, p + "vision_adapter", "projector", shuffled, s.intermediate);
  b.linear(p + "vision_adapter.mlp.fc1", s.intermediate, s.projector_in, {.role = Role::vision});
  b.activation(p + "vision_adapter.mlp.act1", s.projector_in, "gelu");
  b.linear(p + "vision_adapter.mlp.fc2", s.projector_out, s.projector_out, {.role = Role::vision});
  b.activation(p + "vision_adapter.mlp.act2", s.projector_out, "gelu");
  b.set_stream(b.cursor());
  vision_block(b, "multi_modal_projector", "projector", shuffled, s.output_dim);
  b.linear("multi_modal_projector.linear_1", s.output_dim, text_hidden, {.role = Role::projector});
}

Llama4VisionSpec read_llama4_vision(const Config& v) {
  Llama4VisionSpec s;
  s.hidden = v.positive_or({"hidden_size"}, s.hidden);
  s.layers = v.count_or({"num_hidden_layers"}, s.layers);
  s.heads = v.positive_or({"num_attention_heads"}, s.heads);
  s.intermediate = v.positive_or({"intermediate_size"}, s.intermediate);
  s.channels = v.positive_or({"num_channels"}, s.channels);
  s.image_size = v.positive_or({"image_size"}, s.image_size);
  s.patch = v.positive_or({"patch_size"}, s.patch);
  s.projector_in = v.positive_or({"projector_input_dim"}, s.projector_in);
  s.projector_out = v.positive_or({"projector_output_dim"}, s.projector_out);
  s.output_dim = v.positive_or({"vision_output_dim"}, s.output_dim);
  require(s.hidden % s.heads == 0, v, "num_attention_heads", "vision_config.hidden_size must be divisible by num_attention_heads.");
  require(s.image_size >= s.patch, v, "image_size", "vision_config.image_size must be at least one patch_size.");
  // pixel_shuffle needs 1 / ratio to be a whole number that divides the patch grid's side.
  const double ratio = v.number_or("pixel_shuffle_ratio", 0.5);
  const double inverse = ratio > 0 ? 1.0 / ratio : 0;
  const int64_t d = int64_t(std::llround(inverse));
  require(d >= 1 && std::abs(inverse - double(d)) < 1e-9 && (s.image_size / s.patch) % d == 0, v, "pixel_shuffle_ratio",
          "vision_config.pixel_shuffle_ratio must be 1 / n for an n that divides the patches per image side.");
  s.shuffle_denominator = d;
  // Llama4VisionMLP2.fc1 reads intermediate_size features: what the shuffle makes of hidden_size.
  require(s.intermediate == s.hidden * d * d, v, "intermediate_size",
          "vision_config.intermediate_size (" + std::to_string(s.intermediate) + ") must equal hidden_size / "
          "pixel_shuffle_ratio² (" + std::to_string(s.hidden * d * d) + "): the vision adapter's fc1 reads the shuffled patches.");
  // Llama4VisionMLP2.fc2 is [projector_output_dim, projector_output_dim] after fc1's projector_input_dim.
  require(s.projector_in == s.projector_out, v, "projector_output_dim",
          "vision_config.projector_output_dim must equal projector_input_dim (the adapter's fc2 reads fc1's output).");
  require(s.output_dim == s.projector_out, v, "vision_output_dim",
          "vision_config.vision_output_dim must equal projector_output_dim (the projector reads the adapter's output).");
  return s;
}

}  // namespace cardfit

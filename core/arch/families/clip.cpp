// CLIP (transformers models/clip/modeling_clip.py, CLIPModel) and SigLIP (models/siglip/
// modeling_siglip.py, SiglipModel): a text tower (vit.hpp text_tower, "text_model.") and a vision
// tower (vision.hpp vit_encoder, "vision_model."), then CLIP's bias-free visual_projection /
// text_projection [projection_dim, hidden] and its scalar logit_scale, or SigLIP's text head (inside
// text_model), vision attention-pooling head and logit_scale [1] + logit_bias [1]. The text tower is
// planned over the sequence (its context is max_position_embeddings: CLIP 77, SigLIP 64), the
// vision tower over `images` images per sample.
#include "../encoders.hpp"
#include "../vision.hpp"
#include "../vit.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
// A scalar (or [1]) learned parameter used on the similarity logits.
void logit_param(ModelBuilder& b, const std::string& name, Shape shape) {
  Node n;
  n.name = name;
  n.op = Op::other;
  n.detail = "logit_scale";
  n.params = b.tensor(name, std::move(shape), Role::head);
  b.reads({});
  b.node(n);
}
}  // namespace

Model clip(const Config& c) {
  const std::string type = c.string_or("model_type", "clip");
  const bool siglip = type == "siglip";
  ModelBuilder b(type, "clip");
  // CLIPTextConfig defaults: vocab_size=49408, hidden_size=512, intermediate_size=2048, 12 layers,
  // 8 heads, max_position_embeddings=77, hidden_act="quick_gelu"; CLIPConfig projection_dim=512,
  // logit_scale_init_value=2.6592. SiglipTextConfig: vocab_size=32000, hidden_size=768,
  // intermediate_size=3072, 12 layers, 12 heads, max_position_embeddings=64,
  // hidden_act="gelu_pytorch_tanh", projection_size=hidden_size.
  const Config text = child_or_empty(c, "text_config");
  TextTowerSpec t{.prefix = "text_model", .vocab = text.positive_or({"vocab_size"}, siglip ? 32000 : 49408),
                  .hidden = text.positive_or({"hidden_size"}, siglip ? 768 : 512),
                  .layers = text.positive_or({"num_hidden_layers"}, 12),
                  .heads = text.positive_or({"num_attention_heads"}, siglip ? 12 : 8),
                  .intermediate = text.positive_or({"intermediate_size"}, siglip ? 3072 : 2048),
                  .positions = text.positive_or({"max_position_embeddings"}, siglip ? 64 : 77),
                  .act = text.string_or("hidden_act", siglip ? "gelu_pytorch_tanh" : "quick_gelu")};
  require(t.hidden % t.heads == 0, text, "num_attention_heads", "hidden_size must be divisible by num_attention_heads.");
  if (siglip) t.head_out = text.positive_or({"projection_size"}, t.hidden);
  const VitSpec v = read_vit(child_or_empty(c, "vision_config"), siglip ? "siglip_vision_model" : "clip_vision_model",
                             "vision_model");
  const int64_t proj = c.positive_or({"projection_dim"}, 512);
  b.dims() = Dims{.hidden = t.hidden, .layers = t.layers, .heads = t.heads, .kv_heads = t.heads,
                  .head_dim = t.hidden / t.heads, .intermediate = t.intermediate, .vocab = t.vocab,
                  .max_positions = t.positions, .tied_embeddings = false, .encoder_only = true,
                  .initializer_range = text.number_or("initializer_range", 0.02)};
  b.note("The text tower's attention is " + std::string(siglip ? "bidirectional" : "causal-masked") +
         " and runs once per text: no KV cache; planned at the sequence length (its context is " +
         std::to_string(t.positions) + " tokens).");

  text_tower(b, t);
  const ValueId text_out = b.cursor();
  position_ids_buffer(b, c, "text_model.embeddings.position_ids", t.positions);
  vit_encoder(b, v);
  const ValueId vision_out = b.cursor();
  position_ids_buffer(b, c, "vision_model.embeddings.position_ids", vit_tokens(v));
  b.block("heads", "final");
  if (siglip) {
    logit_param(b, "logit_scale", {1});
    logit_param(b, "logit_bias", {1});
  } else {
    b.read(text_out);
    b.linear("text_projection", t.hidden, proj, {.bias = false, .lora = false, .role = Role::head});
    Node vp;  // reads the vision tower's pooled class token, not the text stream
    vp.name = "visual_projection";
    vp.op = Op::linear;
    vp.in = v.hidden;
    vp.out = proj;
    vp.params = b.tensor("visual_projection.weight", {proj, v.hidden}, Role::head, true);
    b.read(vision_out);
    b.node(vp);
    logit_param(b, "logit_scale", {});
  }
  return b.finish();
}

}  // namespace cardfit::families

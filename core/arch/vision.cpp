// Vision towers, projectors and language-model grafting (see vision.hpp).
#include "vision.hpp"

#include <nlohmann/json.hpp>

#include "../error.hpp"
#include "blocks.hpp"

namespace cardfit {

namespace {
// Bidirectional self-attention with biased q/k/v/out projections, as CLIP and SigLIP have it.
void vit_attention(ModelBuilder& b, const std::string& prefix, int64_t hidden, int64_t heads) {
  const std::string p = prefix + ".";
  const LinearSpec l{.bias = true, .role = Role::vision};
  const ValueId x = b.cursor();
  std::vector<ValueId> qkv;
  for (const char* proj : {"q_proj", "k_proj", "v_proj"}) {
    b.read(x);
    b.linear(p + proj, hidden, hidden, l);
    qkv.push_back(b.cursor());
  }
  AttentionGeom g;
  g.heads = g.kv_heads = heads;
  g.head_dim = hidden / heads;
  g.causal = false;
  b.reads(qkv);
  b.attention(p + "attn", g, hidden);
  b.linear(p + "out_proj", hidden, hidden, l);
}

void vit_mlp(ModelBuilder& b, const std::string& prefix, int64_t hidden, int64_t inner, const std::string& act) {
  mlp_block(b, {.prefix = prefix, .hidden = hidden, .intermediate = inner, .gated = false, .bias = true,
                .act = act, .up = "fc1", .down = "fc2", .role = Role::vision});
}

}  // namespace

void vision_block(ModelBuilder& b, std::string name, std::string kind, int64_t tokens_per_image, int64_t width,
                  Domain domain) {
  b.block(std::move(name), std::move(kind), -1);
  Block& blk = b.model().blocks.back();
  blk.domain = domain;
  blk.tokens_per_image = tokens_per_image;
  blk.width = width;
}

int64_t vit_patches(const VitSpec& s) {
  const int64_t side = s.image_size / s.patch_size;
  return checked_mul(side, side, "the vision patch count");
}

int64_t vit_tokens(const VitSpec& s) { return vit_patches(s) + (s.class_token ? 1 : 0); }

void vit_encoder(ModelBuilder& b, const VitSpec& s) {
  const std::string p = s.prefix + ".";
  const int64_t patches = vit_patches(s), tokens = vit_tokens(s);

  b.restart();  // the tower starts from pixels, not from any stream built before it
  vision_block(b, p + "embeddings", "vision_embedding", tokens, s.hidden);
  if (s.class_token) {
    Node cls;
    cls.name = p + "embeddings.class_embedding";
    cls.op = Op::embedding;
    cls.in = 1;
    cls.out = s.hidden;
    cls.params = b.tensor(cls.name, {s.hidden}, Role::vision);
    cls.tokens_per_image = 1;
    b.reads({});
    b.node(cls);
  }
  Node patch;  // a Conv2d with stride = kernel (SigLIP2: an nn.Linear): one linear map per patch
  patch.name = p + "embeddings.patch_embedding";
  patch.op = Op::linear;
  patch.detail = s.patch_linear ? "patch_linear" : "patch_conv2d";
  patch.linear = s.patch_linear ? LinearKind::module : LinearKind::patch_conv;
  patch.lora = s.patch_linear;  // an nn.Linear is a LoRA target like the tower's other linears
  patch.in = checked_mul(s.channels, checked_mul(s.patch_size, s.patch_size, "patch_size²"), "num_channels × patch_size²");
  patch.out = s.hidden;
  if (s.class_token) patch.tokens_per_image = patches;  // the class token is concatenated after the conv
  patch.params = s.patch_linear ? b.tensor(patch.name + ".weight", {s.hidden, patch.in}, Role::vision)
                                 : b.tensor(patch.name + ".weight", {s.hidden, s.channels, s.patch_size, s.patch_size}, Role::vision);
  if (s.patch_bias) patch.params += b.tensor(patch.name + ".bias", {s.hidden}, Role::vision);
  b.reads({});  // pixel values
  b.node(patch);
  // The position table is added to the patches (and class token): the sum is the stream.
  b.embedding(p + "embeddings.position_embedding", s.position_table > 0 ? s.position_table : patches + (s.class_token ? 1 : 0),
              s.hidden, Role::vision);
  if (!s.pre_norm.empty()) b.norm(p + s.pre_norm, s.hidden, s.norm, Role::vision);

  for (int64_t i = 0; i < s.layers; ++i) {
    const std::string l = p + "encoder.layers." + std::to_string(i) + ".";
    vision_block(b, l.substr(0, l.size() - 1), "vision_layer", tokens, s.hidden);
    b.norm(l + "layer_norm1", s.hidden, s.norm, Role::vision);
    vit_attention(b, l + "self_attn", s.hidden, s.heads);
    b.residual(l + "residual_attn", s.hidden);
    b.norm(l + "layer_norm2", s.hidden, s.norm, Role::vision);
    vit_mlp(b, l + "mlp", s.hidden, s.intermediate, s.act);
    b.residual(l + "residual_mlp", s.hidden);
  }

  vision_block(b, p + "post", "vision_final", tokens, s.hidden);
  if (s.post_norm) {
    b.norm(p + "post_layernorm", s.hidden, s.norm, Role::vision);
    // CLIPVisionTransformer normalises only the pooled class token (last_hidden_state[:, 0]);
    // SigLIP normalises every patch.
    if (s.class_token) b.model().blocks.back().nodes.back().tokens_per_image = 1;
  }
  if (s.pooling_head) {
    const size_t head_first = b.model().blocks.back().nodes.size();
    // SiglipMultiheadAttentionPoolingHead: a learned probe attends over the patches (torch's
    // nn.MultiheadAttention stores q/k/v as one in_proj), then a LayerNorm and an MLP.
    const std::string h = p + "head.";
    const ValueId patches_out = b.cursor();  // post_layernorm's output: the keys and values
    Node probe;
    probe.name = h + "probe";
    probe.op = Op::embedding;
    probe.in = 1;
    probe.out = s.hidden;
    probe.params = b.tensor(probe.name, {1, 1, s.hidden}, Role::vision);
    b.reads({});
    b.node(probe);
    b.set_stream(patches_out);  // the probe is the query, not the stream
    // in_proj_weight is a bare parameter of nn.MultiheadAttention, not an nn.Linear: PEFT's
    // all-linear does not adapt it and bitsandbytes does not quantize it (its out_proj is a Linear).
    b.linear(h + "attention", s.hidden, checked_mul(3, s.hidden, "3 × the vision hidden_size"),
             {.bias = true, .lora = false, .role = Role::vision, .kind = LinearKind::parameter,
              .weight = "in_proj_weight", .bias_name = "in_proj_bias"});
    b.model().blocks.back().nodes.back().detail = "parameter_matmul";
    b.read(b.cursor());  // q, k and v are views of the one in-projection
    AttentionGeom g;
    g.heads = g.kv_heads = s.heads;
    g.head_dim = s.hidden / s.heads;
    g.causal = false;
    b.attention(h + "attention.attn", g, s.hidden);
    b.linear(h + "attention.out_proj", s.hidden, s.hidden, {.bias = true, .role = Role::vision});
    b.norm(h + "layernorm", s.hidden, s.norm, Role::vision);
    vit_mlp(b, h + "mlp", s.hidden, s.intermediate, s.act);
    // The probe is one query: everything after the in-projection (which also projects the keys
    // and values of every patch) runs on one token per image.
    auto& nodes = b.model().blocks.back().nodes;
    for (size_t i = head_first; i < nodes.size(); ++i)
      if (nodes[i].name != h + "attention") nodes[i].tokens_per_image = 1;
  }
}

VitSpec read_vit(const Config& v, const std::string& default_type, const std::string& prefix) {
  const std::string type = v.string_or("model_type", default_type);
  VitSpec s;
  s.prefix = prefix;
  if (type == "clip_vision_model") {
    // CLIPVisionConfig defaults.
    s.hidden = v.positive_or({"hidden_size"}, 768);
    s.intermediate = v.positive_or({"intermediate_size"}, 3072);
    s.layers = v.positive_or({"num_hidden_layers"}, 12);
    s.heads = v.positive_or({"num_attention_heads"}, 12);
    s.channels = v.positive_or({"num_channels"}, 3);
    s.image_size = v.positive_or({"image_size"}, 224);
    s.patch_size = v.positive_or({"patch_size"}, 32);
    s.act = v.string_or("hidden_act", "quick_gelu");
    s.class_token = true;
    s.patch_bias = false;
    s.pre_norm = "pre_layrnorm";
  } else if (type == "siglip_vision_model") {
    // SiglipVisionConfig defaults; SiglipVisionTransformer adds the pooling head unless
    // vision_use_head is false.
    s.hidden = v.positive_or({"hidden_size"}, 768);
    s.intermediate = v.positive_or({"intermediate_size"}, 3072);
    s.layers = v.positive_or({"num_hidden_layers"}, 12);
    s.heads = v.positive_or({"num_attention_heads"}, 12);
    s.channels = v.positive_or({"num_channels"}, 3);
    s.image_size = v.positive_or({"image_size"}, 224);
    s.patch_size = v.positive_or({"patch_size"}, 16);
    s.act = v.string_or("hidden_act", "gelu_pytorch_tanh");
    s.pooling_head = v.boolean_or("vision_use_head", true);
  } else {
    throw Error(ErrorCode::field_range,
                "vision tower model_type \"" + type.substr(0, 60) + "\" is not supported; cardfit traces "
                "\"clip_vision_model\" and \"siglip_vision_model\" vision towers.",
                v.path_of("model_type"));
  }
  // A tower with none of its dimensions stated is no tower description at all: the class defaults
  // would describe some other tower (and plan it with confidence). A partial one takes the class
  // defaults for the rest, as transformers does.
  bool any = false;
  for (const char* key : {"hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads", "image_size", "patch_size"})
    any = any || v.has(key);
  if (!any)
    throw Error(ErrorCode::field_missing,
                "The vision tower at " + v.path() + " states none of its dimensions (hidden_size, intermediate_size, "
                "num_hidden_layers, num_attention_heads, image_size, patch_size).",
                v.path_of("hidden_size"));
  require(s.hidden % s.heads == 0, v, "num_attention_heads",
          "the vision hidden_size (" + std::to_string(s.hidden) + ") must be divisible by num_attention_heads (" +
              std::to_string(s.heads) + ").");
  require(s.image_size % s.patch_size == 0, v, "patch_size",
          "the vision image_size (" + std::to_string(s.image_size) + ") must be a multiple of patch_size (" +
              std::to_string(s.patch_size) + ").");
  return s;
}

void read_vit_dims(const Config& v, const VitDefaults& d, VitSpec& s) {
  s.hidden = v.positive_or({"hidden_size"}, d.hidden);
  s.intermediate = v.positive_or({"intermediate_size"}, d.intermediate);
  s.layers = v.positive_or({"num_hidden_layers"}, d.layers);
  s.heads = v.positive_or({"num_attention_heads"}, d.heads);
  s.channels = v.positive_or({"num_channels"}, d.channels);
  s.patch_size = v.positive_or({"patch_size"}, d.patch_size);
  s.act = v.string_or("hidden_act", d.act);
  require(s.hidden % s.heads == 0, v, "num_attention_heads",
          "the vision hidden_size (" + std::to_string(s.hidden) + ") must be divisible by num_attention_heads (" +
              std::to_string(s.heads) + ").");
}

void mlp_projector(ModelBuilder& b, const MlpProjectorSpec& s) {
  const std::string p = s.prefix + ".";
  vision_block(b, s.prefix, "projector", s.tokens_per_image, s.in);
  b.linear(p + s.first, s.in, s.hidden, {.bias = s.bias, .role = Role::projector});
  b.activation(p + "act", s.hidden, s.act);
  b.linear(p + s.second, s.hidden, s.out, {.bias = s.bias, .role = Role::projector});
}

void matrix_projector(ModelBuilder& b, const MatrixProjectorSpec& s) {
  const std::string p = s.prefix + ".";
  // Runs on the pooled tokens; the pool reads the tower's output (the previous block's tokens).
  vision_block(b, s.prefix, "projector", s.tokens_per_image, s.in);
  Node pool;
  pool.name = p + "avg_pool";
  pool.op = Op::other;
  pool.detail = "avg_pool2d";
  pool.in = pool.out = s.in;
  b.node(pool);
  b.norm(p + s.norm, s.in, NormKind::rmsnorm, Role::projector);
  Node proj;  // a bare nn.Parameter [in, out] used as x @ W: listed as stored, not an nn.Linear
  proj.name = p + s.weight;
  proj.op = Op::linear;
  proj.detail = "parameter_matmul";  // not an nn.Linear: bitsandbytes does not quantize it
  proj.linear = LinearKind::parameter;
  proj.in = s.in;
  proj.out = s.out;
  proj.params = b.tensor(proj.name, {s.in, s.out}, Role::projector, false);
  b.node(proj);
}

void append_model(ModelBuilder& b, const Model& sub, const std::string& prefix, bool take_dims) {
  Model& m = b.model();
  for (Tensor t : sub.tensors) {
    t.name = prefix + t.name;
    if (!t.tied_to.empty()) t.tied_to = prefix + t.tied_to;
    m.tensors.push_back(std::move(t));
  }
  for (Tensor t : sub.buffers) {
    t.name = prefix + t.name;
    m.buffers.push_back(std::move(t));
  }
  const auto tensor_base = int32_t(m.tensors.size() - sub.tensors.size());  // where sub's tensors start
  for (StoredExtra x : sub.stored_extras) {
    x.tensor.name = prefix + x.tensor.name;
    if (x.of_tensor >= 0) x.of_tensor += tensor_base;
    if (!x.replaces.empty()) x.replaces = prefix + x.replaces;
    m.stored_extras.push_back(std::move(x));
  }
  // The sub-model's graph keeps its own edges: its value ids and node references move past ours.
  const auto value_base = ValueId(m.values.size());
  const int block_base = int(m.blocks.size());
  auto moved = [&](ValueId v) { return v == kNoValue ? v : ValueId(v + value_base); };
  for (ValueInfo v : sub.values) {
    v.block += block_base;
    m.values.push_back(v);
  }
  for (Block blk : sub.blocks) {
    blk.name = prefix + blk.name;
    blk.input = moved(blk.input);
    blk.output = moved(blk.output);
    for (auto& n : blk.nodes) {
      n.name = prefix + n.name;
      for (auto& v : n.inputs) v = moved(v);
      n.output = moved(n.output);
      if (n.tied_to.valid()) n.tied_to.block += block_base;
    }
    m.blocks.push_back(std::move(blk));
  }
  for (const auto& note : sub.notes) m.notes.push_back(note);
  if (sub.approximate) m.approximate = true;
  if (take_dims) {
    m.dims = sub.dims;
    m.facts = sub.facts;
  }
  if (!sub.blocks.empty()) b.set_stream(m.blocks.back().output);
}

Config with_defaults(const Config& cfg, const std::string& defaults_json) {
  auto merged = std::make_shared<nlohmann::json>(nlohmann::json::parse(defaults_json));
  if (cfg.raw().is_object())
    for (const auto& [key, value] : cfg.raw().items())
      if (!value.is_null()) (*merged)[key] = value;
  return Config(std::shared_ptr<const nlohmann::json>(std::move(merged)), cfg.path());
}

Config child_or_empty(const Config& cfg, const std::string& key) {
  if (cfg.has(key)) return cfg.child(key);  // present but not an object: a coded error
  return Config(std::make_shared<const nlohmann::json>(nlohmann::json::object()), cfg.path_of(key));
}

Config wrapped_text_config(const Config& cfg, const std::string& text_type, bool tie_default) {
  nlohmann::json text = child_or_empty(cfg, "text_config").raw();
  text["model_type"] = text_type;
  if (!text.contains("tie_word_embeddings")) text["tie_word_embeddings"] = cfg.boolean_or("tie_word_embeddings", tie_default);
  return Config(std::make_shared<const nlohmann::json>(std::move(text)), cfg.path_of("text_config"));
}

}  // namespace cardfit

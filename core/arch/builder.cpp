// ModelBuilder: each primitive records its tensors (checkpoint names) and its graph node.
#include "builder.hpp"

#include "../error.hpp"

namespace cardfit {

const char* norm_name(NormKind kind) {
  switch (kind) {
    case NormKind::layernorm: return "layernorm";
    case NormKind::layernorm_nobias: return "layernorm_nobias";
    case NormKind::layernorm_noaffine: return "layernorm_noaffine";
    case NormKind::rmsnorm: return "rmsnorm";
  }
  return "norm";
}

ModelBuilder::ModelBuilder(std::string model_type, std::string family) {
  model_.model_type = std::move(model_type);
  model_.family = std::move(family);
}

void ModelBuilder::block(std::string name, std::string kind, int layer) {
  layer_ = layer;
  model_.blocks.push_back(Block{std::move(name), std::move(kind), layer, {}});
}

Block& ModelBuilder::current() {
  if (model_.blocks.empty()) block("model", "other");
  return model_.blocks.back();
}

namespace {
// DeepSeek-V3 has about 91,000 tensors; a config that asks for millions is a typo or an attack,
// and tracing it would hang the page.
constexpr size_t kMaxTensors = 300'000;
}  // namespace

int64_t ModelBuilder::tensor(const std::string& name, Shape shape, Role role, bool linear) {
  if (model_.tensors.size() >= kMaxTensors)
    throw Error(ErrorCode::field_range,
                "The config describes more than " + std::to_string(kMaxTensors) +
                    " tensors (check num_hidden_layers and the expert counts).",
                "$");
  for (int64_t d : shape)
    if (d <= 0)
      throw Error(ErrorCode::field_range, "Tensor " + name + " would have a dimension of " + std::to_string(d) +
                                              ": check the config's sizes.", "$");
  Tensor t{name, std::move(shape), role, layer_, linear, {}};
  int64_t n = t.count();
  model_.tensors.push_back(std::move(t));
  return n;
}

void ModelBuilder::tied(const std::string& name, Shape shape, const std::string& target, Role role) {
  model_.tensors.push_back(Tensor{name, std::move(shape), role, layer_, role == Role::head, target});
}

void ModelBuilder::buffer(const std::string& name, Shape shape) {
  model_.buffers.push_back(Tensor{name, std::move(shape), Role::other, layer_, false, {}});
}

void ModelBuilder::embedding(const std::string& name, int64_t rows, int64_t dim, Role role) {
  Node n;
  n.name = name;
  n.op = role == Role::position_embedding ? Op::position_embedding : Op::embedding;
  n.in = 1;
  n.out = dim;
  n.params = tensor(name + ".weight", {rows, dim}, role);
  current().nodes.push_back(std::move(n));
}

void ModelBuilder::norm(const std::string& name, int64_t dim, NormKind kind, Role role) {
  Node n;
  n.name = name;
  n.op = Op::norm;
  n.detail = norm_name(kind);
  n.in = n.out = dim;
  if (kind != NormKind::layernorm_noaffine) n.params += tensor(name + ".weight", {dim}, role);
  if (kind == NormKind::layernorm) n.params += tensor(name + ".bias", {dim}, role);
  current().nodes.push_back(std::move(n));
}

void ModelBuilder::linear(const std::string& name, int64_t in, int64_t out, const LinearSpec& spec) {
  Node n;
  n.name = name;
  n.op = spec.role == Role::head ? Op::head : Op::linear;
  n.in = in;
  n.out = out;
  n.experts = spec.experts;
  n.active = spec.active;
  n.lora = spec.lora;
  Shape w = spec.transposed ? Shape{in, out} : Shape{out, in};
  if (spec.experts > 1) w.insert(w.begin(), spec.experts);
  n.params += tensor(name + "." + spec.weight, w, spec.role, true);
  if (spec.bias) {
    Shape b = spec.experts > 1 ? Shape{spec.experts, out} : Shape{out};
    n.params += tensor(name + "." + spec.bias_name, b, spec.role);
  }
  current().nodes.push_back(std::move(n));
}

void ModelBuilder::attention(const std::string& name, const AttentionGeom& geom, int64_t out_features) {
  Node n;
  n.name = name;
  n.op = Op::attention;
  n.detail = geom.cross ? "cross" : (geom.causal ? "causal" : "bidirectional");
  n.in = geom.heads * geom.head_dim;
  n.out = out_features;
  n.attn = geom;
  if (n.attn.v_head_dim == 0) n.attn.v_head_dim = geom.head_dim;
  if (n.attn.cache_dim == 0) n.attn.cache_dim = geom.kv_heads * (geom.head_dim + n.attn.v_head_dim);
  current().nodes.push_back(std::move(n));
}

void ModelBuilder::activation(const std::string& name, int64_t dim, const std::string& kind) {
  Node n;
  n.name = name;
  n.op = Op::activation;
  n.detail = kind;
  n.in = n.out = dim;
  current().nodes.push_back(std::move(n));
}

void ModelBuilder::gated_activation(const std::string& name, int64_t dim, const std::string& kind) {
  Node n;
  n.name = name;
  n.op = Op::gated_activation;
  n.detail = kind;
  n.in = 2 * dim;
  n.out = dim;
  current().nodes.push_back(std::move(n));
}

void ModelBuilder::residual(const std::string& name, int64_t dim) {
  Node n;
  n.name = name;
  n.op = Op::residual_add;
  n.in = n.out = dim;
  current().nodes.push_back(std::move(n));
}

void ModelBuilder::node(Node n) { current().nodes.push_back(std::move(n)); }

Model ModelBuilder::finish() {
  // Every tied tensor must point at a tensor that exists: a family bug, not a user error.
  for (const auto& t : model_.tensors) {
    if (t.tied_to.empty()) continue;
    bool found = false;
    for (const auto& u : model_.tensors) found = found || (u.name == t.tied_to && u.tied_to.empty());
    if (!found) throw Error(ErrorCode::internal, "tied tensor " + t.name + " points at " + t.tied_to);
  }
  return std::move(model_);
}

}  // namespace cardfit

// ModelBuilder: each primitive records its tensors (checkpoint names) and its graph node.
#include "builder.hpp"

#include "../error.hpp"

namespace cardfit {

ModelBuilder::ModelBuilder(std::string model_type, std::string family) {
  model_.model_type = std::move(model_type);
  model_.family = std::move(family);
}

void ModelBuilder::block(std::string name, std::string kind, int layer) {
  layer_ = layer;
  if (!model_.blocks.empty()) model_.blocks.back().output = stream_;
  Block b;
  b.name = std::move(name);
  b.kind_id = block_kind(kind);
  b.kind = std::move(kind);
  b.layer = layer;
  b.sequence = sequence_;
  b.input = stream_;
  model_.blocks.push_back(std::move(b));
  cursor_ = stream_;
  pending_.reset();
}

NodeRef ModelBuilder::owner_of(const std::string& tensor_name) const {
  // Asked once per tied head: a scan beats keeping a name index for every tensor.
  for (size_t t = model_.tensors.size(); t-- > 0;)
    if (model_.tensors[t].name == tensor_name && t < owners_.size()) return owners_[t];
  throw Error(ErrorCode::internal, "no node owns tensor " + tensor_name);
}

Node* ModelBuilder::last_node() {
  if (current().nodes.empty()) return nullptr;
  return &current().nodes.back();
}

void ModelBuilder::push(Node n, int64_t width) {
  Block& blk = current();
  if (pending_) n.inputs = std::move(*pending_);
  else if (n.inputs.empty() && cursor_ != kNoValue) n.inputs = {cursor_};
  pending_.reset();
  // A read of no value (a residual before any stream) is a family bug: refuse it here rather than
  // let the checks index values[-1].
  for (const ValueId v : n.inputs)
    if (v < 0 || size_t(v) >= model_.values.size())
      throw Error(ErrorCode::internal, n.name + " reads a value no node wrote");
  n.output = ValueId(model_.values.size());
  model_.values.push_back(ValueInfo{int(model_.blocks.size()) - 1, int(blk.nodes.size()), width});
  cursor_ = n.output;
  blk.nodes.push_back(std::move(n));
}

Block& ModelBuilder::current() {
  if (model_.blocks.empty()) block("model", "other");
  return model_.blocks.back();
}

namespace {
// Entries traced (a layer's experts are one stacked entry): what tracing, planning and the report
// cost. Kimi-K3, the largest published model traced, has 2,904; 160,000 bounds a typo or an attack
// (at 300,000 entries a DeepSeek-like config took over 1 s and ~400 MB in the page, before stacking).
constexpr int64_t kMaxEntries = 160'000;
// Checkpoint tensors, every expert counted: only a reconciliation against a header of that size and
// the expanded tensor list visit them one by one. Kimi-K3 lists 249,924 (497,220 stored, with its
// quantized experts' scales); twice that is headroom.
constexpr int64_t kMaxTensors = 1'000'000;

[[noreturn]] void too_many_tensors(int64_t limit) {
  throw Error(ErrorCode::field_range,
              "The config describes more than " + std::to_string(limit) +
                  " tensors (check num_hidden_layers and the expert counts).",
              "$");
}
}  // namespace

void ModelBuilder::stack_tensors(size_t first, int64_t copies) {
  if (copies <= 1 || first >= model_.tensors.size()) return;
  const int64_t n = int64_t(model_.tensors.size() - first);
  stacked_extra_ = checked_add(stacked_extra_, checked_mul(n, copies - 1, "the tensor count"), "the tensor count");
  if (int64_t(model_.tensors.size()) + stacked_extra_ > kMaxTensors) too_many_tensors(kMaxTensors);
  for (size_t i = first; i < model_.tensors.size(); ++i) {
    Tensor& t = model_.tensors[i];
    if (expert_index(t.name).index != 0) throw Error(ErrorCode::internal, "stacked tensor " + t.name + " has no expert index 0");
    t.copies = copies;
    t.copy_run_start = i == first;
  }
}

int64_t ModelBuilder::tensor(const std::string& name, Shape shape, Role role, bool linear) {
  if (int64_t(model_.tensors.size()) >= kMaxEntries) too_many_tensors(kMaxEntries);
  if (int64_t(model_.tensors.size()) + stacked_extra_ >= kMaxTensors) too_many_tensors(kMaxTensors);
  for (int64_t d : shape)
    if (d <= 0)
      throw Error(ErrorCode::field_range, "Tensor " + name + " would have a dimension of " + std::to_string(d) +
                                              ": check the config's sizes.", "$");
  Tensor t{name, std::move(shape), role, layer_, linear, {}};
  int64_t n = t.count();
  // Each primitive adds its tensors just before its node: that node will own them.
  owners_.resize(model_.tensors.size());
  owners_.push_back(NodeRef{int(model_.blocks.size()) - 1, int(current().nodes.size())});
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
  // Reads nothing (token ids) at the start of a stream; a later embedding adds to the cursor.
  push(std::move(n), dim);
  stream_ = cursor_;
}

void ModelBuilder::norm(const std::string& name, int64_t dim, NormKind kind, Role role) {
  Node n;
  n.name = name;
  n.op = Op::norm;
  n.detail = norm_name(kind);
  n.norm = kind;
  n.in = n.out = dim;
  if (kind != NormKind::layernorm_noaffine) n.params += tensor(name + ".weight", {dim}, role);
  if (kind == NormKind::layernorm) n.params += tensor(name + ".bias", {dim}, role);
  push(std::move(n), dim);
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
  n.linear = spec.kind;
  Shape w = spec.transposed ? Shape{in, out} : Shape{out, in};
  if (spec.experts > 1) w.insert(w.begin(), spec.experts);
  n.params += tensor(name + "." + spec.weight, w, spec.role, true);
  if (spec.bias) {
    Shape b = spec.experts > 1 ? Shape{spec.experts, out} : Shape{out};
    n.params += tensor(name + "." + spec.bias_name, b, spec.role);
  }
  push(std::move(n), checked_mul(out, spec.active, "a linear's output width"));
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
  push(std::move(n), out_features);
}

void ModelBuilder::activation(const std::string& name, int64_t dim, const std::string& kind) {
  Node n;
  n.name = name;
  n.op = Op::activation;
  n.detail = kind;
  n.act = act_kind(kind);
  n.in = n.out = dim;
  push(std::move(n), dim);
}

void ModelBuilder::gated_activation(const std::string& name, int64_t dim, const std::string& kind) {
  Node n;
  n.name = name;
  n.op = Op::gated_activation;
  n.detail = kind;
  n.act = act_kind(kind);
  n.in = checked_mul(2, dim, "a gated activation's width");
  n.out = dim;
  push(std::move(n), dim);
}

void ModelBuilder::residual(const std::string& name, int64_t dim) {
  Node n;
  n.name = name;
  n.op = Op::residual_add;
  n.in = n.out = dim;
  if (!pending_) pending_ = std::vector<ValueId>{stream_, cursor_};
  push(std::move(n), dim);
  stream_ = cursor_;
}

void ModelBuilder::node(Node n) {
  const int64_t width = checked_mul(n.out, n.active, "a node's output width");
  push(std::move(n), width);
}

Model ModelBuilder::finish() {
  if (!model_.blocks.empty()) model_.blocks.back().output = stream_;
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

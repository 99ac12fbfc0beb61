// Primitives that add tensors and graph nodes together, so the inventory and the graph agree.
// Families use these through the shared blocks (blocks.hpp); no family does arithmetic itself.
//
// The dataflow: every primitive records the values it reads and the value it writes. By default a
// primitive reads the builder's cursor (the value the previous primitive wrote) and its output
// becomes the new cursor; read()/reads() name other inputs for the next primitive (q, k and v all
// read the normed stream; a residual add reads the stream and the branch). Embeddings and residual
// adds also move the residual stream, which each new block starts from; set_stream() moves it
// after a post-norm. The planner follows these edges; it never infers them.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "../model.hpp"

namespace cardfit {

struct LinearSpec {
  bool bias = false;
  bool transposed = false;  // GPT-2's Conv1D stores the weight as [in, out]
  bool lora = true;         // a default LoRA target
  Role role = Role::other;
  LinearKind kind = LinearKind::module;
  int64_t experts = 1;      // stored copies (MoE experts fused in one node)
  int64_t active = 1;       // copies each token goes through
  std::string weight = "weight", bias_name = "bias";
};

class ModelBuilder {
 public:
  ModelBuilder(std::string model_type, std::string family);

  /// Starts a block; the nodes added next belong to it. It starts from the residual stream.
  void block(std::string name, std::string kind, int layer = -1);
  int layer() const { return layer_; }
  /// Blocks started from now on run over this sequence (the decoder half of an encoder-decoder).
  void sequence(Sequence s) { sequence_ = s; }

  /// The dataflow cursor and stream (see the file comment).
  ValueId cursor() const { return cursor_; }
  ValueId stream() const { return stream_; }
  /// The next primitive reads `v` (and what follows reads its output).
  void read(ValueId v) {
    cursor_ = v;
    pending_.reset();
  }
  /// The next primitive reads these values (several inputs, or none: {}).
  void reads(std::vector<ValueId> values) { pending_ = std::move(values); }
  void set_stream(ValueId v) { stream_ = cursor_ = v; }
  /// A new input of the model (a vision tower's pixels): no stream, no cursor.
  void restart() { stream_ = cursor_ = kNoValue; }
  /// The node that owns a parameter tensor (by checkpoint name), for typed references.
  NodeRef owner_of(const std::string& tensor_name) const;

  /// The node the last primitive added (nullptr before any).
  Node* last_node();
  /// The parameter tensors added since tensors().size() was `first` are stored `copies` times alike
  /// (a layer's MoE experts, traced once as expert 0: Tensor::copies); they start one run.
  void stack_tensors(size_t first, int64_t copies);

  /// A parameter tensor of the checkpoint; returns the number of elements.
  int64_t tensor(const std::string& name, Shape shape, Role role, bool linear = false);
  /// A tensor that shares storage with `target` (listed, marked, not counted again).
  void tied(const std::string& name, Shape shape, const std::string& target, Role role);
  /// A non-parameter tensor that the published checkpoint stores (e.g. GPT-2's causal mask).
  void buffer(const std::string& name, Shape shape);

  void embedding(const std::string& name, int64_t rows, int64_t dim, Role role = Role::embedding);
  void norm(const std::string& name, int64_t dim, NormKind kind, Role role = Role::norm);
  /// nn.Linear named `name` (tensors `name.weight` [out, in] and `name.bias` [out]).
  void linear(const std::string& name, int64_t in, int64_t out, const LinearSpec& spec);
  void attention(const std::string& name, const AttentionGeom& geom, int64_t out_features);
  void activation(const std::string& name, int64_t dim, const std::string& kind);
  void gated_activation(const std::string& name, int64_t dim, const std::string& kind);
  /// stream + cursor (or the values given with reads()); the sum becomes the stream.
  void residual(const std::string& name, int64_t dim);
  /// A node whose parameters were already added with tensor() (e.g. MoE routers, SSM ops); it
  /// reads the cursor (or what read()/reads() named) unless its inputs are set.
  void node(Node n);

  Model& model() { return model_; }
  Dims& dims() { return model_.dims; }
  ModelFacts& facts() { return model_.facts; }
  void note(std::string text) { model_.notes.push_back(std::move(text)); }
  Model finish();

 private:
  Block& current();
  /// Wires `n` into the dataflow (inputs, a fresh output of `width` features) and appends it.
  void push(Node n, int64_t width);
  Model model_;
  int layer_ = -1;
  Sequence sequence_ = Sequence::source;
  ValueId cursor_ = kNoValue, stream_ = kNoValue;
  std::optional<std::vector<ValueId>> pending_;
  std::vector<NodeRef> owners_;  // by tensor index: the node that owns it (tied aliases: none)
  int64_t stacked_extra_ = 0;  // tensors the stacks stand for beyond their entries (the limit counts them)
};

}  // namespace cardfit

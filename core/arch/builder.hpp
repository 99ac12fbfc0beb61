// Primitives that add tensors and graph nodes together, so the inventory and the graph agree.
// Families use these through the shared blocks (blocks.hpp); no family does arithmetic itself.
#pragma once
#include <string>

#include "../model.hpp"

namespace cardfit {

enum class NormKind {
  layernorm,         // weight + bias
  layernorm_nobias,  // weight only (OLMo-style affine without bias, cohere)
  layernorm_noaffine,// no parameters (OLMo-1)
  rmsnorm,           // weight (Gemma's "1 + weight" is still one weight vector)
};
const char* norm_name(NormKind kind);

struct LinearSpec {
  bool bias = false;
  bool transposed = false;  // GPT-2's Conv1D stores the weight as [in, out]
  bool lora = true;         // a default LoRA target
  Role role = Role::other;
  int64_t experts = 1;      // stored copies (MoE experts fused in one node)
  int64_t active = 1;       // copies each token goes through
  std::string weight = "weight", bias_name = "bias";
};

class ModelBuilder {
 public:
  ModelBuilder(std::string model_type, std::string family);

  /// Starts a block; the nodes added next belong to it.
  void block(std::string name, std::string kind, int layer = -1);
  int layer() const { return layer_; }

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
  void residual(const std::string& name, int64_t dim);
  /// A node whose parameters were already added with tensor() (e.g. MoE routers, SSM ops).
  void node(Node n);

  Model& model() { return model_; }
  Dims& dims() { return model_.dims; }
  void note(std::string text) { model_.notes.push_back(std::move(text)); }
  Model finish();

 private:
  Block& current();
  Model model_;
  int layer_ = -1;
};

}  // namespace cardfit

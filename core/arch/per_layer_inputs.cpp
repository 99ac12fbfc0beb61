// See per_layer_inputs.hpp.
#include "per_layer_inputs.hpp"

namespace cardfit {

void per_layer_input_tables(ModelBuilder& b, const PerLayerInputSpec& s) {
  const std::string p = s.prefix + ".";
  const int64_t packed = checked_mul(s.layers, s.width, "the per-layer embedding width");
  // Side inputs of every layer, not the stream: a table looked up from the token ids, and a
  // projection of the token embedding (the stream so far), normed per layer slice.
  const ValueId embedded = b.stream();
  b.reads({});
  b.embedding(p + "embed_tokens_per_layer", s.vocab, packed, Role::embedding);
  b.read(embedded);
  // Not a LoRA default target: PEFT's default targets are the attention/MLP projections.
  b.linear(p + "per_layer_model_projection", s.hidden, packed, {.lora = false, .role = Role::embedding});
  b.norm(p + "per_layer_projection_norm", s.width, NormKind::rmsnorm);
  b.set_stream(embedded);
}

void per_layer_input_merge(ModelBuilder& b, const std::string& layer_prefix, int64_t hidden, int64_t width,
                           const std::string& act) {
  const std::string p = layer_prefix + ".";
  b.linear(p + "per_layer_input_gate", hidden, width, {.role = Role::mlp});
  b.activation(p + "per_layer_act", width, act);
  b.linear(p + "per_layer_projection", width, hidden, {.role = Role::mlp});
  b.norm(p + "post_per_layer_input_norm", hidden, NormKind::rmsnorm);
  b.residual(p + "residual_per_layer_input", hidden);
}

}  // namespace cardfit

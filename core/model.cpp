// Checked arithmetic on shapes and the counts of a Model.
#include "model.hpp"

#include "error.hpp"

namespace cardfit {

int64_t checked_mul(int64_t a, int64_t b, const char* what) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    throw Error(ErrorCode::overflow, std::string(what) + " exceeds the 64-bit range.");
  return r;
}

int64_t checked_add(int64_t a, int64_t b, const char* what) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    throw Error(ErrorCode::overflow, std::string(what) + " exceeds the 64-bit range.");
  return r;
}

int64_t numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n = checked_mul(n, d, "a tensor's element count");
  return n;
}

const char* domain_name(Domain domain) {
  return domain == Domain::vision ? "vision" : domain == Domain::audio ? "audio" : "text";
}

const char* role_name(Role role) {
  switch (role) {
    case Role::embedding: return "embedding";
    case Role::position_embedding: return "position_embedding";
    case Role::norm: return "norm";
    case Role::attention: return "attention";
    case Role::mlp: return "mlp";
    case Role::router: return "router";
    case Role::expert: return "expert";
    case Role::head: return "head";
    case Role::ssm: return "ssm";
    case Role::vision: return "vision";
    case Role::projector: return "projector";
    case Role::other: return "other";
  }
  return "other";
}

const char* op_name(Op op) {
  switch (op) {
    case Op::embedding: return "embedding";
    case Op::position_embedding: return "position_embedding";
    case Op::norm: return "norm";
    case Op::linear: return "linear";
    case Op::attention: return "attention";
    case Op::activation: return "activation";
    case Op::gated_activation: return "gated_activation";
    case Op::residual_add: return "residual_add";
    case Op::router: return "router";
    case Op::head: return "head";
    case Op::ssm: return "ssm";
    case Op::conv1d: return "conv1d";
    case Op::other: return "other";
  }
  return "other";
}

int64_t Model::parameter_count() const {
  int64_t n = 0;
  for (const auto& t : tensors)
    if (t.tied_to.empty()) n = checked_add(n, t.count(), "the parameter count");
  return n;
}

int64_t Model::buffer_count() const {
  int64_t n = 0;
  for (const auto& t : buffers) n = checked_add(n, t.count(), "the buffer count");
  return n;
}

}  // namespace cardfit

// Checked arithmetic on shapes and the counts of a Model.
#include "model.hpp"

#include <cstring>

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

const char* domain_name(Domain domain) { return domain == Domain::vision ? "vision" : "text"; }

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

namespace {
void put(std::string& key, int64_t v) {
  char raw[sizeof v];
  std::memcpy(raw, &v, sizeof v);
  key.append(raw, sizeof v);
}
// Length-prefixed, so that no two different sequences of fields give the same key.
void put_text(std::string& key, const std::string& text) {
  put(key, int64_t(text.size()));
  key += text;
}
// The name with each run of digits replaced by '#', length-prefixed (written in place).
void put_masked(std::string& key, const std::string& name) {
  const size_t at = key.size();
  put(key, 0);
  for (size_t i = 0; i < name.size(); ++i) {
    const bool digit = name[i] >= '0' && name[i] <= '9';
    if (!digit) key += name[i];
    else if (i == 0 || name[i - 1] < '0' || name[i - 1] > '9') key += '#';
  }
  const int64_t length = int64_t(key.size() - at - sizeof(int64_t));
  std::memcpy(&key[at], &length, sizeof length);
}
}  // namespace

std::string structural_signature(const Block& b) {
  std::string key;
  key.reserve(64 + b.nodes.size() * 160);
  put_masked(key, b.name);
  put_text(key, b.kind);
  put(key, b.layer >= 0);  // the index itself never matters, being in the repeated stack does
  put(key, int64_t(b.domain));
  put(key, b.tokens_per_image);
  put(key, b.width);
  put(key, int64_t(b.nodes.size()));
  for (const Node& n : b.nodes) {
    put_masked(key, n.name);
    put(key, int64_t(n.op));
    put_text(key, n.detail);
    for (int64_t v : {n.in, n.out, n.params, n.experts, n.active, int64_t(n.lora), n.tokens_per_image}) put(key, v);
    const AttentionGeom& g = n.attn;
    for (int64_t v : {g.heads, g.kv_heads, g.head_dim, g.v_head_dim, g.window, int64_t(g.causal), int64_t(g.cross),
                      g.cache_dim, int64_t(g.alibi)})
      put(key, v);
  }
  return key;
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

// The shared builders of blocks.hpp.
#include "blocks.hpp"

namespace cardfit {

namespace {
// The norm on q (or k) of `heads` heads; `width` = heads * head_dim. See AttentionSpec::QkNormStorage.
void qk_norm(ModelBuilder& b, const AttentionSpec& s, const std::string& name, int64_t heads, int64_t width) {
  if (!s.qk_norm_per_head) {
    b.norm(name, width, s.qk_norm);
  } else if (s.qk_norm_storage == AttentionSpec::kPerHeadModules) {
    for (int64_t h = 0; h < heads; ++h) b.norm(name + ".norms." + std::to_string(h), s.head_dim, s.qk_norm);
  } else if (s.qk_norm_storage == AttentionSpec::kHeadsByDim) {
    Node n;
    n.name = name;
    n.op = Op::norm;
    n.detail = norm_name(s.qk_norm);
    n.in = n.out = width;
    if (s.qk_norm != NormKind::layernorm_noaffine) n.params += b.tensor(name + ".weight", {heads, s.head_dim}, Role::norm);
    if (s.qk_norm == NormKind::layernorm) n.params += b.tensor(name + ".bias", {heads, s.head_dim}, Role::norm);
    b.node(std::move(n));
  } else {
    b.norm(name, s.head_dim, s.qk_norm);
  }
}
}  // namespace

void attention_block(ModelBuilder& b, const AttentionSpec& s) {
  const int64_t v_dim = s.v_head_dim ? s.v_head_dim : s.head_dim;
  const int64_t q_out = s.heads * s.head_dim, k_out = s.kv_heads * s.head_dim, v_out = s.kv_heads * v_dim;
  const std::string p = s.prefix + ".";
  if (!s.fused_qkv.empty()) {
    LinearSpec l{.bias = s.fused_bias, .transposed = s.transposed, .role = Role::attention};
    b.linear(p + s.fused_qkv, s.hidden, q_out + k_out + v_out, l);
  } else {
    // An output gate doubles the q projection: per head [query | gate] (Qwen3-Next's q_proj).
    b.linear(p + s.q, s.hidden, s.output_gate ? 2 * q_out : q_out, {.bias = s.q_bias, .role = Role::attention});
    if (!s.kv_shared) b.linear(p + s.k, s.hidden, k_out, {.bias = s.k_bias, .role = Role::attention});
    if (!s.kv_shared && !s.k_eq_v) b.linear(p + s.v, s.hidden, v_out, {.bias = s.v_bias, .role = Role::attention});
  }
  if (!s.q_norm.empty()) qk_norm(b, s, p + s.q_norm, s.heads, q_out);
  if (!s.k_norm.empty() && !s.kv_shared) qk_norm(b, s, p + s.k_norm, s.kv_heads, k_out);
  AttentionGeom g;
  g.heads = s.heads;
  g.kv_heads = s.kv_heads;
  g.head_dim = s.head_dim;
  g.v_head_dim = v_dim;
  g.window = s.window;
  g.causal = s.causal;
  g.cross = s.cross;
  g.alibi = s.alibi;
  if (s.output_gate || s.kv_shared || s.k_eq_v)
    g.qkv_features = (s.output_gate ? 2 * q_out : q_out) + (s.kv_shared ? 0 : k_out) + (s.kv_shared || s.k_eq_v ? 0 : v_out);
  g.sinks = !s.sinks.empty();
  b.attention(p + s.core, g, s.heads * v_dim);
  // A kv-shared layer reads the cache of the last earlier layer of its type: it holds none itself.
  if (s.kv_shared) b.model().blocks.back().nodes.back().attn.cache_dim = 0;
  if (!s.sinks.empty())  // the sink logits join each head's softmax; the attention node owns them
    b.model().blocks.back().nodes.back().params += b.tensor(p + s.sinks, {s.heads}, Role::attention);
  if (s.output_gate) b.activation(p + "output_gate", s.heads * v_dim, "sigmoid_gate");
  LinearSpec o{.bias = s.o_bias, .transposed = s.transposed, .role = Role::attention};
  b.linear(p + s.o, s.heads * v_dim, s.hidden, o);
}

void mlp_block(ModelBuilder& b, const MlpSpec& s) {
  const std::string p = s.prefix + ".";
  LinearSpec l{.bias = s.bias, .transposed = s.transposed, .role = s.role,
               .experts = s.experts, .active = s.active};
  if (s.gated) {
    if (!s.fused_gate_up.empty()) {
      b.linear(p + s.fused_gate_up, s.hidden, 2 * s.intermediate, l);
    } else {
      b.linear(p + s.gate, s.hidden, s.intermediate, l);
      b.linear(p + s.up, s.hidden, s.intermediate, l);
    }
    b.gated_activation(p + "act", s.intermediate, s.act);
  } else {
    b.linear(p + s.up, s.hidden, s.intermediate, l);
    b.activation(p + "act", s.intermediate, s.act);
  }
  b.linear(p + s.down, s.intermediate, s.hidden, l);
}

void moe_block(ModelBuilder& b, const MoeSpec& s) {
  const std::string p = s.prefix + ".";
  Node router;
  router.name = p + s.router;
  router.op = Op::router;
  router.in = s.hidden;
  router.out = s.experts;
  router.params = b.tensor(router.name + ".weight", {s.experts, s.hidden}, Role::router, false);
  if (s.router_bias) router.params += b.tensor(router.name + ".bias", {s.experts}, Role::router);
  if (!s.router_bias_name.empty())
    router.params += b.tensor(router.name + "." + s.router_bias_name, {s.experts}, Role::router);
  b.node(router);

  // Checkpoints store each expert separately; the graph folds them into one node per projection
  // that each token passes through top_k times.
  auto& nodes = b.model().blocks.back().nodes;
  const size_t first_node = nodes.size();
  for (int64_t e = 0; e < s.experts; ++e) {
    MlpSpec x = s.expert;
    x.prefix = p + s.experts_name + "." + std::to_string(e);
    x.hidden = s.hidden;
    x.intermediate = s.expert_intermediate;
    x.role = Role::expert;
    mlp_block(b, x);
  }
  const size_t per_expert = (nodes.size() - first_node) / size_t(s.experts);
  std::vector<Node> folded(nodes.begin() + first_node, nodes.begin() + first_node + per_expert);
  for (auto& n : folded) {
    n.name = p + s.experts_name + ".*." + n.name.substr(n.name.rfind('.') + 1);
    n.params *= s.experts;
    n.experts = s.experts;
    n.active = s.top_k;
  }
  nodes.erase(nodes.begin() + first_node, nodes.end());
  for (auto& n : folded) nodes.push_back(std::move(n));

  if (s.shared_experts > 0) {
    // The routed experts' weighted sum is complete before the shared expert runs beside it.
    Node combine;
    combine.name = p + s.experts_name + ".combine";
    combine.op = Op::other;
    combine.detail = "moe_weighted_sum";
    combine.in = combine.out = s.hidden;
    b.node(combine);
    MlpSpec x = s.expert;
    x.prefix = p + s.shared_name;
    x.hidden = s.hidden;
    x.intermediate = s.shared_intermediate;
    x.role = Role::expert;
    mlp_block(b, x);
    if (!s.shared_gate.empty()) {
      Node g;
      g.name = p + s.shared_gate;
      g.op = Op::router;
      g.in = s.hidden;
      g.out = 1;
      g.params = b.tensor(g.name + ".weight", {1, s.hidden}, Role::router, false);
      b.node(g);
    }
  }
}

void token_embedding(ModelBuilder& b, const std::string& name, int64_t vocab, int64_t hidden) {
  b.embedding(name, vocab, hidden, Role::embedding);
}

void lm_head(ModelBuilder& b, const std::string& name, int64_t hidden, int64_t vocab,
             const std::string& tied_to, bool bias) {
  Node n;
  n.name = name;
  n.op = Op::head;
  n.in = hidden;
  n.out = vocab;
  n.lora = false;
  if (tied_to.empty()) {
    n.params = b.tensor(name + ".weight", {vocab, hidden}, Role::head, true);
  } else {
    b.tied(name + ".weight", {vocab, hidden}, tied_to, Role::head);
  }
  if (bias) n.params += b.tensor(name + ".bias", {vocab}, Role::head);
  b.node(std::move(n));
}

void fused_moe_block(ModelBuilder& b, const FusedMoeSpec& s) {
  const std::string p = s.prefix + ".";
  Node router;
  router.name = p + s.router;
  router.op = Op::router;
  router.in = s.hidden;
  router.out = s.experts;
  router.params = b.tensor(router.name + ".weight", {s.experts, s.hidden}, Role::router, false);
  b.node(router);

  auto projection = [&](const std::string& name, int64_t in, int64_t out) {
    Node n;
    n.name = p + name;
    n.op = Op::linear;
    n.in = in;
    n.out = out;
    n.experts = s.experts;
    n.active = s.top_k;
    n.lora = false;
    const int64_t rows = checked_mul(s.experts, s.intermediate, "the fused expert rows");
    Shape shape;
    if (s.layout == FusedExpertLayout::rows) shape = {rows, s.hidden};
    else shape = {s.experts, out, in};
    n.params = b.tensor(n.name, shape, Role::expert, false);
    b.node(std::move(n));
  };
  if (!s.gate_up.empty()) {
    projection(s.gate_up, s.hidden, checked_mul(2, s.intermediate, "the fused gate/up width"));
  } else {
    projection(s.gate, s.hidden, s.intermediate);
    projection(s.up, s.hidden, s.intermediate);
  }
  Node act;
  act.name = p + "experts.act";
  act.op = Op::gated_activation;
  act.detail = s.act;
  act.in = 2 * s.intermediate;
  act.out = s.intermediate;
  act.experts = s.experts;
  act.active = s.top_k;
  b.node(std::move(act));
  projection(s.down, s.intermediate, s.hidden);
}

}  // namespace cardfit

// The shared builders of blocks.hpp.
#include "blocks.hpp"

namespace cardfit {

namespace {
// The norm on q (or k) of `heads` heads; `width` = heads * head_dim. See AttentionSpec::QkNormStorage.
// The norm on q (or k) of `heads` heads, reading the projection output `x`; `width` = heads *
// head_dim. Returns the normed value, as wide as x whatever the norm weight's size.
ValueId qk_norm(ModelBuilder& b, const AttentionSpec& s, const std::string& name, int64_t heads, int64_t width,
                ValueId x) {
  auto mark = [&](QkNorm how) {
    b.model().blocks.back().nodes.back().qk_norm = how;
    b.model().values[size_t(b.cursor())].width = width;
  };
  if (!s.qk_norm_per_head) {
    b.read(x);
    b.norm(name, width, s.qk_norm);
    mark(QkNorm::whole);
  } else if (s.qk_norm_storage == AttentionSpec::kPerHeadModules) {
    // LayerNormPerHead: one module per head over its own slice of x, the slices stacked again.
    std::vector<ValueId> heads_out;
    for (int64_t h = 0; h < heads; ++h) {
      b.read(x);
      b.norm(name + ".norms." + std::to_string(h), s.head_dim, s.qk_norm);
      mark(QkNorm::one_head);
      heads_out.push_back(b.cursor());
    }
    return heads_out.empty() ? x : heads_out.back();
  } else if (s.qk_norm_storage == AttentionSpec::kHeadsByDim) {
    Node n;
    n.name = name;
    n.op = Op::norm;
    n.detail = norm_name(s.qk_norm);
    n.norm = s.qk_norm;
    n.qk_norm = QkNorm::whole;
    n.in = n.out = width;
    if (s.qk_norm != NormKind::layernorm_noaffine) n.params += b.tensor(name + ".weight", {heads, s.head_dim}, Role::norm);
    if (s.qk_norm == NormKind::layernorm) n.params += b.tensor(name + ".bias", {heads, s.head_dim}, Role::norm);
    b.read(x);
    b.node(std::move(n));
  } else {
    b.read(x);
    b.norm(name, s.head_dim, s.qk_norm);
    mark(QkNorm::whole);
  }
  return b.cursor();
}
}  // namespace

void attention_block(ModelBuilder& b, const AttentionSpec& s) {
  const int64_t v_dim = s.v_head_dim ? s.v_head_dim : s.head_dim;
  const int64_t q_out = checked_mul(s.heads, s.head_dim, "the query width");
  const int64_t k_out = checked_mul(s.kv_heads, s.head_dim, "the key width");
  const int64_t v_out = checked_mul(s.kv_heads, v_dim, "the value width");
  const std::string p = s.prefix + ".";
  // q, k and v read the same input x (for cross attention k and v read s.kv_source, the
  // encoder's output); a fused projection makes all three at once (views of one tensor).
  const ValueId x = b.cursor();
  const ValueId kv_x = s.cross && s.kv_source != kNoValue ? s.kv_source : x;
  ValueId q, k, v;
  if (!s.fused_qkv.empty()) {
    LinearSpec l{.bias = s.fused_bias, .transposed = s.transposed, .role = Role::attention};
    b.linear(p + s.fused_qkv, s.hidden, checked_add(checked_add(q_out, k_out, "q/k/v widths"), v_out, "q/k/v widths"), l);
    q = k = v = b.cursor();
  } else {
    b.read(x);
    // An output gate doubles the q projection: per head [query | gate] (Qwen3-Next's q_proj).
    b.linear(p + s.q, s.hidden, s.output_gate ? 2 * q_out : q_out, {.bias = s.q_bias, .role = Role::attention});
    q = k = v = b.cursor();
    if (!s.kv_shared) {  // a kv-shared layer attends over an earlier layer's cached keys and values
      b.read(kv_x);
      b.linear(p + s.k, s.hidden, k_out, {.bias = s.k_bias, .role = Role::attention});
      k = v = b.cursor();
      if (!s.k_eq_v) {  // k_eq_v: the values are the k projection's output
        b.read(kv_x);
        b.linear(p + s.v, s.hidden, v_out, {.bias = s.v_bias, .role = Role::attention});
        v = b.cursor();
      }
    }
  }
  if (!s.q_norm.empty()) q = qk_norm(b, s, p + s.q_norm, s.heads, q_out, q);
  if (!s.k_norm.empty() && !s.kv_shared) k = qk_norm(b, s, p + s.k_norm, s.kv_heads, k_out, k);
  AttentionGeom g;
  g.heads = s.heads;
  g.kv_heads = s.kv_heads;
  g.head_dim = s.head_dim;
  g.v_head_dim = v_dim;
  g.window = s.window;
  g.causal = s.causal;
  g.cross = s.cross;
  g.alibi = s.alibi;
  g.fp32_qk = s.fp32_qk;
  if (s.output_gate || s.kv_shared || s.k_eq_v)
    g.qkv_features = (s.output_gate ? 2 * q_out : q_out) + (s.kv_shared ? 0 : k_out) + (s.kv_shared || s.k_eq_v ? 0 : v_out);
  g.sinks = !s.sinks.empty();
  if (s.kv_shared) b.reads({q});
  else if (s.k_eq_v) b.reads({q, k});
  else b.reads({q, k, v});
  b.attention(p + s.core, g, checked_mul(s.heads, v_dim, "the attention output width"));
  // A kv-shared layer reads the cache of the last earlier layer of its type: it holds none itself.
  if (s.kv_shared) b.model().blocks.back().nodes.back().attn.cache_dim = 0;
  if (!s.sinks.empty())  // the sink logits join each head's softmax; the attention node owns them
    b.model().blocks.back().nodes.back().params += b.tensor(p + s.sinks, {s.heads}, Role::attention);
  if (s.output_gate) {  // attention output * sigmoid(gate), the gate from q_proj's second half
    b.reads({b.cursor(), q});
    b.activation(p + "output_gate", s.heads * v_dim, "sigmoid_gate");
  }
  LinearSpec o{.bias = s.o_bias, .transposed = s.transposed, .role = Role::attention};
  b.linear(p + s.o, checked_mul(s.heads, v_dim, "the attention output width"), s.hidden, o);
}

void mlp_block(ModelBuilder& b, const MlpSpec& s) {
  const std::string p = s.prefix + ".";
  LinearSpec l{.bias = s.bias, .transposed = s.transposed, .role = s.role,
               .experts = s.experts, .active = s.active};
  if (s.gated) {
    if (!s.fused_gate_up.empty()) {
      b.linear(p + s.fused_gate_up, s.hidden, checked_mul(2, s.intermediate, "the gate/up width"), l);
      b.read(b.cursor());  // act(gate) * up over the two halves of one tensor
    } else {
      const ValueId x = b.cursor();
      b.linear(p + s.gate, s.hidden, s.intermediate, l);
      const ValueId gate = b.cursor();
      b.read(x);
      b.linear(p + s.up, s.hidden, s.intermediate, l);
      b.reads({gate, b.cursor()});
    }
    b.gated_activation(p + "act", s.intermediate, s.act);
    if (Node* act = b.last_node()) act->ffn_activation = true;
  } else {
    b.linear(p + s.up, s.hidden, s.intermediate, l);
    b.activation(p + "act", s.intermediate, s.act);
    if (Node* act = b.last_node()) act->ffn_activation = true;
  }
  b.linear(p + s.down, s.intermediate, s.hidden, l);
}

void moe_block(ModelBuilder& b, const MoeSpec& s) {
  const std::string p = s.prefix + ".";
  const ValueId x = b.cursor();  // the router, the routed experts and the shared experts read x
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

  // Checkpoints store each expert separately; the Model holds expert 0's tensors stacked for all of
  // them (Tensor::copies), and the graph one node per projection over all experts that each token
  // passes through top_k times.
  auto& nodes = b.model().blocks.back().nodes;
  const LinearSpec bare{.lora = false, .role = Role::mlp, .kind = LinearKind::parameter};
  auto bare_linear = [&](const std::string& name, int64_t in, int64_t out) {
    b.linear(name, in, out, bare);
    b.model().tensors.back().linear = false;  // no nn.Linear: no quantizer converts it
  };
  b.read(x);
  if (s.latent > 0) bare_linear(p + s.latent_down, s.hidden, s.latent);
  const size_t first_expert_node = nodes.size();
  const size_t first_tensor = b.model().tensors.size();
  MlpSpec one = s.expert;
  one.prefix = p + s.experts_name + ".0";
  one.hidden = s.latent > 0 ? s.latent : s.hidden;
  one.intermediate = s.expert_intermediate;
  one.role = Role::expert;
  mlp_block(b, one);
  b.stack_tensors(first_tensor, s.experts);
  // Expert 0's nodes stand for every expert: renamed, holding all experts, top_k per token.
  for (size_t i = first_expert_node; i < nodes.size(); ++i) {
    Node& n = nodes[i];
    n.name = p + s.experts_name + ".*." + n.name.substr(n.name.rfind('.') + 1);
    n.params = checked_mul(n.params, s.experts, "the expert parameters");
    n.experts = s.experts;
    n.active = s.top_k;
    b.model().values[size_t(n.output)].width = checked_mul(n.out, s.top_k, "the expert width");
  }
  nodes.back().routed_output = true;
  const ValueId routed = nodes.back().output;
  b.read(routed);
  if (s.latent > 0) {  // the weighted sum of the experts' latent outputs, back to the hidden width
    b.node({.name = p + s.experts_name + ".combine", .op = Op::other, .detail = "moe_weighted_sum", .in = s.latent,
            .out = s.latent});
    if (!s.latent_norm.empty()) b.norm(p + s.latent_norm, s.latent, NormKind::rmsnorm);
    bare_linear(p + s.latent_up, s.latent, s.hidden);
  }

  if (s.shared_experts > 0) {
    // The routed experts' weighted sum is complete before the shared expert runs beside it.
    if (s.latent == 0)
      b.node({.name = p + s.experts_name + ".combine", .op = Op::other, .detail = "moe_weighted_sum", .in = s.hidden,
              .out = s.hidden});
    MlpSpec shared = s.shared_spec.value_or(s.expert);
    shared.prefix = p + s.shared_name;
    shared.hidden = s.hidden;
    shared.intermediate = s.shared_intermediate;
    shared.role = Role::expert;
    b.read(x);
    mlp_block(b, shared);
    if (!s.shared_gate.empty()) {
      Node g;
      g.name = p + s.shared_gate;
      g.op = Op::router;
      g.in = s.hidden;
      g.out = 1;
      g.params = b.tensor(g.name + ".weight", {1, s.hidden}, Role::router, false);
      // sigmoid(gate(x)) scales the shared expert's output, which the residual then adds.
      const ValueId shared_out = b.cursor();
      b.read(x);
      b.node(g);
      b.read(shared_out);
    }
  }
}

void token_embedding(ModelBuilder& b, const std::string& name, int64_t vocab, int64_t hidden) {
  b.reads({});  // token ids
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
  n.vocab_head = true;
  if (tied_to.empty()) {
    n.params = b.tensor(name + ".weight", {vocab, hidden}, Role::head, true);
  } else {
    b.tied(name + ".weight", {vocab, hidden}, tied_to, Role::head);
    n.tied_to = b.owner_of(tied_to);
  }
  if (bias) n.params += b.tensor(name + ".bias", {vocab}, Role::head);
  b.node(std::move(n));
}

void fused_moe_block(ModelBuilder& b, const FusedMoeSpec& s) {
  const std::string p = s.prefix + ".";
  const ValueId x = b.cursor();  // the router and the gate/up projections read x
  if (!s.router.empty()) {
    Node router;
    router.name = p + s.router;
    router.op = Op::router;
    router.in = s.hidden;
    router.out = s.experts;
    router.params = b.tensor(router.name + ".weight", {s.experts, s.hidden}, Role::router, false);
    if (s.router_bias) router.params += b.tensor(router.name + ".bias", {s.experts}, Role::router);
    b.node(router);
  }

  auto projection = [&](const std::string& name, int64_t in, int64_t out) {
    Node n;
    n.name = p + name;
    n.op = Op::linear;
    n.in = in;
    n.out = out;
    n.experts = s.experts;
    n.active = s.top_k;
    n.lora = false;
    n.linear = LinearKind::parameter;
    const int64_t rows = checked_mul(s.experts, s.intermediate, "the fused expert rows");
    Shape shape;
    if (s.layout == FusedExpertLayout::rows) shape = {rows, s.hidden};
    else if (s.layout == FusedExpertLayout::stacked_in_out) shape = {s.experts, in, out};
    else shape = {s.experts, out, in};
    n.params = b.tensor(n.name, shape, Role::expert, false);
    if (s.layout != FusedExpertLayout::rows)
      b.model().tensors.back().expert_axes =
          s.layout == FusedExpertLayout::stacked_in_out ? ExpertAxes::in_out : ExpertAxes::out_in;
    if (s.biases) n.params += b.tensor(n.name + "_bias", {s.experts, out}, Role::expert);
    b.node(std::move(n));
  };
  if (!s.gate_up.empty()) {
    b.read(x);
    projection(s.gate_up, s.hidden, checked_mul(2, s.intermediate, "the fused gate/up width"));
    b.read(b.cursor());
  } else {
    b.read(x);
    projection(s.gate, s.hidden, s.intermediate);
    const ValueId gate = b.cursor();
    b.read(x);
    projection(s.up, s.hidden, s.intermediate);
    b.reads({gate, b.cursor()});
  }
  Node act;
  act.name = p + "experts.act";
  act.op = Op::gated_activation;
  act.detail = s.act;
  act.act = act_kind(s.act);
  act.ffn_activation = true;
  act.in = checked_mul(2, s.intermediate, "the fused gate/up width");
  act.out = s.intermediate;
  act.experts = s.experts;
  act.active = s.top_k;
  b.node(std::move(act));
  projection(s.down, s.intermediate, s.hidden);
  b.model().blocks.back().nodes.back().routed_output = true;
  if (s.weighted_sum) {
    Node combine;
    combine.name = p + "experts.combine";
    combine.op = Op::other;
    combine.detail = "moe_weighted_sum";
    combine.in = combine.out = s.hidden;
    b.node(std::move(combine));
  }
}

}  // namespace cardfit

// See biased_experts.hpp.
#include "biased_experts.hpp"

namespace cardfit {

void biased_stacked_experts(ModelBuilder& b, const BiasedExpertsSpec& s) {
  const std::string p = s.prefix + ".";
  const std::string x = p + s.experts_name + ".";
  const int64_t gate_up = checked_mul(2, s.intermediate, "the gate/up width");
  const ValueId input = b.cursor();  // the router and the experts read x

  // 1. router: logits = x W^T + b over the experts; top_k of them, softmax over the chosen.
  Node router;
  router.name = p + s.router;
  router.op = Op::router;
  router.in = s.hidden;
  router.out = s.experts;
  router.params = b.tensor(router.name + ".weight", {s.experts, s.hidden}, Role::router, false);
  if (s.router_bias) router.params += b.tensor(router.name + ".bias", {s.experts}, Role::router);
  b.node(std::move(router));
  b.read(input);

  auto projection = [&](const std::string& name, int64_t in, int64_t out) {
    Node n;
    n.name = x + name;
    n.op = Op::linear;
    n.in = in;
    n.out = out;
    n.experts = s.experts;
    n.active = s.top_k;
    n.lora = false;
    n.linear = LinearKind::parameter;  // bare stacked parameters: neither adapted nor quantized
    n.params = b.tensor(n.name, {s.experts, in, out}, Role::expert, false);
    if (s.biases) n.params += b.tensor(n.name + "_bias", {s.experts, out}, Role::expert);
    b.node(std::move(n));
  };
  // 2. gate_up: each token through its top_k experts, x @ gate_up_proj[e] + gate_up_proj_bias[e].
  projection("gate_up_proj", s.hidden, gate_up);
  // 3. the gated activation over the interleaved gate (even) and up (odd) columns.
  Node act;
  act.name = x + "act";
  act.op = Op::gated_activation;
  act.detail = s.act;
  act.in = gate_up;
  act.out = s.intermediate;
  act.experts = s.experts;
  act.active = s.top_k;
  act.act = act_kind(s.act);
  act.ffn_activation = true;
  b.node(std::move(act));
  // 4. down: h @ down_proj[e] + down_proj_bias[e].
  projection("down_proj", s.intermediate, s.hidden);
  b.model().blocks.back().nodes.back().routed_output = true;
  // 5. the routing-weighted sum over the top_k (complete before a shared expert beside it runs).
  Node combine;
  combine.name = x + "combine";
  combine.op = Op::other;
  combine.detail = "moe_weighted_sum";
  combine.in = combine.out = s.hidden;
  b.node(std::move(combine));
}

}  // namespace cardfit

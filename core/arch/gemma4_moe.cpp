// Gemma 4's dense MLP beside routed experts (see gemma4_moe.hpp).
#include "gemma4_moe.hpp"

#include "../error.hpp"

namespace cardfit {

void gemma4_moe_decoder_layer(ModelBuilder& b, const SandwichLayerSpec& layer, const Gemma4MoeSpec& moe) {
  const std::string& prefix = layer.prefix;
  const std::string p = prefix + ".";
  const int64_t hidden = layer.hidden;
  b.norm(p + "input_layernorm", hidden, NormKind::rmsnorm);
  attention_block(b, layer.attn);
  b.norm(p + "post_attention_layernorm", hidden, NormKind::rmsnorm);
  b.residual(p + "residual_attn", hidden);
  const ValueId r = b.stream();  // the MLP's norm, the router and the experts' norm all read it

  b.read(r);
  b.norm(p + "pre_feedforward_layernorm", hidden, NormKind::rmsnorm);
  mlp_block(b, layer.mlp);
  b.norm(p + "post_feedforward_layernorm_1", hidden, NormKind::rmsnorm);
  const ValueId dense = b.cursor();

  // Gemma4TextRouter: a weightless RMSNorm times the learned scale is an RMSNorm whose weight is
  // router.scale (the constant hidden^-0.5 has no parameter): one norm node owning that vector.
  b.read(r);
  b.node({.name = p + "router.norm", .op = Op::norm, .detail = "rmsnorm", .in = hidden, .out = hidden,
          .params = b.tensor(p + "router.scale", {hidden}, Role::norm)});
  Node router{.name = p + "router.proj", .op = Op::router, .in = hidden, .out = moe.experts};
  router.params = b.tensor(router.name + ".weight", {moe.experts, hidden}, Role::router, false);
  // per_expert_scale multiplies the chosen experts' weights: the router node owns it.
  router.params += b.tensor(p + "router.per_expert_scale", {moe.experts}, Role::router);
  b.node(std::move(router));

  b.read(r);
  b.norm(p + "pre_feedforward_layernorm_2", hidden, NormKind::rmsnorm);
  // Gemma4TextExperts: bare [experts, out, in] parameters, gate and up in one.
  fused_moe_block(b, {.prefix = prefix, .hidden = hidden, .experts = moe.experts, .top_k = moe.top_k,
                      .intermediate = moe.intermediate, .router = "", .down = "experts.down_proj",
                      .layout = FusedExpertLayout::stacked, .act = moe.act, .gate_up = "experts.gate_up_proj",
                      .weighted_sum = true});
  b.norm(p + "post_feedforward_layernorm_2", hidden, NormKind::rmsnorm);
  const ValueId routed = b.cursor();

  // h1 + h2: an add of the two branches (typed as one; it keeps nothing for backward), not the stream.
  b.reads({dense, routed});
  b.node({.name = p + "feed_forward_sum", .op = Op::residual_add, .detail = "add", .in = hidden, .out = hidden});
  b.norm(p + "post_feedforward_layernorm", hidden, NormKind::rmsnorm);
  b.residual(p + "residual_mlp", hidden);
}

}  // namespace cardfit

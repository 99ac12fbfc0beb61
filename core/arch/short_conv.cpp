// LFM2's gated short convolution (see short_conv.hpp).
#include "short_conv.hpp"

namespace cardfit {

void short_conv_mixer(ModelBuilder& b, const ShortConvSpec& s) {
  const std::string p = s.prefix + ".";
  const int64_t h = s.hidden;
  b.linear(p + "in_proj", h, checked_mul(3, h, "the short-conv projection"), {.bias = s.bias, .role = Role::ssm});
  const ValueId bcx = b.cursor();
  // The two products are elementwise: each keeps its two factors (in = both widths) for backward.
  b.node({.name = p + "b_gate", .op = Op::other, .detail = "mul", .in = 2 * h, .out = h});
  Node conv{.name = p + "conv", .op = Op::conv1d, .detail = "depthwise_causal", .in = h, .out = h,
            .params = b.tensor(p + "conv.weight", {h, 1, s.kernel}, Role::ssm)};
  if (s.bias) conv.params += b.tensor(p + "conv.bias", {h}, Role::ssm);
  conv.conv_state = checked_mul(h, s.kernel, "the conv state");  // Lfm2HybridConvCache: [hidden, L_cache]
  b.node(std::move(conv));
  b.reads({bcx, b.cursor()});
  b.node({.name = p + "c_gate", .op = Op::other, .detail = "mul", .in = 2 * h, .out = h});
  b.linear(p + "out_proj", h, h, {.bias = s.bias, .role = Role::ssm});
}

}  // namespace cardfit

// The Mamba-2 mixer (see mamba2.hpp).
#include "mamba2.hpp"

namespace cardfit {

void mamba2_mixer(ModelBuilder& b, const Mamba2Spec& s) {
  const std::string p = s.prefix + ".";
  const int64_t inner = checked_mul(s.heads, s.head_dim, "the Mamba-2 inner width");
  const int64_t conv_dim = inner + 2 * checked_mul(s.groups, s.state, "the Mamba-2 B/C width");

  // 1. one input projection: the gate z, the conv input [x | B | C] and dt per head.
  b.linear(p + "in_proj", s.hidden, inner + conv_dim + s.heads, {.bias = s.proj_bias, .role = Role::ssm});

  // 2. depthwise causal conv over [x | B | C], then the activation.
  Node conv;
  conv.name = p + "conv1d";
  conv.op = Op::conv1d;
  conv.detail = "depthwise_causal";
  conv.in = conv.out = conv_dim;
  conv.params = b.tensor(conv.name + ".weight", {conv_dim, 1, s.conv_kernel}, Role::ssm);
  if (s.conv_bias) conv.params += b.tensor(conv.name + ".bias", {conv_dim}, Role::ssm);
  b.node(std::move(conv));
  b.activation(p + "conv_act", conv_dim, s.act);

  // 3. the selective scan with per-head scalar A (A_log), skip D and dt_bias.
  Node scan;
  scan.name = p + "ssd_scan";
  scan.op = Op::ssm;
  scan.detail = "mamba2";
  scan.in = conv_dim;
  scan.out = inner;
  scan.params = b.tensor(p + "dt_bias", {s.heads}, Role::ssm);
  scan.params += b.tensor(p + "A_log", {s.heads}, Role::ssm);
  scan.params += b.tensor(p + "D", {s.heads}, Role::ssm);
  scan.conv_state = checked_mul(conv_dim, s.conv_kernel, "the conv state");
  scan.recurrent_state = checked_mul(s.heads, checked_mul(s.head_dim, s.state), "the SSM state");
  scan.recurrent_state_bytes = s.state_bytes;
  b.node(std::move(scan));

  // 4. grouped gated RMSNorm (one [inner] weight), or the bare gate y * silu(z), then back to the
  // residual stream.
  Node norm;
  norm.name = p + (s.gated_norm ? "norm" : "gate");
  norm.op = s.gated_norm ? Op::norm : Op::other;
  norm.detail = s.gated_norm ? "rmsnorm_gated" : "silu_gate";
  norm.in = norm.out = inner;
  if (s.gated_norm) norm.params = b.tensor(norm.name + ".weight", {inner}, Role::norm);
  b.node(std::move(norm));
  b.linear(p + "out_proj", inner, s.hidden, {.bias = s.out_proj_bias.value_or(s.proj_bias), .role = Role::ssm});
}

}  // namespace cardfit

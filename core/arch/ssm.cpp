// The Mamba-1 mixer (see ssm.hpp).
#include "ssm.hpp"

namespace cardfit {

void mamba_mixer(ModelBuilder& b, const MambaSpec& s) {
  const std::string p = s.prefix + ".";
  b.linear(p + "in_proj", s.hidden, checked_mul(2, s.inner, "2 × the SSM inner width"), {.bias = s.proj_bias, .role = Role::ssm});

  Node conv;
  conv.name = p + "conv1d";
  conv.op = Op::conv1d;
  conv.detail = "depthwise_causal";
  conv.in = conv.out = s.inner;
  conv.params = b.tensor(conv.name + ".weight", {s.inner, 1, s.conv_kernel}, Role::ssm);
  if (s.conv_bias) conv.params += b.tensor(conv.name + ".bias", {s.inner}, Role::ssm);
  b.node(conv);
  b.activation(p + "conv_act", s.inner, s.act);

  b.linear(p + "x_proj", s.inner, checked_add(s.dt_rank, checked_mul(2, s.state, "2 × state_size"), "dt_rank + 2 × state_size"), {.bias = false, .role = Role::ssm});
  if (s.inner_norms) {
    b.norm(p + "dt_layernorm", s.dt_rank, NormKind::rmsnorm);
    b.norm(p + "b_layernorm", s.state, NormKind::rmsnorm);
    b.norm(p + "c_layernorm", s.state, NormKind::rmsnorm);
  }
  b.linear(p + "dt_proj", s.dt_rank, s.inner, {.bias = true, .role = Role::ssm});

  Node scan;
  scan.name = p + "selective_scan";
  scan.op = Op::ssm;
  scan.detail = "mamba1";
  scan.in = scan.out = s.inner;
  scan.params = b.tensor(p + "A_log", {s.inner, s.state}, Role::ssm);
  scan.params += b.tensor(p + "D", {s.inner}, Role::ssm);
  b.node(scan);
  b.gated_activation(p + "gate", s.inner, s.act);  // y * act(z), z the second half of in_proj
  b.linear(p + "out_proj", s.inner, s.hidden, {.bias = s.proj_bias, .role = Role::ssm});
}

}  // namespace cardfit

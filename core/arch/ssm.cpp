// The Mamba-1 mixer (see ssm.hpp).
#include "ssm.hpp"

namespace cardfit {

void mamba_mixer(ModelBuilder& b, const MambaSpec& s) {
  const std::string p = s.prefix + ".";
  // in_proj makes [x, z]; x runs through the causal conv, x_proj (dt, B, C) and the scan; the
  // output is scan(x) * act(z).
  b.linear(p + "in_proj", s.hidden, checked_mul(2, s.inner, "the Mamba in_proj width"),
           {.bias = s.proj_bias, .role = Role::ssm});
  const ValueId xz = b.cursor();

  Node conv;
  conv.name = p + "conv1d";
  conv.op = Op::conv1d;
  conv.detail = "depthwise_causal";
  conv.in = conv.out = s.inner;
  conv.params = b.tensor(conv.name + ".weight", {s.inner, 1, s.conv_kernel}, Role::ssm);
  if (s.conv_bias) conv.params += b.tensor(conv.name + ".bias", {s.inner}, Role::ssm);
  b.node(conv);
  b.activation(p + "conv_act", s.inner, s.act);
  const ValueId x = b.cursor();

  b.linear(p + "x_proj", s.inner, checked_add(s.dt_rank, checked_mul(2, s.state, "the Mamba state width"), "x_proj"),
           {.bias = false, .role = Role::ssm});
  const ValueId dbc = b.cursor();
  if (s.inner_norms) {
    // Jamba normalises the dt, B and C slices of x_proj's output separately.
    b.norm(p + "dt_layernorm", s.dt_rank, NormKind::rmsnorm);
    const ValueId dt = b.cursor();
    b.read(dbc);
    b.norm(p + "b_layernorm", s.state, NormKind::rmsnorm);
    b.read(dbc);
    b.norm(p + "c_layernorm", s.state, NormKind::rmsnorm);
    b.read(dt);
  }
  b.linear(p + "dt_proj", s.dt_rank, s.inner, {.bias = true, .role = Role::ssm});
  const ValueId dt = b.cursor();

  Node scan;
  scan.name = p + "selective_scan";
  scan.op = Op::ssm;
  scan.detail = "mamba1";
  scan.in = scan.out = s.inner;
  scan.params = b.tensor(p + "A_log", {s.inner, s.state}, Role::ssm);
  scan.params += b.tensor(p + "D", {s.inner}, Role::ssm);
  b.reads({x, dt});
  b.node(scan);
  b.reads({xz, b.cursor()});  // act(z) * y: z is the second half of in_proj's output
  b.gated_activation(p + "gate", s.inner, s.act);
  b.linear(p + "out_proj", s.inner, s.hidden, {.bias = s.proj_bias, .role = Role::ssm});
}

}  // namespace cardfit

// The gated delta net mixer (see linear_attention.hpp).
#include "linear_attention.hpp"

namespace cardfit {

void gated_delta_net(ModelBuilder& b, const GatedDeltaNetSpec& s) {
  const std::string p = s.prefix + ".";
  const int64_t key_dim = checked_mul(s.key_heads, s.key_head_dim, "the linear-attention key width");
  const int64_t value_dim = checked_mul(s.value_heads, s.value_head_dim, "the linear-attention value width");
  const int64_t conv_dim = 2 * key_dim + value_dim;
  const LinearSpec l{.bias = false, .role = Role::ssm};

  // 1-2. input projections, all reading x: q, k, v, the output gate z, and the per-head beta (b)
  // and decay (a) inputs.
  const ValueId x = b.cursor();
  auto project = [&](const std::string& name, int64_t out) {
    b.read(x);
    b.linear(p + name, s.hidden, out, l);
    return b.cursor();
  };
  ValueId qkv, z, beta, decay;
  if (s.split_projections) {
    qkv = project("in_proj_qkv", conv_dim);
    z = project("in_proj_z", value_dim);
    beta = project("in_proj_b", s.value_heads);
    decay = project("in_proj_a", s.value_heads);
  } else {
    qkv = z = project("in_proj_qkvz", conv_dim + value_dim);
    beta = decay = project("in_proj_ba", 2 * s.value_heads);
  }
  b.read(qkv);

  // 3. depthwise causal conv over [q | k | v], then silu.
  Node conv;
  conv.name = p + "conv1d";
  conv.op = Op::conv1d;
  conv.detail = "depthwise_causal";
  conv.in = conv.out = conv_dim;
  conv.params = b.tensor(conv.name + ".weight", {conv_dim, 1, s.conv_kernel}, Role::ssm);
  b.node(std::move(conv));
  b.activation(p + "conv_act", conv_dim, s.act);

  // 4. the gated delta rule over the value heads (q and k repeated to value_heads); it owns the
  // decay parameters and is where the per-sequence state lives.
  Node scan;
  scan.name = p + "gated_delta_rule";
  scan.op = Op::ssm;
  scan.detail = "gated_delta_rule";
  scan.in = conv_dim;
  scan.out = value_dim;
  scan.params = b.tensor(p + "dt_bias", {s.value_heads}, Role::ssm);
  scan.params += b.tensor(p + "A_log", {s.value_heads}, Role::ssm);
  scan.conv_state = checked_mul(conv_dim, s.conv_kernel, "the conv state");
  scan.recurrent_state = checked_mul(s.value_heads, checked_mul(s.key_head_dim, s.value_head_dim), "the recurrent state");
  scan.recurrent_state_bytes = s.recurrent_state_bytes;
  b.reads({b.cursor(), beta, decay});
  b.node(std::move(scan));

  // 5. gated RMSNorm per value head (one [value_head_dim] weight shared by the heads), gate silu(z).
  head_gated_rmsnorm(b, p + "norm", value_dim, s.value_head_dim, z);

  // 6. back to the residual stream.
  b.linear(p + "out_proj", value_dim, s.hidden, l);
}

void head_gated_rmsnorm(ModelBuilder& b, const std::string& name, int64_t width, int64_t head_dim, ValueId gate) {
  Node norm;
  norm.name = name;
  norm.op = Op::norm;
  norm.detail = "rmsnorm_gated";
  norm.in = norm.out = width;
  norm.params = b.tensor(name + ".weight", {head_dim}, Role::norm);
  b.reads({b.cursor(), gate});
  b.node(std::move(norm));
}

}  // namespace cardfit

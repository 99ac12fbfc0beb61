// Kimi Delta Attention (see kda.hpp).
#include "kda.hpp"

#include "linear_attention.hpp"

namespace cardfit {

void kda_mixer(ModelBuilder& b, const KdaSpec& s) {
  const std::string p = s.prefix + ".";
  const int64_t width = checked_mul(s.heads, s.head_dim, "the KDA width");
  const LinearSpec l{.bias = false, .role = Role::ssm};
  const ValueId x = b.cursor();
  auto project = [&](const std::string& name, int64_t in, int64_t out, ValueId from) {
    b.read(from);
    b.linear(p + name, in, out, l);
    return b.cursor();
  };
  // q, k and v, each through its own depthwise causal conv and silu.
  std::vector<ValueId> qkv;
  for (const char* name : {"q", "k", "v"}) {
    project(std::string(name) + "_proj", s.hidden, width, x);
    Node conv;
    conv.name = p + name + "_conv1d";
    conv.op = Op::conv1d;
    conv.detail = "depthwise_causal";
    conv.in = conv.out = width;
    conv.params = b.tensor(conv.name + ".weight", {width, 1, s.conv_kernel}, Role::ssm);
    b.node(std::move(conv));
    b.activation(p + name + "_conv_act", width, "silu");
    qkv.push_back(b.cursor());
  }
  const ValueId decay = project("f_b_proj", s.gate_rank, width, project("f_a_proj", s.hidden, s.gate_rank, x));
  const ValueId beta = project("b_proj", s.hidden, s.heads, x);
  const ValueId gate = project("g_proj", s.hidden, width, x);

  // The delta rule over the heads; it owns the decay parameters and is where the state lives.
  Node scan;
  scan.name = p + "delta_rule";
  scan.op = Op::ssm;
  scan.detail = "kda";
  scan.in = checked_mul(3, width, "the KDA inputs");
  scan.out = width;
  scan.params = b.tensor(p + "A_log", {s.a_log}, Role::ssm);
  scan.params += b.tensor(p + "dt_bias", {width}, Role::ssm);
  // fla's ShortConvolution cache keeps conv_kernel frames of q, k and v (the hf engine's); the
  // recurrent state is fp32 (SGLang's, vLLM's and mlx-lm's caches).
  scan.conv_state = checked_mul(scan.in, s.conv_kernel, "the conv state");
  scan.recurrent_state = checked_mul(s.heads, checked_mul(s.head_dim, s.head_dim), "the recurrent state");
  scan.recurrent_state_bytes = 4;
  b.reads({qkv[0], qkv[1], qkv[2], decay, beta});
  b.node(std::move(scan));

  head_gated_rmsnorm(b, p + "o_norm", width, s.head_dim, gate);
  b.linear(p + "o_proj", width, s.hidden, l);
}

}  // namespace cardfit

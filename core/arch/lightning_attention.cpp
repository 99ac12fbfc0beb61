// MiniMax's lightning attention (see lightning_attention.hpp).
#include "lightning_attention.hpp"

namespace cardfit {

void lightning_attention(ModelBuilder& b, const LightningAttentionSpec& s) {
  const std::string p = s.prefix + ".";
  const int64_t inner = checked_mul(s.heads, s.head_dim, "the lightning attention width");
  const LinearSpec l{.bias = false, .role = Role::attention};
  const ValueId x = b.cursor();  // qkv_proj and output_gate both read the layer's normed input

  b.linear(p + "qkv_proj", s.hidden, checked_mul(3, inner, "the qkv width"), l);
  b.activation(p + "qkv_act", checked_mul(3, inner, "the qkv width"), s.act);

  // The linear-attention recurrence: the per-sequence state is K^T V per head.
  Node scan;
  scan.name = p + "lightning_attn";
  scan.op = Op::ssm;
  scan.detail = "lightning_attention";
  scan.in = checked_mul(3, inner, "the qkv width");
  scan.out = inner;
  scan.recurrent_state = checked_mul(s.heads, checked_mul(s.head_dim, s.head_dim), "the lightning state");
  scan.recurrent_state_bytes = 0;  // .to(value_states): the activation dtype
  b.node(std::move(scan));
  b.norm(p + "norm", inner, NormKind::rmsnorm);
  const ValueId normed = b.cursor();

  b.read(x);
  b.linear(p + "output_gate", s.hidden, inner, l);
  Node gate;
  gate.name = p + "gate";
  gate.op = Op::other;
  gate.detail = "sigmoid_gate";
  gate.in = gate.out = inner;
  b.reads({normed, b.cursor()});
  b.node(std::move(gate));
  b.linear(p + "out_proj", inner, s.hidden, l);
}

}  // namespace cardfit

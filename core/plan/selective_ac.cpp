// The op policy's kept bytes, walked over a block's typed nodes in forward order (the order the
// policy's mm counter sees them).
#include "selective_ac.hpp"

namespace cardfit {

namespace {
int64_t mul(int64_t a, int64_t b) { return checked_mul(a, b, "selective checkpointing"); }
int64_t add(int64_t a, int64_t b) { return checked_add(a, b, "selective checkpointing"); }

// aten.mm: F.linear without bias on a 3-D input (at::linear: matmul, folded to mm); with a bias
// at::linear takes addmm (_flatten_nd_linear). A router is an nn.Linear too. A Float8Linear calls
// torch.mm on its Float8Tensor casts (torchao eab345c float8_linear.py
// manual_float8_matmul_with_args_in_float8, 0afa4c1 matmul_with_hp_or_float8_args): the policy's
// dispatch mode runs before the subclass turns it into _scaled_mm, so it sees aten.mm, and the
// output it saves is in the high-precision dtype.
bool runs_mm(const Node& n) {
  if (n.op != Op::linear && n.op != Op::router) return false;
  if (n.experts > 1 || n.linear != LinearKind::module) return false;
  return n.params <= mul(n.in, n.out);  // a bias: addmm
}

// Whether backward reads this output: false when every reader is a residual add (its backward
// hands the gradient on without reading its inputs) and the block's output is not it.
bool read_by_backward(const Block& b, const Node& n) {
  if (n.output == kNoValue || n.output == b.output) return true;
  for (const auto& r : b.nodes)
    for (ValueId v : r.inputs)
      if (v == n.output && r.op != Op::residual_add) return true;
  return false;
}
}  // namespace

int64_t op_sac_kept(const Model& m, size_t bi, const StepSetup& s, int64_t seq, int64_t decoder_seq, bool compiled) {
  const Block& b = m.blocks[bi];
  const int64_t c = s.compute;
  int64_t kept = 0, mm_count = 0;
  for (size_t i = 0; i < b.nodes.size(); ++i) {
    const Node& n = b.nodes[i];
    const int64_t t = node_tokens(m, bi, i, seq, decoder_seq, s.images);
    bool save = false;
    int64_t bytes = 0;
    if (runs_mm(n)) {
      save = ++mm_count % 2 == 1;  // "Saves output of all compute ops, except every second mm"
      bytes = mul(mul(n.out, t), c);
    } else if (n.op == Op::attention && s.attention != Attention::eager) {
      // _scaled_dot_product_{flash,efficient}_attention: output [B, H, T, Dv] and logsumexp [B, H, T].
      save = true;
      bytes = add(mul(mul(n.attn.heads, n.attn.v_head_dim), mul(t, c)), mul(mul(n.attn.heads, t), 4));
    }
    if (save && compiled && !read_by_backward(b, n)) save = false;
    if (save) kept = add(kept, bytes);
  }
  return kept;
}

}  // namespace cardfit

// FLOPs and saved activations per op. Sources: PyTorch autograd's saved tensors per op
// (derivatives.yaml), Korthikanti et al. 2022 (arXiv 2205.05198) §4, and docs/memory-model.md.
#include "graph_costs.hpp"

#include <algorithm>

namespace cardfit {

int64_t compute_bytes(Precision p) { return p == Precision::fp32 ? 4 : 2; }
int64_t residual_bytes(Precision p) {
  return p == Precision::bf16 ? 2 : 4;
}

namespace {
// Average number of keys a query attends to over a sequence of `seq` tokens.
double attended_span(const AttentionGeom& g, int64_t seq) {
  const double s = double(seq);
  if (!g.causal || g.cross) return s;
  if (g.window > 0 && g.window < seq) {
    const double w = double(g.window);
    return (w * (w + 1) / 2 + (s - w) * w) / s;  // ramp up to the window, then constant
  }
  return (s + 1) / 2;
}
}  // namespace

double forward_flops(const Node& n, const StepShape& s) {
  const double tokens = double(s.batch) * double(s.seq);
  switch (n.op) {
    case Op::linear:
    case Op::head:
    case Op::router:
      return 2.0 * double(n.in) * double(n.out) * double(n.active) * tokens;
    case Op::attention: {
      const AttentionGeom& g = n.attn;
      const double span = attended_span(g, s.seq);
      // QK^T and PV: 2 FLOPs per multiply-add each.
      return 2.0 * double(g.heads) * double(g.head_dim + g.v_head_dim) * span * tokens;
    }
    default:
      return 0;
  }
}

int64_t saved_bytes(const Node& n, const StepShape& s) {
  const int64_t tokens = checked_mul(s.batch, s.seq, "the token count");
  const int64_t c = compute_bytes(s.precision);
  auto per_token = [&](int64_t elems, int64_t bytes) {
    return checked_mul(checked_mul(tokens, elems, "saved activations"), bytes, "saved activations");
  };
  switch (n.op) {
    case Op::linear:
      // The input (cast to the compute dtype) is saved for the weight gradient. With a frozen base
      // weight only LoRA's own input needs it; LoRA saves the same tensor, so it is still kept.
      return per_token(n.in * n.active, c);
    case Op::head:
      return per_token(n.in, c);
    case Op::router:
      return per_token(n.in + n.out, c);
    case Op::norm:
      // Hugging Face norms upcast to fp32 and keep the input and the normalised output.
      return per_token(n.in, 4) + per_token(1, 4);
    case Op::activation:
      return per_token(n.in, c);
    case Op::gated_activation:
      return per_token(n.in, c) + per_token(n.out, c);
    case Op::attention: {
      const AttentionGeom& g = n.attn;
      // q, k, v and the output are saved; SDPA/flash keep a logsumexp per head and query.
      int64_t b = per_token(g.heads * g.head_dim + g.kv_heads * (g.head_dim + g.v_head_dim) +
                                g.heads * g.v_head_dim, c) + per_token(g.heads, 4);
      if (s.attention == Attention::eager) {
        // Eager attention stores the softmax probabilities (and the pre-softmax scores) per head.
        const int64_t span = g.window > 0 ? std::min(g.window, s.seq) : s.seq;
        b = checked_add(b, per_token(checked_mul(g.heads, span, "scores"), 2 * c), "saved activations");
      }
      return b;
    }
    case Op::residual_add:
    case Op::embedding:
    case Op::position_embedding:
      return 0;
    default:
      return per_token(n.out, c);
  }
}

int64_t block_saved_bytes(const Block& block, const StepShape& s) {
  int64_t total = 0;
  for (const auto& n : block.nodes)
    if (n.op != Op::head) total = checked_add(total, saved_bytes(n, s), "saved activations");
  return total;
}

}  // namespace cardfit

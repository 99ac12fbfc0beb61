// Per-node arithmetic over the traced graph: forward FLOPs and the bytes autograd saves for
// backward, at a given batch, sequence length and precision. Not the memory plan itself.
#pragma once
#include <cstdint>

#include "../model.hpp"
#include "options.hpp"

namespace cardfit {

struct StepShape {
  int64_t batch = 1, seq = 512;
  Precision precision = Precision::bf16_mixed;
  Attention attention = Attention::sdpa;
  bool frozen_base = false;  // LoRA/QLoRA: base weights need no gradient
};

/// Bytes of one element of the compute dtype (bf16/fp16 under autocast, else the weight dtype).
int64_t compute_bytes(Precision p);
/// Bytes of one element of the residual stream (fp32 under autocast: the embedding output and the
/// residual adds stay in the master dtype).
int64_t residual_bytes(Precision p);

/// Forward FLOPs of `node` for the whole batch × seq (multiply-add = 2 FLOPs; causal attention
/// counts only the unmasked half; sliding windows limit the span).
double forward_flops(const Node& node, const StepShape& s);

/// Bytes that autograd keeps from the forward of `node` until its backward.
int64_t saved_bytes(const Node& node, const StepShape& s);

/// Sum of saved_bytes over a block's nodes.
int64_t block_saved_bytes(const Block& block, const StepShape& s);

}  // namespace cardfit

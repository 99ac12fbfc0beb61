// The moments of one training step (every block's forward, the loss, every block's backward in
// reverse, the optimizer step) as fixed + per-sample bytes per memory component, from per-block
// byte counts. One pass with running sums of what the earlier blocks keep, so O(blocks) events in
// O(blocks) time. memory.cpp fills the inputs; the rules behind them: docs/memory-model.md.
#pragma once
#include <cstdint>
#include <vector>

#include "memory.hpp"

namespace cardfit {

/// One block's bytes for the step simulation (per sample unless named fixed).
struct BlockStepBytes {
  bool used = true;       // runs at all (a vision block at images = 0 does not)
  bool recorded = true;   // autograd records it (it has a backward)
  bool ckpt = false;      // gradient checkpointing wraps it: keeps only its input
  int64_t input = 0;      // its input (what checkpointing keeps)
  int64_t ckpt_kept = 0;  // checkpointed: what it keeps beyond its input until its backward (per-op
                          // selective checkpointing's saved outputs; 0 under whole-layer checkpointing)
  int64_t saved = 0;      // what autograd keeps from its forward until its backward
  int64_t fixed = 0;      // batch-independent bytes kept as long (fixed)
  int64_t casts = 0;      // autocast's weight casts (fixed)
  int64_t forward = 0, backward = 0;                 // working sets of its passes
  int64_t dequant_forward = 0, dequant_backward = 0;  // dequantized weights while it runs (fixed)
  int64_t grads = 0;      // its gradients (fixed)
  int64_t step_temp = 0;  // optimizer in backward: the temporary of its largest tensor's step (fixed)
};

struct TrainingStepBytes {
  std::vector<BlockStepBytes> blocks;
  MemoryModel::Event base;   // resident at every moment (weights, states, workspace, buckets...)
  int head_block = -1;       // the block holding the vocabulary head
  int64_t logits_forward = 0, logits_backward = 0, logits_grad = 0;  // per sample
  int64_t head_grad_early = 0;  // fixed: a fused loss's head gradient, made in forward (Liger)
  bool accum = false;        // gradient accumulation: gradients already in `base`
  int64_t ds_buckets = 0;    // DeepSpeed's per-backward buckets (fixed)
  int64_t total_grads = 0;
  int64_t optimizer_temporaries = 0;
  // Policies of the stack (stacks.hpp). grads_per_block: each block's gradients leave when its
  // backward ends (optimizer in backward steps and frees them; optimizer offload copies them out),
  // so no full gradient set exists. offload_acts: what blocks save for backward lives on the host
  // except the running block's (and, in backward, the next one's, prefetched).
  bool grads_per_block = false;
  bool offload_acts = false;
};

/// Totals of an event's components (checked).
void finish_event(MemoryModel::Event& e);

/// The events of the step, in order, with their totals.
std::vector<MemoryModel::Event> training_events(const TrainingStepBytes& step);

}  // namespace cardfit

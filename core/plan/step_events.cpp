// training_events: the step's moments with running sums of what earlier blocks keep. Every sum is
// the same checked integer sum a block-by-block re-add would give (non-negative terms: the same
// value, and an overflow at the same input), so the numbers are those of the O(blocks²) walk.
#include "step_events.hpp"

namespace cardfit {

namespace {
int64_t add(int64_t a, int64_t b) { return checked_add(a, b, "a memory term"); }
using M = MemoryModel;

// What blocks [0, i) keep at a forward moment (autocast's cache still alive under checkpointing)
// and at a backward one.
struct Kept {
  int64_t ckpt = 0, acts = 0, cast_forward = 0, cast_backward = 0;
};

// Activation offload: of what blocks [0, upto) keep, only blocks [from, upto)'s saved tensors are
// on the GPU; weight casts are not activations and stay (running sums: exact differences).
Kept resident(const std::vector<Kept>& before, size_t upto, size_t from, bool offload) {
  Kept k = before[upto];
  if (!offload) return k;
  k.ckpt -= before[from].ckpt;
  k.acts -= before[from].acts;
  return k;
}

void apply(const Kept& k, M::Event& e, bool in_forward) {
  e.per_sample[M::kCkptC] = add(e.per_sample[M::kCkptC], k.ckpt);
  e.per_sample[M::kActsC] = add(e.per_sample[M::kActsC], k.acts);
  e.fixed[M::kCastC] = add(e.fixed[M::kCastC], in_forward ? k.cast_forward : k.cast_backward);
}
}  // namespace

void finish_event(M::Event& e) {
  e.fixed_total = 0;
  e.per_sample_total = 0;
  for (int c = 0; c < M::kComponents; ++c) {
    e.fixed_total = add(e.fixed_total, e.fixed[size_t(c)]);
    e.per_sample_total = add(e.per_sample_total, e.per_sample[size_t(c)]);
  }
}

std::vector<M::Event> training_events(const TrainingStepBytes& st) {
  const size_t nb = st.blocks.size();
  std::vector<Kept> before(nb + 1);  // before[i]: kept by blocks [0, i)
  for (size_t j = 0; j < nb; ++j) {
    const BlockStepBytes& b = st.blocks[j];
    Kept k = before[j];
    if (b.ckpt) {
      k.ckpt = add(add(k.ckpt, b.input), b.ckpt_kept);
      k.cast_forward = add(k.cast_forward, b.casts);  // autocast's cache until it exits
    } else {
      k.acts = add(k.acts, b.saved);
      const int64_t cast = add(b.casts, b.fixed);
      k.cast_forward = add(k.cast_forward, cast);
      k.cast_backward = add(k.cast_backward, cast);
    }
    before[j + 1] = k;
  }

  std::vector<M::Event> events;
  events.reserve(2 * nb + 3);
  auto push = [&](M::Event e) {
    finish_event(e);
    events.push_back(e);
  };
  // Forward, block by block.
  for (size_t i = 0; i < nb; ++i) {
    const BlockStepBytes& b = st.blocks[i];
    if (!b.used) continue;
    M::Event e = st.base;
    e.phase = 0;
    e.block = int(i);
    apply(resident(before, i + 1, i, st.offload_acts), e, true);
    e.per_sample[M::kWorkC] = add(e.per_sample[M::kWorkC], b.forward);
    e.fixed[M::kCastC] = add(e.fixed[M::kCastC], b.dequant_forward);
    push(e);
  }
  // The loss, at the end of the forward (autocast still active).
  {
    M::Event e = st.base;
    e.phase = 0;
    e.what = "loss";
    apply(resident(before, nb, nb > 0 ? nb - 1 : 0, st.offload_acts), e, true);
    e.per_sample[M::kLogitsC] = st.logits_forward;
    e.fixed[M::kLogitsC] = add(e.fixed[M::kLogitsC], st.head_grad_early);
    push(e);
  }
  // Backward of the loss: autocast has exited (its cache freed under checkpointing).
  {
    M::Event e = st.base;
    e.phase = 1;
    e.what = "backward of the loss (log_softmax)";
    apply(resident(before, nb, nb > 0 ? nb - 1 : 0, st.offload_acts), e, false);
    e.per_sample[M::kLogitsC] = st.logits_backward;
    e.fixed[M::kLogitsC] = add(e.fixed[M::kLogitsC], st.head_grad_early);  // from here on: the head's gradient
    e.fixed[M::kDdpC] = add(e.fixed[M::kDdpC], st.ds_buckets);
    push(e);
  }
  // Backward, block by block in reverse: blocks before i still hold what they kept; block i holds
  // its own (recomputed under checkpointing); gradients of blocks >= i are allocated.
  int64_t grads_after = 0;
  for (size_t i = nb; i-- > 0;) {
    const BlockStepBytes& b = st.blocks[i];
    grads_after = add(grads_after, b.grads);
    if (!b.recorded) continue;
    M::Event e = st.base;
    e.phase = 1;
    e.block = int(i);
    const size_t prev = i > 0 ? i - 1 : 0;  // offload: the block whose tensors are prefetched
    if (b.ckpt) {
      apply(resident(before, i, prev, st.offload_acts), e, false);
      e.per_sample[M::kCkptC] = add(e.per_sample[M::kCkptC], b.input);
      e.per_sample[M::kRecomputeC] = b.saved;
      // The recompute runs the block's forward again, then its backward.
      const int64_t dequant = std::max(b.dequant_forward, b.dequant_backward);
      e.fixed[M::kCastC] = add(e.fixed[M::kCastC], add(add(b.casts, b.fixed), dequant));
    } else {
      apply(resident(before, i + 1, prev, st.offload_acts), e, false);
      e.fixed[M::kCastC] = add(e.fixed[M::kCastC], b.dequant_backward);
    }
    e.per_sample[M::kWorkC] = b.backward;
    if (int(i) == st.head_block) e.per_sample[M::kLogitsC] = st.logits_grad;
    if (st.grads_per_block) {
      e.fixed[M::kGradsC] = b.grads;
      e.fixed[M::kOptTempC] = b.step_temp;
    } else if (!st.accum) {
      e.fixed[M::kGradsC] = grads_after;
    }
    e.fixed[M::kDdpC] = add(e.fixed[M::kDdpC], st.ds_buckets);
    push(e);
  }
  // The optimizer step: all gradients, states and the step's temporaries.
  {
    M::Event e = st.base;
    e.phase = 2;
    e.what = "optimizer step";
    e.fixed[M::kGradsC] = st.grads_per_block ? 0 : st.total_grads;
    e.fixed[M::kDdpC] = add(e.fixed[M::kDdpC], st.ds_buckets);
    e.fixed[M::kOptTempC] = st.optimizer_temporaries;
    push(e);
  }
  return events;
}

}  // namespace cardfit

// The memory of one training step or one serving configuration, as named components and the
// peak over the phases of the step. Formulas and sources: docs/memory-model.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../model.hpp"
#include "options.hpp"

namespace cardfit {

/// Terms outside what max_memory_allocated sees, from the card catalog's defaults.
struct Overheads {
  int64_t cuda_context_bytes = 0;
  double allocator_reserve_fraction = 0;
};

struct Component {
  std::string id;     // "weights", "gradients", "optimizer_states", "activations", ...
  std::string label;  // for people
  int64_t bytes = 0;
};

struct Phase {
  std::string name;   // "forward_end", "backward", "optimizer_step", "prefill", "decode"
  int64_t bytes = 0;
};

struct MemoryPlan {
  Mode mode = Mode::full;
  int64_t batch = 1, seq = 0;
  std::vector<Component> components;  // what is live at the peak phase
  std::vector<Phase> phases;
  std::string peak_phase;
  int64_t peak_bytes = 0;      // what torch.cuda.max_memory_allocated would report
  int64_t reserved_bytes = 0;  // + CUDA context and allocator reserve: what the card must hold
  int64_t trainable_params = 0;
};

/// Parameters LoRA adds for the options' rank and targets.
int64_t lora_parameter_count(const Model& model, const Options& opt);

/// Everything about a (model, options, mode, seq) that does not depend on the batch, computed
/// once so the card solver can evaluate many batches cheaply.
class MemoryModel {
 public:
  MemoryModel(const Model& model, const Options& opt, Mode mode, int64_t seq, const Overheads& overheads);
  /// Memory at `batch` sequences of `seq` tokens (serving: `seq` tokens of context per sequence).
  MemoryPlan at(int64_t batch) const;

 private:
  const Options& opt_;
  Mode mode_;
  int64_t seq_;
  Overheads ov_;
  // Batch-independent state and per-sequence activation terms (see memory.cpp).
  int64_t weights_ = 0, adapters_ = 0, cast_cache_ = 0, grads_ = 0, states_ = 0, opt_temp_ = 0;
  int64_t head_grad_ = 0, trainable_ = 0;
  int64_t acts_ = 0, logits_fwd_ = 0, logits_bwd_ = 0;   // per sequence
  int64_t kv_ = 0, working_ = 0;                         // serving, per sequence
};

/// Convenience: MemoryModel(model, opt, mode, seq, overheads).at(batch).
MemoryPlan plan_memory(const Model& model, const Options& opt, Mode mode, int64_t batch, int64_t seq,
                       const Overheads& overheads);

}  // namespace cardfit

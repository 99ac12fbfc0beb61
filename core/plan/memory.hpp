// The memory of one training step or one serving configuration, as named components and the
// peak over the phases of the step. Formulas and sources: docs/memory-model.md.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "../model.hpp"
#include "options.hpp"

namespace cardfit {

/// cuBLAS/cuBLASLt workspace: PyTorch allocates it through the caching allocator (so
/// max_memory_allocated counts it); CUBLAS_WORKSPACE_CONFIG's default is 32 MiB on Hopper and
/// 8 MiB before (PyTorch docs, "cuBLAS workspaces"). The larger one, once per process (and per
/// pipeline stage).
inline constexpr int64_t kLibraryWorkspace = int64_t(32) << 20;
/// The largest batch a card's row is searched up to (MemoryModel::largest_batch's limit).
inline constexpr int64_t kMaxBatch = int64_t(1) << 20;

/// Terms outside what max_memory_allocated sees, from the card catalog's defaults (or options).
struct Overheads {
  int64_t cuda_context_bytes = 0;
  double allocator_reserve_fraction = 0;  // of (capacity - context): reserve = peak × f / (1 - f)
};

/// The caching allocator's reserve over a peak: the share f of the memory left after the context
/// that the allocator keeps cached but not allocated, so reserve = ceil(peak × f / (1 − f)).
int64_t allocator_reserve(int64_t peak, double fraction);

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
  std::vector<Component> components;  // what is live at the peak phase; sums to peak_bytes
  std::vector<Component> overheads;   // allocator_reserve, cuda_context: reserved - peak
  std::vector<Phase> phases;
  std::string peak_phase;
  std::string peak_event;      // the moment of the peak ("backward of model.layers.31", ...)
  int64_t peak_bytes = 0;      // what torch.cuda.max_memory_allocated would report
  int64_t reserved_bytes = 0;  // + CUDA context and allocator reserve: what the card must hold
  int64_t trainable_params = 0;
};

/// Bytes of one KV cache element: the kv_dtype when set, else the serving dtype's (16-bit unless fp32).
int64_t kv_bytes_per_element(const Options& opt);

/// Bytes of `elements` elements of tensor `t` served in the options' serve_dtype: linears quantized
/// (the vocabulary head too when `quantize_head`), the other tensors 16-bit (fp32 when serving fp32).
/// A routed-expert weight the model class holds as a bare parameter, not an nn.Linear (a fused stack
/// such as Qwen3.5-MoE's experts.gate_up_proj, DeepSeek-V4's per-expert w1): bitsandbytes leaves it
/// 16-bit, vLLM's FusedMoE quantizes it.
bool bare_expert_weight(const Tensor& t);
int64_t served_weight_bytes(const Tensor& t, int64_t elements, const Options& opt, bool quantize_head);
/// Parameters LoRA adds for the options' rank and targets.
int64_t lora_parameter_count(const Model& model, const Options& opt);
/// bitsandbytes 4-bit (nf4, fp4) storage of `weights` elements of a linear: the packed data, two
/// weights per byte, and the quantization constants (its QuantState: the absmax, and with double
/// quantization its own scales), in bytes; they sum to what the QLoRA base counts for the linear.
struct FourBitBytes {
  int64_t data = 0, constants = 0;
};
FourBitBytes four_bit_bytes(bool double_quant, int64_t weights);

/// What one block costs, for multi-card cuts: model state that lives on the card holding it, and
/// its activations per sample.
struct BlockMemory {
  int64_t state = 0;       // weights, adapters, gradients, optimizer states and temporaries, casts
  int64_t weights = 0;     // of which: the weights (what ZeRO-3 shards)
  int64_t gradients = 0;   // of which: gradients (ZeRO-2)
  int64_t optimizer = 0;   // of which: optimizer states and temporaries (ZeRO-1)
  int64_t gathered = 0;    // 16-bit weights a ZeRO-3 rank gathers to run this block
  int64_t acts = 0;        // per sample: kept for backward (checkpoint only, under checkpointing)
  int64_t work = 0;        // per sample: working set while it runs (recompute included)
  int64_t work_fixed = 0;  // batch-independent working bytes (dequantization, recomputed casts)
};

/// Everything about a (model, options, mode, seq) that does not depend on the batch, computed
/// once so the card solver can evaluate many batches cheaply: the peak is the maximum over the
/// moments of the step of (fixed bytes + batch × per-sample bytes).
class MemoryModel {
 public:
  MemoryModel(const Model& model, const Options& opt, Mode mode, int64_t seq, const Overheads& overheads);
  /// Memory at `batch` sequences of `seq` tokens (serving: `seq` tokens of context per sequence).
  MemoryPlan at(int64_t batch) const;
  /// Just the peak and the reserved bytes (no components): what the solver calls.
  int64_t peak(int64_t batch) const;
  int64_t reserved(int64_t batch) const;
  /// The peak with each component scaled (ZeRO/FSDP shards some of them over ranks) plus
  /// `extra` bytes at every moment (parameters a ZeRO-3 rank gathers).
  int64_t peak_scaled(int64_t batch, const std::array<double, 15>& scale, int64_t extra) const;
  /// Reserved bytes for a given peak (allocator reserve and CUDA context added).
  int64_t reserved_for(int64_t peak) const;
  /// Component indices for peak_scaled.
  enum ComponentIndex {
    kWeightsC, kAdaptersC, kStatesC, kGradsC, kCastC, kActsC, kCkptC, kRecomputeC, kLogitsC, kWorkC,
    kOptTempC, kKvC, kSsmC, kWorkspaceC, kDdpC
  };
  Mode mode() const { return mode_; }
  int64_t seq() const { return seq_; }
  const std::vector<BlockMemory>& blocks() const { return blocks_; }
  /// Per-sample logits and loss buffers (training) or last-token logits (serving), at the peak.
  int64_t logits_per_sample() const { return logits_; }
  /// Per-sample KV cache (serving).
  int64_t kv_per_sample() const { return kv_; }
  /// Optimizer states a paged optimizer keeps in unified memory, outside the peak (stacks.hpp).
  int64_t paged_bytes() const { return paged_; }
  /// The fp32 master copy inside the optimizer states (kStatesC) without autocast (memory.cpp
  /// optimizer_cost, fp32_master), 0 otherwise: a per-rank model partitions it apart.
  int64_t master_bytes() const { return master_; }
  /// Whether its optimizer can be sharded over ranks (ZeRO cuts; stacks.hpp optimizer_shardable).
  bool optimizer_shardable() const { return optimizer_shardable_; }

  static constexpr int kComponents = 15;

  /// One moment of the step, as the page re-evaluates it without the core: its bytes at `batch`
  /// are fixed + batch × per_sample, per component (ComponentIndex order).
  struct Moment {
    int phase = 0;       // index into phase_names()
    std::string what;    // the moment, as MemoryPlan::peak_event names it
    std::array<int64_t, kComponents> fixed{}, per_sample{};
    int64_t fixed_total = 0, per_sample_total = 0;
  };
  /// The moments that are the peak, or their phase's peak, at some batch in [1, max_batch], in
  /// step order (memory_events.cpp): the first maximum over them is the peak at every such batch,
  /// exactly as over all moments, and each phase's maximum is unchanged.
  std::vector<Moment> peak_candidates(int64_t max_batch) const;
  const std::vector<std::string>& phase_names() const { return phase_names_; }
  /// Component c's id and label, and whether at() lists it in this mode (the DDP buckets only
  /// where the peak moment's fixed bytes hold some: listed_if_fixed).
  std::string component_id_of(int c) const;
  const std::string& component_label_of(int c) const { return labels_[size_t(c)]; }
  bool listed(int c) const;
  bool listed_if_fixed(int c) const { return c == kDdpC; }
  const Overheads& overheads() const { return ov_; }

  /// One moment of the step: bytes live then, per component, as fixed + batch × per_sample.
  struct Event {
    int phase = 0;  // index into phase_names_
    int block = -1;
    const char* what = nullptr;  // the moment, when it is not a block's forward or backward
    std::array<int64_t, kComponents> fixed{};
    std::array<int64_t, kComponents> per_sample{};
    int64_t fixed_total = 0, per_sample_total = 0;
  };
  const std::vector<Event>& events() const { return events_; }
  /// One event's bytes with each component scaled, plus `extra`: the term peak_scaled maximises.
  static double scaled_bytes(const Event& e, int64_t batch, const std::array<double, 15>& scale, int64_t extra);

  /// The largest peak a card of `capacity` bytes holds: the largest p >= 0 with
  /// reserved_for(p) <= capacity, or -1 if not even an empty one (reserved_for is monotone).
  int64_t largest_peak(int64_t capacity) const;
  /// The largest batch in [1, limit] whose peak is at most `peak_limit`, or 0 if batch 1 exceeds
  /// it. Closed form: the peak is max over events of fixed + batch × per_sample, so the answer is
  /// the smallest floor((peak_limit − fixed) / per_sample) over the events (no search).
  int64_t largest_batch(int64_t peak_limit, int64_t limit) const;

 private:
  void add_event(Event e);
  const Event& peak_event(int64_t batch) const;
  std::string moment_name(const Event& e) const;

  Mode mode_;
  int64_t seq_;
  Overheads ov_;
  int64_t trainable_ = 0;
  int64_t logits_ = 0, kv_ = 0, paged_ = 0, master_ = 0;
  bool optimizer_shardable_ = true;
  std::array<std::string, kComponents> labels_;
  std::vector<std::string> phase_names_;
  std::vector<std::string> block_names_;
  std::vector<Event> events_;
  std::vector<BlockMemory> blocks_;
};

/// Convenience: MemoryModel(model, opt, mode, seq, overheads).at(batch).
MemoryPlan plan_memory(const Model& model, const Options& opt, Mode mode, int64_t batch, int64_t seq,
                       const Overheads& overheads);

}  // namespace cardfit

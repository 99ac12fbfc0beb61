// Multi-GPU training per rank: DDP, FSDP1 (FULL_SHARD / SHARD_GRAD_OP / HYBRID_SHARD), FSDP2
// fully_shard (reshard_after_forward True / False / int), DeepSpeed ZeRO-1/2/3 with optimizer and
// parameter offload, combined with tensor, context and expert parallel degrees. The per-rank step
// is the single-card step's moments (memory.hpp) with the model state replaced by what one rank
// holds at each moment (shards, gathered units, reduce buffers) and the activations split by the
// TP/CP degrees. Rules and sources: docs/memory-model.md, "Multi-GPU".
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../model.hpp"
#include "cards.hpp"
#include "memory.hpp"

namespace cardfit {

/// How N ranks are arranged: dp × tp × cp = N; experts split over ep ranks out of dp.
struct ParallelLayout {
  Parallel strategy = Parallel::none;
  int64_t gpus = 1, dp = 1, shard = 1, tp = 1, cp = 1, ep = 1;
  int64_t reshard_after_forward = 1;
  bool offload_optimizer = false, offload_params = false;
};

/// Checks the degrees against N and the model (heads, KV heads, experts); throws
/// Error(option_value) naming the field otherwise. Returns the layout.
ParallelLayout parallel_layout(const Model& model, const Options& opt, Parallel strategy, int64_t gpus);

/// One rank's memory at a batch: components at the peak moment (sum = peak_bytes), the phases'
/// peaks, and what sits in host memory instead (offload).
struct RankMemory {
  std::vector<Component> components;
  std::vector<Phase> phases;
  std::string peak_phase, peak_event;
  int64_t peak_bytes = 0, reserved_bytes = 0;
  std::vector<Component> host;  // offloaded to CPU memory (per rank)
  int64_t host_bytes = 0;
};

/// The per-rank model of one layout, built once from the single-card training model of the same
/// options (its moments give the activations, working sets and the order of the step).
class RankModel {
 public:
  /// Rank-state component indices.
  enum C {
    kParams, kQuantState, kMaster, kStates, kGrads, kOptTemp, kStepCopies, kGathered, kUnshardedGrads, kBuckets,
    kCast, kActs, kCkpt, kRecompute, kLogits, kWork, kComm, kWorkspace, kCount
  };
  static_assert(kCount == 18);

  RankModel(const Model& model, const Options& opt, const MemoryModel& single, const ParallelLayout& layout);
  RankMemory at(int64_t batch) const;
  int64_t peak(int64_t batch) const;
  int64_t reserved(int64_t batch) const { return single_.reserved_for(peak(batch)); }
  /// One moment of the step (an index into the single model's events()): the GPU bytes per
  /// component (kCount order) after offload, and what offload put in host memory.
  std::array<int64_t, kCount> moment(size_t event, int64_t batch, std::array<int64_t, kCount>* host = nullptr) const;

 private:
  std::array<int64_t, kCount> event_bytes(size_t event, int64_t batch) const;
  /// Moves the offloaded components out of `gpu`; returns them (host bytes).
  std::array<int64_t, kCount> offload(std::array<int64_t, kCount>& gpu) const;

  const MemoryModel& single_;
  ParallelLayout lay_;
  std::array<std::string, kCount> labels_;
  std::vector<std::string> block_names_;
  // Per block (the single model's block order): elements held per rank before data-parallel
  // sharding (after TP/EP), the shard per rank, the gathered (unsharded, padded) elements, the
  // largest module (ZeRO-3 fetch granularity), whether the block is a wrapped unit (a layer).
  std::vector<int64_t> elems_, shard_, gather_, module_;
  std::vector<char> unit_;
  std::vector<int64_t> next_unit_, prev_unit_;  // forward-order neighbour layer unit, or -1
  int64_t full_elems_ = 0, total_elems_ = 0, total_shard_ = 0, root_gather_ = 0, persistent_ = 0;
  std::vector<int64_t> shard_after_, root_grad_after_, gather_before_, retained_;  // running sums
  // Byte widths and totals of the single model.
  std::vector<int64_t> kept_;  // ZeRO-3: elements a block keeps gathered from forward to backward
  bool accum_ = false;         // gradient accumulation: sharded gradients live through the step
  // LoRA (under ZeRO and FSDP2): adapter elements per block (the only trainable ones), their total,
  // this rank's partition of them, and the partitions of the blocks after b (running sum).
  // FSDP2: a unit's adapter shard and all-gathered adapter elements, on its first block; the
  // single card's base and adapter weight bytes, sharded apart (frozen and trainable DTensors).
  bool lora_ = false;
  // LoRA and QLoRA under FSDP1 (fsdp, hsdp) as the HF Trainer wraps them: every adapter tensor is
  // a unit of its own (PEFT fsdp_auto_wrap_policy), so a layer's FlatParameter is its frozen base in
  // one dtype (flat_bytes_): 16-bit weights, or (QLoRA) its linears' 4-bit storage in the compute
  // dtype with its norms; the quantization constants stay whole on every rank.
  bool peft_fsdp1_ = false;
  int flat_bytes_ = 2;
  int64_t quant_constants_ = 0;
  int64_t storage_elems_ = 0, storage_bytes_ = 0;  // QLoRA under ZeRO-1/2: the 4-bit data, as elements and bytes
  bool lora_master_ = false;   // LoRA: the single card's states include an fp32 master copy
  int phase_offset_ = 0;       // 1 when the single model's first phase is the load
  std::vector<int64_t> train_, train_after_;
  int64_t total_train_ = 0, train_shard_ = 0;
  std::vector<int64_t> train_unit_shard_, train_unit_gather_;
  int64_t base_weights_ = 0, adapter_weights_ = 0;
  int master_ = 4, compute_ = 2;
  int64_t states_ = 0, temps_ = 0, weights_ = 0, grads_ = 0;
  int64_t single_master_ = 0;  // the fp32 master inside states_ (memory.hpp master_bytes)
  // ZeRO-1/2 step: the largest trainable tensor (elements; its gradient is copied to fp64 for the
  // norm) and whether torch's single-tensor AdamW steps the flat partition (optimizer_impl forloop).
  int64_t largest_grad_ = 0;
  bool torch_adam_ = false;
  double act_scale_ = 1, logit_scale_ = 1, work_scale_ = 1, ckpt_scale_ = 1;
  int64_t comm_per_sample_ = 0, bucket_elems_ = 0;
};

/// The topology of N cards of one type: 8 per node, the link within a node, the network between
/// nodes (an assumption), and whether the cut is recommended (rule in parallel.cpp).
struct Topology {
  int64_t cards_per_node = 8, nodes = 1;
  std::string intra_node, inter_node;
  bool recommended = true;
  std::string note;
};
Topology topology_for(const Card& card, int64_t gpus);

struct SmallestRanks {
  Parallel strategy = Parallel::none;
  bool offload = false;           // ZeRO-3 with optimizer and parameter offload
  int64_t gpus = 0;               // 0: none up to the search limit
  int64_t per_rank_reserved = 0;
  int64_t host_bytes = 0;         // offloaded bytes per rank (host memory the node must have)
  Topology topology;
};

struct CardParallel {
  const Card* card = nullptr;
  std::vector<SmallestRanks> smallest;
};

struct ParallelPlan {
  bool active = false;       // options.parallel != none
  bool supported = true;     // full fine-tuning only; otherwise `note` says why
  std::string note;
  ParallelLayout layout;
  int64_t batch = 1, seq = 0;
  RankMemory rank;
  std::optional<Topology> topology;  // the requested N on the priced card
  std::string priced_card;
  bool fits_priced = false;
  std::vector<CardParallel> cards;
  struct Source { std::string id, text, source; };
  std::vector<Source> assumptions;
};

/// The parallel section: per-rank memory of the requested strategy at N = gpus, and per card the
/// smallest N of each strategy. Empty (active false) when options.parallel is none.
ParallelPlan plan_parallel(const Model& model, const Options& opt, const MemoryModel& full, const Catalog& catalog,
                           const std::string& priced_card);

}  // namespace cardfit

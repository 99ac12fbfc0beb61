// Multi-card cuts for a configuration that does not fit one card at batch 1: a pipeline cut at
// block boundaries that balances the stages, and ZeRO-1/2/3 (FSDP) sharding for training or
// tensor parallelism for serving. Each at its fewest cards; the cheapest (card-hours, then cards)
// is chosen.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

#include "plan.hpp"

namespace cardfit {

/// The per-block profile a pipeline cut reads, as prefix sums and a range maximum: the peak of a
/// stage is O(1), exact in integers.
class StageProfile {
 public:
  explicit StageProfile(const std::vector<BlockMemory>& blocks);
  size_t size() const { return n_; }
  /// Peak bytes of a stage holding blocks [first, last) with `mult` micro-batches of activations in
  /// flight: the blocks' state, `mult` × their activations, the largest working set, the cuBLAS
  /// workspace (exact, in 128 bits).
  __int128 peak(size_t first, size_t last, int64_t mult) const;
  /// The greedy cut: each stage takes as many blocks as fit under `limit` (stage k of `stages`
  /// holds min(stages − k, micro) micro-batches), and a stage whose first block does not fit is
  /// left empty for the later, lighter stages; empty if `stages` stages cannot hold every block.
  /// For a monotone profile it holds every block whenever any cut into at most `stages` stages
  /// does (each of its stages ends at or after that cut's). O(stages × log blocks).
  std::vector<int64_t> greedy(int64_t stages, int64_t micro, int64_t limit) const;
  /// The same into `sizes` (its storage reused across the balancing probes); false where greedy is
  /// empty. On false, `next` (if given) gets the least limit above `limit` at which some stage would
  /// take one more block: every limit below it makes the same choices, so it fails too.
  bool greedy_into(int64_t stages, int64_t micro, int64_t limit, std::vector<int64_t>& sizes,
                   int64_t* next = nullptr) const;
  /// The fewest stages of any cut whose stages all peak at or under `limit` (stage k of p holding
  /// min(p − k, micro) micro-batches), by a greedy from the last stage backwards (whose
  /// multipliers do not depend on p); 0 if none. Monotone profiles only. O(stages × log blocks).
  int64_t fewest_stages(int64_t micro, int64_t limit) const;
  /// Sum of every block's state and activations (a lower bound on the stages' peaks together).
  __int128 state_and_acts() const { return state_.back() + acts_.back(); }
  /// Whether a block alone (one micro-batch) exceeds `limit`: then no cut fits.
  bool some_block_exceeds(int64_t limit) const;
  /// Every block's state and activations are non-negative (what the bounds above assume).
  bool monotone() const { return monotone_; }

 private:
  size_t n_ = 0;
  std::vector<__int128> state_, acts_;         // prefix sums, size n + 1
  bool narrow_ = false;                         // the prefix sums fit 62 bits: 64-bit copies below
  std::vector<int64_t> state64_, acts64_;
  std::vector<std::vector<int64_t>> work_max_;  // sparse table: max of work + work_fixed over 2^k blocks
  bool monotone_ = true;                        // every term non-negative (stage peaks grow with blocks)
};

/// Pipeline stage sizes (blocks per stage, in order) minimising the fullest stage's peak over every
/// cut into at most `stages` stages, exactly; a cut into s stages is a 1F1B schedule whose stage k
/// holds min(s − k, micro_batches) micro-batches of activations. Empty if none fits `limit` peak
/// bytes. An integer bisection over the limit of the greedy cut, which is exact for monotone
/// profiles (every real model's; a profile with a negative block takes the greedy's answer). On a
/// monotone profile the cut returned is the greedy's at the optimum: the same for every `limit`
/// that it fits.
std::vector<int64_t> pipeline_cut(const StageProfile& profile, int64_t stages, int64_t micro_batches, int64_t limit,
                                  int64_t* fullest = nullptr);
std::vector<int64_t> pipeline_cut(const MemoryModel& memory, int64_t stages, int64_t micro_batches,
                                  int64_t limit, int64_t* fullest = nullptr);

/// Peak bytes of one pipeline stage holding blocks [first, last) with `micro_batches_in_flight`
/// micro-batches of activations: the blocks' state, their activations, the largest working set.
double pipeline_stage_peak(const MemoryModel& memory, size_t first, size_t last, int64_t micro_batches_in_flight);

/// The multi-card solver of one memory model, built once and asked per card: the stage profile and
/// the sharded per-rank peaks (which depend on the rank count, not the card) are shared.
class SplitSolver {
 public:
  explicit SplitSolver(const MemoryModel& memory);
  /// The split over cards of `capacity` bytes, or nothing if even `max_cards` cards cannot hold it.
  /// Shared: the card rows of every plan over this model point at the one answer per capacity.
  std::shared_ptr<const Split> split(int64_t capacity, int64_t micro_batches, int64_t max_cards = 1024);
  /// Reserved bytes per rank at batch 1 of sharding strategy "zero1"/"zero2"/"zero3" (training)
  /// or "tensor" (serving) over n ranks, whether or not it fits a card (the fit advisor's savings).
  int64_t sharded_reserved(const std::string& strategy, int64_t n);

 private:
  std::optional<Split> solve(int64_t capacity, int64_t micro_batches, int64_t max_cards);
  // Per-rank peak (batch 1) of sharding strategy `stage` (0: tensor parallel) over n ranks.
  int64_t sharded(int stage, int64_t n);
  // Where the search for the fewest ranks under `limit` peak bytes starts (solve).
  int64_t fewest_ranks_guess(int stage, int64_t limit, int64_t max_cards);
  std::array<double, MemoryModel::kComponents> scales(int stage, int64_t n) const;
  // pipeline_cut over the profile, kept by (stages, micro-batches): on a monotone profile the
  // optimum cut does not depend on the limit (only whether it fits does), so the cards of every
  // capacity share one search.
  std::vector<int64_t> balanced_cut(int64_t stages, int64_t micro, int64_t limit, int64_t* fullest);

  const MemoryModel& memory_;
  StageProfile profile_;
  int64_t gathered_ = 0;  // ZeRO-3: the two largest blocks' 16-bit parameters
  std::map<std::pair<int, int64_t>, int64_t> sharded_;
  // Per strategy, each event's batch-1 bytes of the unscaled and the 1/n-scaled components.
  std::map<int, std::vector<std::pair<double, double>>> split_terms_;
  // Answers by (capacity, micro-batches, max cards): cards of one size share them.
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::shared_ptr<const Split>> splits_;
  struct Balanced {
    std::vector<int64_t> cut;  // the optimum cut, once found (fullest > 0: every peak holds the workspace)
    int64_t fullest = 0;
    int64_t fails_under = 0;   // the largest limit known to hold no cut
  };
  std::map<std::pair<int64_t, int64_t>, Balanced> balanced_;
};

/// The split of `memory` (batch 1) over cards of `capacity` bytes, or nothing if even `max_cards`
/// cards cannot hold it. `micro_batches`: micro-batches per step for the pipeline schedule.
std::optional<Split> split_across_cards(const MemoryModel& memory, int64_t capacity, int64_t micro_batches,
                                        int64_t max_cards = 1024);

}  // namespace cardfit

// Multi-card cuts for a configuration that does not fit one card at batch 1: a pipeline cut at
// block boundaries that balances the stages, and ZeRO-1/2/3 (FSDP) sharding for training or
// tensor parallelism for serving. Each at its fewest cards; the cheapest (card-hours, then cards)
// is chosen.
#pragma once
#include <optional>

#include "plan.hpp"

namespace cardfit {

/// Pipeline stage sizes (blocks per stage, in order) minimising the fullest stage's peak, with
/// `stages` stages; stage k of a 1F1B schedule holds min(stages − k, micro_batches) micro-batches
/// of activations. Empty if no cut into `stages` fits `limit` peak bytes.
std::vector<int64_t> pipeline_cut(const MemoryModel& memory, int64_t stages, int64_t micro_batches,
                                  int64_t limit, int64_t* fullest = nullptr);

/// Peak bytes of one pipeline stage holding blocks [first, last) with `micro_batches_in_flight`
/// micro-batches of activations: the blocks' state, their activations, the largest working set.
double pipeline_stage_peak(const MemoryModel& memory, size_t first, size_t last, int64_t micro_batches_in_flight);

/// The split of `memory` (batch 1) over cards of `capacity` bytes, or nothing if even `max_cards`
/// cards cannot hold it. `micro_batches`: micro-batches per step for the pipeline schedule.
std::optional<Split> split_across_cards(const MemoryModel& memory, int64_t capacity, int64_t micro_batches,
                                        int64_t max_cards = 1024);

}  // namespace cardfit

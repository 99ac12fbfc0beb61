// Multi-card cuts for a configuration that does not fit one card at batch 1: a pipeline cut at
// block boundaries balancing the stages, and ZeRO-3/FSDP sharding.
#pragma once
#include <optional>

#include "plan.hpp"

namespace cardfit {

/// The cheaper of the pipeline cut and ZeRO-3 sharding (fewer cards; on a tie ZeRO-3, which has
/// no pipeline bubble), or nothing if even `max_cards` cards cannot hold batch 1.
std::optional<Split> split_across_cards(const Model& model, const MemoryPlan& batch1, int64_t capacity,
                                        const Overheads& overheads, int64_t max_cards = 64);

}  // namespace cardfit

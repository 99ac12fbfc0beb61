// Memory against batch size, per mode: the points the page's batch-vs-memory chart draws against
// every card's capacity. Computed from the same MemoryModel the card solver uses, so a curve
// crosses a card's capacity exactly where the card table's largest batch says it does.
#pragma once
#include <cstdint>
#include <vector>

#include "plan.hpp"

namespace cardfit {

struct CurvePoint {
  int64_t batch = 1;
  int64_t peak_bytes = 0;      // what torch.cuda.max_memory_allocated would report
  int64_t reserved_bytes = 0;  // + CUDA context and allocator reserve: what the card must hold
};

struct MemoryCurve {
  Mode mode = Mode::full;
  int64_t seq = 0;             // tokens per sample (serving: context per sequence)
  std::vector<CurvePoint> points;  // increasing batch, starting at 1
};

/// The batches a curve samples: 1, 2, 3, 4, 6, 8, 11, 16, ... (about √2 apart, rounded, no
/// repeats), up to `limit` (inclusive when it is on the grid).
std::vector<int64_t> curve_batches(int64_t limit);

/// One curve per mode (full, lora, qlora, serve), sampled from the plan's own memory models. Each
/// runs from batch 1 past the largest batch any card of the plan holds: it stops at the first
/// sampled batch whose reserved bytes exceed the largest card's capacity, but not before batch 8.
std::vector<MemoryCurve> memory_curves(const Plan& plan);

}  // namespace cardfit

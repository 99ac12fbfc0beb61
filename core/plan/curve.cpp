// memory_curves: MemoryModel::at sampled on a geometric batch grid, per mode.
#include "curve.hpp"

#include <algorithm>
#include <cmath>

namespace cardfit {

namespace {
constexpr int64_t kMinLastBatch = 8;       // every curve shows at least batches 1..8
constexpr int64_t kMaxCurveBatch = 1 << 20;  // the card solver's limit
}  // namespace

std::vector<int64_t> curve_batches(int64_t limit) {
  std::vector<int64_t> out;
  double x = 1;
  while (true) {
    const auto b = int64_t(std::llround(x));
    if (b > limit) break;
    if (out.empty() || b > out.back()) out.push_back(b);
    x *= std::sqrt(2.0);
  }
  return out;
}

std::vector<MemoryCurve> memory_curves(const Plan& plan) {
  int64_t largest = 0;
  for (const auto& row : plan.cards) largest = std::max(largest, row.card->capacity_bytes);
  std::vector<MemoryCurve> curves;
  for (Mode mode : all_modes) {
    MemoryCurve c;
    c.mode = mode;
    c.seq = mode == Mode::serve ? plan.serve_seq : plan.seq;
    const MemoryModel& mm = plan.memory[size_t(mode)];
    for (int64_t b : curve_batches(kMaxCurveBatch)) {
      const int64_t peak = mm.peak(b);
      const int64_t reserved = mm.reserved_for(peak);
      c.points.push_back({b, peak, reserved});
      if (b >= kMinLastBatch && reserved > largest) break;
    }
    curves.push_back(std::move(c));
  }
  return curves;
}

}  // namespace cardfit

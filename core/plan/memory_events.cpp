// MemoryModel::peak_candidates: the few moments of a step that can be its peak (or a phase's
// peak) at some batch, so the page can re-evaluate a batch change and draw the curves from a short
// list instead of every moment. Exact over integer batches in [1, max_batch]; not an estimate.
#include <algorithm>

#include "memory.hpp"

namespace cardfit {

namespace {
// Bytes of line (f, s) at batch b, saturating: batches stay ≤ 2^20 and bytes ≤ 2^62 in practice,
// the saturation only keeps a pathological input from wrapping.
int64_t line_at(int64_t f, int64_t s, int64_t b) {
  if (s > 0 && b > (INT64_MAX - f) / s) return INT64_MAX;
  return f + s * b;
}
}  // namespace

// Per phase, walk the upper envelope of the lines fixed + batch × per_sample from batch 1 to
// max_batch: at each integer batch where the maximum changes hands, keep every moment that
// attains it (ties included, so the first-maximum rule of peak_event still picks the same one).
// Between those batches the maximum is the current line alone (or lines identical to it).
std::vector<MemoryModel::Moment> MemoryModel::peak_candidates(int64_t max_batch) const {
  std::vector<char> keep(events_.size(), 0);
  for (size_t phase = 0; phase < phase_names_.size(); ++phase) {
    std::vector<size_t> ids;
    for (size_t i = 0; i < events_.size(); ++i)
      if (size_t(events_[i].phase) == phase) ids.push_back(i);
    if (ids.empty()) continue;
    int64_t b = 1;
    while (true) {
      int64_t best = INT64_MIN;
      for (size_t i : ids) best = std::max(best, line_at(events_[i].fixed_total, events_[i].per_sample_total, b));
      size_t cur = ids.front();
      bool have = false;
      for (size_t i : ids)
        if (line_at(events_[i].fixed_total, events_[i].per_sample_total, b) == best) {
          keep[i] = 1;  // every moment at the maximum, and among them the steepest goes on
          if (!have || events_[i].per_sample_total > events_[cur].per_sample_total) cur = i;
          have = true;
        }
      // The first batch after b where a steeper line reaches the current one.
      const Event& c = events_[cur];
      int64_t next = INT64_MAX;
      for (size_t i : ids) {
        const Event& e = events_[i];
        if (e.per_sample_total <= c.per_sample_total) continue;
        const int64_t gap = line_at(c.fixed_total, c.per_sample_total, b) - line_at(e.fixed_total, e.per_sample_total, b);
        const int64_t slope = e.per_sample_total - c.per_sample_total;
        const int64_t steps = std::max<int64_t>(1, (gap + slope - 1) / slope);
        next = std::min(next, b > INT64_MAX - steps ? INT64_MAX : b + steps);
      }
      if (next > max_batch) break;
      b = next;
    }
  }
  std::vector<Moment> out;
  for (size_t i = 0; i < events_.size(); ++i) {
    if (!keep[i]) continue;
    const Event& e = events_[i];
    out.push_back({e.phase, moment_name(e), e.fixed, e.per_sample, e.fixed_total, e.per_sample_total});
  }
  return out;
}

}  // namespace cardfit

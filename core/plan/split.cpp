// Pipeline cuts over the per-block memory profile, and ZeRO / tensor-parallel sharding over the
// memory model's components.
#include "split.hpp"

#include <algorithm>
#include <cmath>

namespace cardfit {

namespace {
// cuBLAS workspace per card (see memory.cpp).
constexpr int64_t kWorkspace = int64_t(32) << 20;

double sat_add(double a, double b) { return a + b; }

// Peak of a pipeline stage holding blocks [first, last) with `mult` micro-batches in flight.
double stage_peak(const std::vector<BlockMemory>& blocks, size_t first, size_t last, double mult) {
  double state = 0, acts = 0, work = 0;
  for (size_t i = first; i < last; ++i) {
    state = sat_add(state, double(blocks[i].state));
    acts = sat_add(acts, double(blocks[i].acts));
    work = std::max(work, double(blocks[i].work) + double(blocks[i].work_fixed));
  }
  return state + mult * acts + work + double(kWorkspace);
}

// Greedy: each stage takes as many blocks as fit under `limit`; returns the stage sizes, or empty
// if `stages` stages cannot hold every block. Taking more blocks early never hurts later stages
// (they get a suffix), so the greedy answer is feasible whenever any cut is.
std::vector<int64_t> greedy(const std::vector<BlockMemory>& blocks, int64_t stages, int64_t micro, double limit) {
  std::vector<int64_t> sizes;
  size_t first = 0;
  for (int64_t k = 0; k < stages && first < blocks.size(); ++k) {
    const double mult = double(std::min(stages - k, std::max<int64_t>(1, micro)));
    size_t last = first;
    while (last < blocks.size() && stage_peak(blocks, first, last + 1, mult) <= limit) ++last;
    if (last == first) return {};
    sizes.push_back(int64_t(last - first));
    first = last;
  }
  if (first < blocks.size()) return {};
  return sizes;
}
}  // namespace

double pipeline_stage_peak(const MemoryModel& memory, size_t first, size_t last, int64_t mult) {
  return stage_peak(memory.blocks(), first, last, double(mult));
}

std::vector<int64_t> pipeline_cut(const MemoryModel& memory, int64_t stages, int64_t micro, int64_t limit,
                                  int64_t* fullest) {
  const auto& blocks = memory.blocks();
  if (stages < 1 || blocks.empty()) return {};
  std::vector<int64_t> best = greedy(blocks, stages, micro, double(limit));
  if (best.empty()) return {};
  // Balance: the smallest limit at which `stages` stages still hold everything.
  double lo = 0, hi = double(limit);
  for (int it = 0; it < 48 && hi - lo > std::max(1.0, hi * 1e-6); ++it) {
    const double mid = (lo + hi) / 2;
    std::vector<int64_t> cut = greedy(blocks, stages, micro, mid);
    if (!cut.empty()) {
      hi = mid;
      best = std::move(cut);
    } else {
      lo = mid;
    }
  }
  if (fullest) {
    double peak = 0;
    size_t first = 0;
    for (size_t k = 0; k < best.size(); ++k) {
      const double mult = double(std::min(int64_t(best.size()) - int64_t(k), std::max<int64_t>(1, micro)));
      peak = std::max(peak, stage_peak(blocks, first, first + size_t(best[k]), mult));
      first += size_t(best[k]);
    }
    *fullest = int64_t(std::ceil(peak));
  }
  return best;
}

std::optional<Split> split_across_cards(const MemoryModel& memory, int64_t capacity, int64_t micro,
                                        int64_t max_cards) {
  auto fits = [&](int64_t peak) { return memory.reserved_for(peak) <= capacity; };
  // The largest peak one card holds.
  int64_t limit = 0;
  {
    int64_t lo = 0, hi = capacity;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      fits(mid) ? lo = mid : hi = mid - 1;
    }
    limit = lo;
  }
  if (limit <= 0) return std::nullopt;
  std::vector<SplitOption> options;
  const int64_t nblocks = int64_t(memory.blocks().size());

  // Pipeline: the fewest stages that hold every block, balanced.
  for (int64_t p = 2; p <= std::min(max_cards, nblocks); ++p) {
    int64_t fullest = 0;
    std::vector<int64_t> cut = pipeline_cut(memory, p, micro, limit, &fullest);
    if (cut.empty()) continue;
    SplitOption o;
    o.strategy = "pipeline";
    o.cards = int64_t(cut.size());
    o.stage_layers = std::move(cut);
    o.per_card_bytes = memory.reserved_for(fullest);
    // 1F1B: (m + p - 1) / m of the ideal time on p cards.
    const double m = double(std::max<int64_t>(1, micro));
    o.card_hours = memory.mode() == Mode::serve ? 1.0 : (m + double(o.cards) - 1) / m;
    options.push_back(std::move(o));
    break;
  }

  // Sharding: the fewest ranks n whose per-rank peak fits.
  using M = MemoryModel;
  auto sharded = [&](const char* name, int stage, int64_t n) -> int64_t {
    std::array<double, MemoryModel::kComponents> scale;
    scale.fill(1.0);
    int64_t extra = 0;
    const double inv = 1.0 / double(n);
    if (memory.mode() == Mode::serve) {
      // Tensor parallelism: weights, KV cache and the working set split over n ranks.
      scale[M::kWeightsC] = scale[M::kKvC] = scale[M::kSsmC] = scale[M::kWorkC] = inv;
    } else {
      scale[M::kDdpC] = 0;                                    // ZeRO replaces DDP's buckets
      scale[M::kStatesC] = scale[M::kOptTempC] = inv;        // ZeRO-1
      if (stage >= 2) scale[M::kGradsC] = inv;                 // ZeRO-2
      if (stage >= 3) {                                        // ZeRO-3 / FSDP FULL_SHARD
        scale[M::kWeightsC] = scale[M::kAdaptersC] = inv;
        scale[M::kCastC] = inv;
        // The unit being run and the one prefetched, gathered in 16 bit.
        int64_t a = 0, b = 0;
        for (const auto& blk : memory.blocks()) {
          if (blk.gathered > a) { b = a; a = blk.gathered; }
          else if (blk.gathered > b) b = blk.gathered;
        }
        extra = a + b;
      }
    }
    (void)name;
    return memory.peak_scaled(1, scale, extra);
  };
  struct Strategy { const char* name; int stage; };
  const std::vector<Strategy> strategies = memory.mode() == Mode::serve
      ? std::vector<Strategy>{{"tensor", 0}}
      : std::vector<Strategy>{{"zero1", 1}, {"zero2", 2}, {"zero3", 3}};
  for (const auto& st : strategies) {
    if (!fits(sharded(st.name, st.stage, max_cards))) continue;
    int64_t lo = 2, hi = max_cards;  // smallest n that fits (per-rank peak falls with n)
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      fits(sharded(st.name, st.stage, mid)) ? hi = mid : lo = mid + 1;
    }
    SplitOption o;
    o.strategy = st.name;
    o.cards = lo;
    o.per_card_bytes = memory.reserved_for(sharded(st.name, st.stage, lo));
    o.card_hours = 1.0;
    options.push_back(std::move(o));
  }
  if (options.empty()) return std::nullopt;
  // Chosen: the fewest cards, then the fewest card-hours. Cheapest: the reverse order.
  auto fewer = [](const SplitOption& a, const SplitOption& b) {
    if (a.cards != b.cards) return a.cards < b.cards;
    return a.card_hours < b.card_hours - 1e-9;
  };
  auto cheaper = [](const SplitOption& a, const SplitOption& b) {
    if (std::abs(a.card_hours * double(a.cards) - b.card_hours * double(b.cards)) > 1e-9 &&
        std::abs(a.card_hours - b.card_hours) > 1e-9)
      return a.card_hours < b.card_hours;
    return a.cards < b.cards;
  };
  const SplitOption* best = &options.front();
  const SplitOption* cheapest = &options.front();
  for (const auto& o : options) {
    if (fewer(o, *best)) best = &o;
    if (cheaper(o, *cheapest)) cheapest = &o;
  }
  Split s;
  static_cast<SplitOption&>(s) = *best;
  s.alternatives = options;
  s.cheapest = cheapest->strategy;
  return s;
}

}  // namespace cardfit

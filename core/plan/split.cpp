// Pipeline cuts over the per-block memory profile (prefix sums and a range maximum), and ZeRO
// / tensor-parallel sharding over the memory model's components.
#include "split.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "largest_holding.hpp"

namespace cardfit {

StageProfile::StageProfile(const std::vector<BlockMemory>& blocks) : n_(blocks.size()) {
  state_.assign(n_ + 1, 0);
  acts_.assign(n_ + 1, 0);
  std::vector<int64_t> work(n_);
  for (size_t i = 0; i < n_; ++i) {
    const BlockMemory& b = blocks[i];
    state_[i + 1] = state_[i] + b.state;
    acts_[i + 1] = acts_[i] + b.acts;
    const __int128 w = __int128(b.work) + b.work_fixed;
    work[i] = w > INT64_MAX ? INT64_MAX : w < INT64_MIN ? INT64_MIN : int64_t(w);
    monotone_ = monotone_ && b.state >= 0 && b.acts >= 0;
  }
  // Prefix sums that fit 62 bits (every real model) also keep 64-bit copies: peak() then adds
  // and multiplies in 64 bits with overflow checks (wasm has no 128-bit multiply instruction).
  narrow_ = monotone_ && state_.back() < (__int128(1) << 62) && acts_.back() < (__int128(1) << 62);
  if (narrow_) {
    state64_.assign(state_.begin(), state_.end());
    acts64_.assign(acts_.begin(), acts_.end());
  }
  work_max_.push_back(std::move(work));
  for (size_t span = 2; span <= n_; span *= 2) {
    const std::vector<int64_t>& prev = work_max_.back();
    std::vector<int64_t> next(n_ - span + 1);
    for (size_t i = 0; i + span <= n_; ++i) next[i] = std::max(prev[i], prev[i + span / 2]);
    work_max_.push_back(std::move(next));
  }
}

__int128 StageProfile::peak(size_t first, size_t last, int64_t mult) const {
  if (last <= first) return kLibraryWorkspace;  // no blocks
  const size_t k = size_t(63 - __builtin_clzll(uint64_t(last - first)));  // 2^k <= blocks < 2^(k+1)
  const int64_t work = std::max(work_max_[k][first], work_max_[k][last - (size_t(1) << k)]);
  int64_t acts = 0, total = 0;
  if (narrow_ && !mul_overflows(acts64_[last] - acts64_[first], mult, &acts) &&
      !__builtin_add_overflow(state64_[last] - state64_[first], acts, &total) &&
      !__builtin_add_overflow(total, std::max<int64_t>(0, work), &total) &&
      !__builtin_add_overflow(total, kLibraryWorkspace, &total))
    return total;
  return (state_[last] - state_[first]) + __int128(mult) * (acts_[last] - acts_[first]) + std::max<int64_t>(0, work) +
         kLibraryWorkspace;
}

bool StageProfile::some_block_exceeds(int64_t limit) const {
  for (size_t i = 0; i < n_; ++i)
    if (peak(i, i + 1, 1) > limit) return true;
  return false;
}

int64_t StageProfile::fewest_stages(int64_t micro, int64_t limit) const {
  int64_t stages = 0;
  size_t last = n_;  // blocks [last, n) are placed
  while (last > 0) {
    const int64_t mult = std::min(stages + 1, std::max<int64_t>(1, micro));
    auto fits = [&](size_t first) { return peak(first, last, mult) <= limit; };
    if (!fits(last - 1)) return 0;
    size_t first = last - 1;  // fits; gallop towards the front, then bisect
    size_t step = 1;
    while (first >= step && fits(first - step)) {
      first -= step;
      step *= 2;
    }
    size_t lo = first >= step ? first - step : 0;  // lo does not fit, or is 0 and unknown
    if (lo == 0 && fits(0)) first = 0;
    while (first - lo > 1) {
      const size_t mid = lo + (first - lo) / 2;
      (fits(mid) ? first : lo) = mid;
    }
    last = first;
    ++stages;
  }
  return stages;
}

std::vector<int64_t> StageProfile::greedy(int64_t stages, int64_t micro, int64_t limit) const {
  std::vector<int64_t> sizes;
  return greedy_into(stages, micro, limit, sizes) ? sizes : std::vector<int64_t>{};
}

bool StageProfile::greedy_into(int64_t stages, int64_t micro, int64_t limit, std::vector<int64_t>& sizes,
                               int64_t* next) const {
  sizes.clear();
  size_t first = 0;
  int64_t least_next = INT64_MAX;
  // The peak of this stage with the block it did not take: a limit at which the stage takes more
  // (a peak past 64 bits is past every limit).
  auto note_next = [&](size_t from, size_t to, int64_t mult) {
    if (!next || to > n_) return;
    const __int128 p = peak(from, to, mult);
    if (p < least_next) least_next = int64_t(p);
  };
  for (int64_t k = 0; k < stages && first < n_; ++k) {
    const int64_t mult = std::min(stages - k, std::max<int64_t>(1, micro));
    auto fits = [&](size_t last) { return peak(first, last, mult) <= limit; };
    // Too heavy at this stage's micro-batches: the stage stays empty (the cut has one card fewer)
    // and the block goes to a later stage, which holds no more micro-batches.
    if (!fits(first + 1)) {
      note_next(first, first + 1, mult);
      continue;
    }
    size_t last = first + 1;  // fits
    if (monotone_) {
      // Galloping, then bisection: the peak grows with the blocks taken.
      size_t step = 1;
      while (last + step <= n_ && fits(last + step)) {
        last += step;
        step *= 2;
      }
      size_t hi = std::min(n_ + 1, last + step);  // does not fit (or past the end)
      while (hi - last > 1) {
        const size_t mid = last + (hi - last) / 2;
        (fits(mid) ? last : hi) = mid;
      }
    } else {
      while (last < n_ && fits(last + 1)) ++last;
    }
    note_next(first, last + 1, mult);
    sizes.push_back(int64_t(last - first));
    first = last;
  }
  if (next) *next = least_next;
  return first >= n_;
}

namespace {
// The fullest stage of `sizes` as the schedule of that many stages runs it.
int64_t fullest_stage(const StageProfile& profile, const std::vector<int64_t>& sizes, int64_t micro) {
  __int128 peak = 0;
  size_t first = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    const int64_t mult = std::min(int64_t(sizes.size()) - int64_t(k), std::max<int64_t>(1, micro));
    peak = std::max(peak, profile.peak(first, first + size_t(sizes[k]), mult));
    first += size_t(sizes[k]);
  }
  return peak > INT64_MAX ? INT64_MAX : int64_t(peak);
}
}  // namespace

std::vector<int64_t> pipeline_cut(const StageProfile& profile, int64_t stages, int64_t micro, int64_t limit,
                                  int64_t* fullest) {
  if (stages < 1 || profile.size() == 0) return {};
  std::vector<int64_t> best = profile.greedy(stages, micro, limit), cut;
  if (best.empty()) return {};
  // The least limit under which the greedy holds every block is the optimum: the greedy holds them
  // whenever some cut does (monotone profiles), and the greedy's own cut, run by its own stage
  // count (no more micro-batches per stage), peaks at that limit. Integers throughout: the answer
  // is the optimum to the byte, in at most 64 probes. A failing probe at `mid` fails at every limit
  // below the least one at which one of its stages takes a block more (greedy_into's `next`), so
  // the search skips to it: most probes move the lower end past many bisection steps.
  int64_t lo = 0, hi = fullest_stage(profile, best, micro);  // lo: no cut peaks at 0 (the workspace)
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    int64_t next = 0;
    if (profile.greedy_into(stages, micro, mid, cut, &next)) {
      hi = fullest_stage(profile, cut, micro);  // at most mid
      std::swap(best, cut);
    } else {
      // hi holds, so next <= hi: the limits in [mid, next) all fail.
      lo = std::clamp(next - 1, mid, hi - 1);
    }
  }
  // The greedy cut at the optimum itself, whichever probe found the optimum first: the answer is
  // then a function of the profile, the stages and the micro-batches alone, not of `limit` (the
  // solver keeps it once for every card; see SplitSolver::balanced_cut).
  if (profile.monotone()) profile.greedy_into(stages, micro, hi, best);
  if (fullest) *fullest = hi;
  return best;
}

std::vector<int64_t> pipeline_cut(const MemoryModel& memory, int64_t stages, int64_t micro, int64_t limit,
                                  int64_t* fullest) {
  return pipeline_cut(StageProfile(memory.blocks()), stages, micro, limit, fullest);
}

double pipeline_stage_peak(const MemoryModel& memory, size_t first, size_t last, int64_t mult) {
  return double(StageProfile(memory.blocks()).peak(first, last, mult));
}

SplitSolver::SplitSolver(const MemoryModel& memory) : memory_(memory), profile_(memory.blocks()) {
  // ZeRO-3: the unit being run and the one prefetched, gathered in 16 bit.
  int64_t a = 0, b = 0;
  for (const auto& blk : memory.blocks()) {
    if (blk.gathered > a) { b = a; a = blk.gathered; }
    else if (blk.gathered > b) b = blk.gathered;
  }
  gathered_ = a + b;
}

std::array<double, MemoryModel::kComponents> SplitSolver::scales(int stage, int64_t n) const {
  using M = MemoryModel;
  std::array<double, M::kComponents> scale;
  scale.fill(1.0);
  const double inv = 1.0 / double(n);
  if (memory_.mode() == Mode::serve) {
    // Tensor parallelism: weights, KV cache and the working set split over n ranks.
    scale[M::kWeightsC] = scale[M::kKvC] = scale[M::kSsmC] = scale[M::kWorkC] = inv;
  } else {
    scale[M::kDdpC] = 0;                                    // ZeRO replaces DDP's buckets
    scale[M::kStatesC] = scale[M::kOptTempC] = inv;        // ZeRO-1
    if (stage >= 2) scale[M::kGradsC] = inv;                 // ZeRO-2
    if (stage >= 3) scale[M::kWeightsC] = scale[M::kAdaptersC] = scale[M::kCastC] = inv;  // ZeRO-3 / FSDP
  }
  return scale;
}

// The per-rank peak is max over events of extra + Σ scale × bytes, which peak_scaled evaluates
// in double. Here each event is first bounded by A + B / n (its unscaled and its sharded bytes,
// two operations), and the exact expression is evaluated only for the events within 1e-12 of the
// largest bound: both roundings stay below 1e-14 relative, so no other event can hold the maximum
// and the answer is bit for bit peak_scaled's.
int64_t SplitSolver::sharded(int stage, int64_t n) {
  const auto key = std::make_pair(stage, n);
  if (auto it = sharded_.find(key); it != sharded_.end()) return it->second;
  const auto scale = scales(stage, n);
  const int64_t extra = stage >= 3 ? gathered_ : 0;
  auto& terms = split_terms_[stage];
  const auto& events = memory_.events();
  if (terms.empty()) {
    const auto unit = scales(stage, 2);  // which components are scaled: 1 / 2 marks them
    terms.reserve(events.size());
    for (const auto& e : events) {
      __int128 a = 0, b = 0;
      for (int c = 0; c < MemoryModel::kComponents; ++c) {
        const __int128 bytes = __int128(e.fixed[size_t(c)]) + e.per_sample[size_t(c)];
        if (unit[size_t(c)] == 1.0) a += bytes;
        else if (unit[size_t(c)] != 0.0) b += bytes;
      }
      terms.emplace_back(double(a), double(b));
    }
  }
  const double inv = 1.0 / double(n);
  double bound = 0;
  for (const auto& [a, b] : terms) bound = std::max(bound, double(extra) + a + inv * b);
  const double floor = bound - (bound * 1e-12 + 1.0);
  double best = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const auto& [a, b] = terms[i];
    if (double(extra) + a + inv * b >= floor) best = std::max(best, MemoryModel::scaled_bytes(events[i], 1, scale, extra));
  }
  const int64_t peak = int64_t(std::ceil(best));
  sharded_.emplace(key, peak);
  return peak;
}

int64_t SplitSolver::fewest_ranks_guess(int stage, int64_t limit, int64_t max_cards) {
  // Each event needs extra + a + b / n <= limit, so n >= b / (limit - extra - a): the largest such
  // bound, as a start only (the bound rounds; largest_holding finds the exact n from it).
  sharded(stage, max_cards);  // the terms
  const double room = double(limit) - double(stage >= 3 ? gathered_ : 0);
  double n = 1;
  for (const auto& [a, b] : split_terms_[stage])
    if (b > 0) n = room - a > 0 ? std::max(n, b / (room - a)) : double(max_cards);
  return int64_t(std::ceil(std::min(n, double(max_cards))));
}

int64_t SplitSolver::sharded_reserved(const std::string& strategy, int64_t n) {
  const int stage = strategy == "zero1" ? 1 : strategy == "zero2" ? 2 : strategy == "zero3" ? 3 : 0;
  return memory_.reserved_for(sharded(stage, std::max<int64_t>(1, n)));
}

std::shared_ptr<const Split> SplitSolver::split(int64_t capacity, int64_t micro, int64_t max_cards) {
  const auto key = std::make_tuple(capacity, micro, max_cards);
  if (auto it = splits_.find(key); it != splits_.end()) return it->second;
  std::optional<Split> s = solve(capacity, micro, max_cards);
  return splits_.emplace(key, s ? std::make_shared<const Split>(std::move(*s)) : nullptr).first->second;
}

std::vector<int64_t> SplitSolver::balanced_cut(int64_t stages, int64_t micro, int64_t limit, int64_t* fullest) {
  if (!profile_.monotone()) return pipeline_cut(profile_, stages, micro, limit, fullest);
  Balanced& b = balanced_[{stages, micro}];
  if (b.fullest == 0 && limit > b.fails_under) {  // not yet known at this limit
    b.cut = pipeline_cut(profile_, stages, micro, limit, &b.fullest);
    if (b.cut.empty()) b.fails_under = limit;
  }
  if (b.fullest == 0 || b.fullest > limit) return {};
  *fullest = b.fullest;
  return b.cut;
}

std::optional<Split> SplitSolver::solve(int64_t capacity, int64_t micro, int64_t max_cards) {
  const MemoryModel& memory = memory_;
  auto fits = [&](int64_t peak) { return memory.reserved_for(peak) <= capacity; };
  // The largest peak one card holds.
  const int64_t limit = memory.largest_peak(capacity);
  if (limit <= 0) return std::nullopt;
  std::vector<SplitOption> options;
  const int64_t nblocks = int64_t(profile_.size());

  // Pipeline: the fewest stages that hold every block, balanced. Stage counts below the bound
  // that the stages' peaks together must reach (each holds its blocks' state and activations at
  // least once, and the workspace) cannot hold the model, nor can any count if one block alone
  // exceeds the limit: both are skipped without changing the answer.
  int64_t first_p = 2;
  if (profile_.monotone() && limit > kLibraryWorkspace) {
    const __int128 need = (profile_.state_and_acts() + (limit - kLibraryWorkspace) - 1) / (limit - kLibraryWorkspace);
    first_p = int64_t(std::max<__int128>(2, std::min<__int128>(need, int64_t(1) << 40)));
  }
  if (nblocks > 0 && !(profile_.monotone() && profile_.some_block_exceeds(limit))) {
    // No forward greedy over fewer stages than the fewest any cut needs can succeed (a cut it
    // finds over s <= p stages holds with s stages' multipliers, which are no larger), so the
    // search starts there: the same answer without walking every count below it.
    // (None at all: no count.)
    if (profile_.monotone()) {
      const int64_t fewest = profile_.fewest_stages(micro, limit);
      first_p = fewest > 0 ? std::max(first_p, fewest) : std::numeric_limits<int64_t>::max();
    }
    for (int64_t p = first_p; p <= std::min(max_cards, nblocks); ++p) {
      int64_t fullest = 0;
      std::vector<int64_t> cut = balanced_cut(p, micro, limit, &fullest);
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
  }

  // Sharding: the fewest ranks n whose per-rank peak fits.
  struct Strategy { const char* name; int stage; };
  const std::vector<Strategy> strategies = memory.mode() == Mode::serve ? std::vector<Strategy>{{"tensor", 0}}
                                           : memory.optimizer_shardable()
                                               ? std::vector<Strategy>{{"zero1", 1}, {"zero2", 2}, {"zero3", 3}}
                                               : std::vector<Strategy>{};
  for (const auto& st : strategies) {
    if (!fits(sharded(st.stage, max_cards))) continue;
    // The smallest n >= 2 that fits (the per-rank peak falls with n): one past the largest that
    // does not, searched from the bound's inverse (fewest_ranks_guess), a probe or three.
    const int64_t lo = 1 + largest_holding(1, max_cards - 1, fewest_ranks_guess(st.stage, limit, max_cards) - 1,
                                           [&](int64_t n) { return n == 1 || !fits(sharded(st.stage, n)); });
    SplitOption o;
    o.strategy = st.name;
    o.cards = lo;
    o.per_card_bytes = memory.reserved_for(sharded(st.stage, lo));
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

std::optional<Split> split_across_cards(const MemoryModel& memory, int64_t capacity, int64_t micro, int64_t max_cards) {
  const auto s = SplitSolver(memory).split(capacity, micro, max_cards);
  return s ? std::optional<Split>(*s) : std::nullopt;
}

}  // namespace cardfit

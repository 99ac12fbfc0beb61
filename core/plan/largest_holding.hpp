// largest_holding: the largest integer in [lo, hi] at which a monotone predicate holds (it holds at
// lo, and once it fails it fails above), found from a guess: a few steps up or down when the guess
// is near, as an inverse in closed form is but for its rounding, and a bisection otherwise. The
// answer is the bisection's whatever the guess; only the number of evaluations depends on it.
#pragma once
#include <algorithm>
#include <cstdint>

namespace cardfit {

template <class Holds>
int64_t largest_holding(int64_t lo, int64_t hi, int64_t guess, Holds holds) {
  constexpr int kSteps = 4;  // past this many steps from the guess, bisect what is left
  if (hi <= lo) return lo;  // nothing above lo to look at
  int64_t at = std::clamp(guess, lo, hi);
  if (holds(at)) {
    lo = at;
    for (int i = 0; i <= kSteps && lo < hi; ++i) {
      if (!holds(lo + 1)) return lo;
      ++lo;
    }
  } else {
    hi = at - 1;
    for (int i = 0; i <= kSteps && lo < hi; ++i) {
      if (holds(hi)) return hi;
      --hi;
    }
  }
  while (lo < hi) {  // invariant: holds(lo); the answer is in [lo, hi]
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (holds(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

}  // namespace cardfit

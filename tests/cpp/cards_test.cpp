// The card catalog loads and the batch search is exact.
#include <catch2/catch.hpp>

#include "plan/cards.hpp"

namespace cards_test {

using namespace cardfit;

TEST_CASE("largest_fitting agrees with a linear scan") {
  for (int64_t limit : {1, 7, 100, 1000})
    for (int64_t threshold : {0, 1, 2, 5, 63, 64, 65, 999, 5000}) {
      auto fits = [&](int64_t b) { return b <= threshold; };
      CHECK(largest_fitting(fits, limit) == std::min(threshold, limit));
    }
}

TEST_CASE("the embedded catalog has the required cards with capacities and sources") {
  const Catalog cat = load_catalog();
  for (const char* id : {"t4", "l4", "a10g", "rtx4090", "a100-40gb", "a100-80gb", "h100-sxm", "h200", "b200", "mi300x"}) {
    INFO(id);
    const Card* c = find_card(cat, id);
    REQUIRE(c != nullptr);
    CHECK(c->capacity_bytes > 10'000'000'000LL);
  }
  CHECK(find_card(cat, "a100-80gb")->driver_mib == 81920);
  CHECK(cat.mfu > 0);
  CHECK(cat.overheads.cuda_context_bytes > 0);
}

TEST_CASE("a card without published TFLOP/s has a capacity but no training rate") {
  const Catalog cat = load_catalog();
  const Card* titan = find_card(cat, "titan-rtx");
  REQUIRE(titan != nullptr);
  CHECK(titan->capacity_bytes > 0);
  CHECK(titan->dense_tflops(Precision::bf16_mixed) == 0);
  // The T4 has no bf16: training is costed at its fp16 rate.
  CHECK(find_card(cat, "t4")->dense_tflops(Precision::bf16_mixed) == find_card(cat, "t4")->fp16_tflops);
}
}  // namespace cards_test

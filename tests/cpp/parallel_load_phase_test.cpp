// A load phase (load_phase: the llamafactory stack presets it) comes before the step in the single
// card's moments; the per-rank model (core/plan/parallel.cpp) must read the step after it: the same
// state, gradients and step as without the load.
#include <catch2/catch.hpp>

#include "parallel_test_util.hpp"

namespace parallel_load_phase_test {

using namespace cardfit;
using namespace cardfit::test;
using R = RankModel;

namespace {
struct Ranked : Llama8bRanks {
  explicit Ranked(const std::string& options) : Llama8bRanks(options, Mode::full) {}
};
}  // namespace

TEST_CASE("a load phase leaves the per-rank step unchanged (ZeRO-2 and FSDP)", "[parallel]") {
  for (const char* parallel : {"zero2", "fsdp"}) {
    INFO(parallel);
    const std::string base = std::string(R"({"mode":"full","gpus":4,"parallel":")") + parallel + "\"";
    const Ranked plain(base + "}"), loaded(base + R"(,"load_phase":true})");
    REQUIRE(loaded.single->phase_names().front() == "load");
    REQUIRE(loaded.single->events().size() == plain.single->events().size() + 1);
    const RankModel a = plain.rank(), b = loaded.rank();
    // Every moment of the step, counted from the step backwards, holds the same bytes per component.
    for (size_t i = 0; i < plain.single->events().size(); ++i) {
      INFO("moment " << i << " from the end");
      CHECK(a.moment(plain.from_end(i), 2) == b.moment(loaded.from_end(i), 2));
    }
    // The step keeps the optimizer states (the load moment has none: reading them there was the bug).
    CHECK(b.moment(loaded.from_end(0), 2)[R::kStates] > 0);
  }
}
}  // namespace parallel_load_phase_test

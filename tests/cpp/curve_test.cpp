// Memory against batch (core/plan/curve.hpp): the grid, agreement with the memory model, and
// agreement with the card table (a curve crosses each card's capacity where max_batch says).
#include <catch2/catch.hpp>

#include "arch/registry.hpp"
#include "config.hpp"
#include "plan/curve.hpp"
#include "test_util.hpp"

namespace curve_test {

using namespace cardfit;

TEST_CASE("curve batches: 1, 2, 3, 4, 6, 8, 11, 16, ... strictly increasing, up to the limit") {
  const auto b = curve_batches(64);
  const std::vector<int64_t> want = {1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64};
  CHECK(b == want);
  CHECK(curve_batches(1) == std::vector<int64_t>{1});
  CHECK(curve_batches(0).empty());
  const auto big = curve_batches(1 << 20);
  REQUIRE(big.size() > 30);
  for (size_t i = 1; i < big.size(); ++i) CHECK(big[i] > big[i - 1]);
  CHECK(big.back() <= (1 << 20));
}

TEST_CASE("memory curves agree with the memory model and with every card's largest batch") {
  const Model m = trace_model(Config::parse(example("gpt2.json")));
  const Catalog cat = load_catalog();
  Options o;
  o.lora_rank = 8;
  const Plan p = make_plan(m, o, cat);
  const auto curves = memory_curves(p);
  REQUIRE(curves.size() == 4);
  int64_t largest = 0;
  for (const auto& row : p.cards) largest = std::max(largest, row.card->capacity_bytes);
  for (const auto& c : curves) {
    INFO(mode_name(c.mode));
    CHECK(c.seq == (c.mode == Mode::serve ? p.serve_seq : p.seq));
    REQUIRE(!c.points.empty());
    CHECK(c.points.front().batch == 1);
    CHECK(c.points.back().batch >= 8);
    CHECK(c.points.back().reserved_bytes > largest);  // gpt2 fits every card at batch 1: the curve runs past all
    // Batch 1 is the mode's batch-1 summary.
    CHECK(c.points.front().peak_bytes == p.modes[int(c.mode)].peak_bytes);
    CHECK(c.points.front().reserved_bytes == p.modes[int(c.mode)].reserved_bytes);
    const MemoryModel mm(m, o, c.mode, c.seq, p.overheads);
    for (size_t i = 0; i < c.points.size(); ++i) {
      const auto& pt = c.points[i];
      CHECK(pt.peak_bytes == mm.peak(pt.batch));
      CHECK(pt.reserved_bytes == mm.reserved(pt.batch));
      if (i > 0) CHECK(pt.reserved_bytes >= c.points[i - 1].reserved_bytes);
      for (const auto& row : p.cards) {
        INFO(row.card->id << " at batch " << pt.batch);
        CHECK((pt.reserved_bytes <= row.card->capacity_bytes) == (pt.batch <= row.max_batch[int(c.mode)]));
      }
    }
  }
}

TEST_CASE("a model too large for every card still gets a curve from batch 1 to 8") {
  const auto cfg = nlohmann::json::parse(read_text(std::string(CARDFIT_GOLDEN_DIR) + "/mixtral-8x7b-v0.1.json"));
  const auto r = plan(cfg.at("config").dump(), {{"seq", 4096}});
  REQUIRE(r.at("ok") == true);
  const auto& full = r.at("curves").at("full");
  CHECK(full.at("seq") == 4096);
  const auto& pts = full.at("points");
  REQUIRE(pts.size() == 6);  // 1, 2, 3, 4, 6, 8: past every card from the start
  CHECK(pts.front().at("batch") == 1);
  CHECK(pts.back().at("batch") == 8);
  CHECK(pts.front().at("reserved_bytes") == r.at("modes").at("full").at("reserved_bytes"));
  for (const char* mode : {"full", "lora", "qlora", "serve"}) CHECK(r.at("curves").contains(mode));
}
}  // namespace curve_test

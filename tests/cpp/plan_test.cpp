// The card solver (exact largest batch, borderline band), multi-card cuts and cost.
#include <catch2/catch.hpp>

#include "arch/registry.hpp"
#include "config.hpp"
#include "plan/cost.hpp"
#include "plan/plan.hpp"
#include "plan/split.hpp"
#include "test_util.hpp"

namespace plan_test {

using namespace cardfit;
using nlohmann::json;

namespace {
std::string golden_config(const std::string& file) {
  return json::parse(read_text(std::string(CARDFIT_GOLDEN_DIR) + "/" + file)).at("config").dump();
}
const CardRow& row(const Plan& p, const std::string& id) {
  for (const auto& r : p.cards)
    if (r.card->id == id) return r;
  FAIL("no card " << id);
  return p.cards.front();
}
}  // namespace

TEST_CASE("the largest batch per card equals a linear scan of the memory model") {
  const Model m = trace_model(Config::parse(example("Meta-Llama-3-8B.json")));
  const Catalog cat = load_catalog();
  Options o;
  o.seq = 1024;
  const Plan p = make_plan(m, o, cat);
  for (Mode mode : all_modes) {
    const MemoryModel mm(m, o, mode, mode == Mode::serve ? p.serve_seq : p.seq, p.overheads);
    for (const auto& r : p.cards) {
      INFO(r.card->id << " " << mode_name(mode));
      int64_t scan = 0;
      while (scan < 4096 && mm.reserved(scan + 1) <= r.card->capacity_bytes) ++scan;
      CHECK(r.max_batch[int(mode)] == scan);
      CHECK(r.safe_batch[int(mode)] <= r.max_batch[int(mode)]);
      CHECK(r.borderline[int(mode)] == (r.max_batch[int(mode)] > 0 && r.safe_batch[int(mode)] == 0));
      if (r.max_batch[int(mode)] > 0) {
        // The safe batch holds the estimate × the borderline factor; one more does not.
        const int64_t s = r.safe_batch[int(mode)];
        auto holds = [&](int64_t b) {
          return mm.reserved_for(int64_t(std::ceil(double(mm.peak(b)) * p.borderline_factor))) <= r.card->capacity_bytes;
        };
        if (s > 0) CHECK(holds(s));
        CHECK_FALSE(holds(s + 1));
      }
    }
  }
}

TEST_CASE("gemma-2-9b-it: full fine-tune at 2048 needs more than one H200, with a cut, LoRA r=16 fits one A100 80GB") {
  const Model m = trace_golden("gemma-2-9b-it.json");
  const Catalog cat = load_catalog();
  Options o;
  o.seq = 2048;
  o.lora_rank = 16;
  const Plan p = make_plan(m, o, cat);
  const CardRow& h200 = row(p, "h200");
  CHECK(h200.max_batch[int(Mode::full)] == 0);
  REQUIRE(h200.split[int(Mode::full)]);
  const Split& s = *h200.split[int(Mode::full)];
  CHECK(s.cards >= 2);
  CHECK(s.per_card_bytes <= h200.card->capacity_bytes);
  bool has_pipeline = false;
  for (const auto& a : s.alternatives) {
    CHECK(a.per_card_bytes <= h200.card->capacity_bytes);
    if (a.strategy != "pipeline") continue;
    has_pipeline = true;
    int64_t blocks = 0;
    for (int64_t n : a.stage_layers) {
      CHECK(n > 0);
      blocks += n;
    }
    CHECK(blocks == int64_t(m.blocks.size()));  // a cut at block boundaries covering every block
    CHECK(a.cards == int64_t(a.stage_layers.size()));
  }
  CHECK(has_pipeline);
  CHECK(row(p, "a100-80gb").max_batch[int(Mode::lora)] >= 1);
}

TEST_CASE("a pipeline cut into two stages is the most balanced of all two-stage cuts, to the byte") {
  const Model m = trace_golden("gemma-2-9b-it.json");
  Options o;
  const MemoryModel mm(m, o, Mode::full, 2048, {805306368, 0.05});
  int64_t fullest = 0;
  const auto cut = pipeline_cut(mm, 2, 32, int64_t(1) << 50, &fullest);
  REQUIRE(cut.size() == 2);
  const size_t n = mm.blocks().size();
  double best = pipeline_stage_peak(mm, 0, n, 1);  // one stage is a cut into at most two
  for (size_t k = 1; k < n; ++k)
    best = std::min(best, std::max(pipeline_stage_peak(mm, 0, k, 2), pipeline_stage_peak(mm, k, n, 1)));
  REQUIRE(best < 9007199254740992.0);  // 2^53: the doubles hold the integer peaks exactly
  CHECK(fullest == int64_t(best));
  const double first = pipeline_stage_peak(mm, 0, size_t(cut[0]), 2);
  const double second = pipeline_stage_peak(mm, size_t(cut[0]), n, 1);
  CHECK(int64_t(std::max(first, second)) == fullest);
}

TEST_CASE("sharding: ZeRO-3 needs no more ranks than ZeRO-2, which needs no more than ZeRO-1") {
  const Model m = trace_golden("gemma-2-9b-it.json");
  Options o;
  const MemoryModel mm(m, o, Mode::full, 2048, {805306368, 0.05});
  const auto s = split_across_cards(mm, 150217949184LL, 32);  // an H200
  REQUIRE(s.has_value());
  std::map<std::string, int64_t> cards;
  for (const auto& a : s->alternatives) cards[a.strategy] = a.cards;
  REQUIRE(cards.count("zero1"));
  REQUIRE(cards.count("zero3"));
  CHECK(cards["zero3"] <= cards["zero2"]);
  CHECK(cards["zero2"] <= cards["zero1"]);
  // The chosen strategy has the fewest cards; the cheapest in card-hours is named.
  for (const auto& a : s->alternatives) CHECK(s->cards <= a.cards);
  CHECK(s->cheapest.rfind("zero", 0) == 0);  // no pipeline bubble
}

TEST_CASE("cost: LoRA skips the frozen weight gradients, checkpointing adds a forward") {
  const Model m = trace_model(Config::parse(example("Meta-Llama-3-8B.json")));
  Options o;
  const double fwd = forward_flops_per_token(m, 2048);
  const double full = step_flops_per_token(m, o, Mode::full, 2048);
  const double lora = step_flops_per_token(m, o, Mode::lora, 2048);
  CHECK(full == Approx(3 * fwd));
  CHECK(lora < 0.72 * full);
  CHECK(lora > 0.6 * full);
  o.grad_ckpt = true;
  const double ckpt = step_flops_per_token(m, o, Mode::full, 2048);
  CHECK(ckpt > full);
  CHECK(ckpt < full + fwd);  // the head is not recomputed
  // 2·N per token for the matmuls, plus causal attention.
  CHECK(fwd > 2.0 * 7.5e9);
  CHECK(fwd < 2.0 * 8.1e9);
}

TEST_CASE("cost rows: a card without a dense peak is not priced and never the cheapest") {
  const Model m = trace_model(Config::parse(example("gpt2.json")));
  const Catalog cat = load_catalog();
  const Plan p = make_plan(m, Options{}, cat);
  bool saw_titan = false;
  for (const auto& r : p.cost.rows) {
    if (r.card->id == "titan-rtx") {
      saw_titan = true;
      CHECK(r.fits);
      CHECK_FALSE(r.priced);
    }
    if (r.priced) CHECK(r.usd > 0);
  }
  CHECK(saw_titan);
  REQUIRE(p.cost.cheapest.has_value());
  CHECK(p.cost.cheapest->fits);
  CHECK(p.cost.cheapest->priced);
  CHECK(p.cost.cheapest->card->id != "titan-rtx");
  for (const auto& r : p.cost.rows)
    if (r.priced && r.fits && r.mode == p.cost.cheapest->mode) CHECK(r.usd >= p.cost.cheapest->usd);
}

TEST_CASE("handle(): the requested plan has peak, reserved and components that sum to the peak") {
  const json r = plan(golden_config("gemma-2-9b-it.json"),
                      {{"mode", "lora"}, {"batch", 4}, {"seq", 2048}, {"lora_rank", 16}});
  REQUIRE(r["ok"] == true);
  const json& p = r["plan"];
  int64_t sum = 0;
  for (const auto& [id, bytes] : p["components"].items()) sum += bytes.get<int64_t>();
  CHECK(sum == p["peak_bytes"].get<int64_t>());
  int64_t over = 0;
  for (const auto& [id, bytes] : p["overheads"].items()) over += bytes.get<int64_t>();
  CHECK(p["reserved_bytes"].get<int64_t>() == p["peak_bytes"].get<int64_t>() + over);
  CHECK(p["components"].contains("logits"));
  CHECK(r["cards"][0].contains("safe_batch"));
}
}  // namespace plan_test

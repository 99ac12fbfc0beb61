// "Make it fit" (plan/fit_advisor.hpp): every change's saving is the difference of two exact plans,
// the best combination fits, the longest sequence is exact; the cards filter, the custom card and
// the bf16 check (plan/checks.hpp card_checks).
#include <catch2/catch.hpp>

#include <set>

#include "cardfit/planner.hpp"
#include "plan/checks.hpp"
#include "plan/fit_advisor.hpp"
#include "plan/plan.hpp"
#include "plan/split.hpp"
#include "test_util.hpp"

namespace fit_advisor_test {

using namespace cardfit;
using nlohmann::json;

namespace {
const FitChange* change(const FitAdvice& a, const std::string& id) {
  for (const auto& c : a.changes)
    if (c.id == id) return &c;
  return nullptr;
}
const CardRow& row(const Plan& p, const std::string& id) {
  for (const auto& r : p.cards)
    if (r.card->id == id) return r;
  FAIL("no card " << id);
  return p.cards.front();
}
}  // namespace

TEST_CASE("gemma-2-9b-it on an A10G: checkpointing, QLoRA and ZeRO-3, each saving what two exact plans differ by") {
  const Model m = trace_golden("gemma-2-9b-it.json");
  const Catalog cat = load_catalog();
  Options o;
  o.mode = Mode::lora;
  o.fit_card = "a10g";
  const Plan base = make_plan(m, o, cat);
  const Card& a10g = *find_card(cat, "a10g");
  const FitAdvice a = advise_fit(m, base, cat, a10g);
  CHECK_FALSE(a.fits);
  CHECK(a.reserved_bytes == base.requested.reserved_bytes);
  CHECK(a.capacity_bytes == a10g.capacity_bytes);

  auto replanned = [&](auto edit) {
    Options x = o;
    edit(x);
    return make_plan(m, x, cat).requested.reserved_bytes;
  };
  const FitChange* ckpt = change(a, "grad_ckpt");
  REQUIRE(ckpt);
  CHECK(ckpt->saved_bytes == base.requested.reserved_bytes - replanned([](Options& x) { x.grad_ckpt = true; }));
  CHECK(ckpt->saved_bytes > 0);
  CHECK(ckpt->time_factor > 1.0);  // one more forward of every block
  CHECK(ckpt->time_factor < 1.5);

  const FitChange* qlora = change(a, "qlora");
  REQUIRE(qlora);
  CHECK(qlora->saved_bytes == base.requested.reserved_bytes - replanned([](Options& x) { x.mode = Mode::qlora; }));
  CHECK(qlora->saved_bytes > 0);  // a 4-bit base instead of a 16-bit one (activations dominate at 2048 tokens)
  CHECK(qlora->fits == (replanned([](Options& x) { x.mode = Mode::qlora; }) <= a10g.capacity_bytes));
  CHECK_FALSE(qlora->source.empty());

  const FitChange* zero3 = change(a, "zero3");
  REQUIRE(zero3);
  // The planner's own ZeRO-3 cut of this configuration on the A10G (batch 1 does not fit one).
  const CardRow& r = row(base, "a10g");
  REQUIRE(r.split[int(Mode::lora)]);
  const Split& s = *r.split[int(Mode::lora)];
  std::optional<SplitOption> planned;
  if (s.strategy == "zero3") planned = s;
  for (const auto& alt : s.alternatives)
    if (alt.strategy == "zero3") planned = alt;
  const MemoryModel& mm = base.memory[int(Mode::lora)];
  SplitSolver solver(mm);
  if (planned) {  // a ZeRO-3 cut exists: the row is the planner's cut
    CHECK(zero3->cards == planned->cards);
    CHECK(zero3->saved_bytes == base.requested.reserved_bytes - planned->per_card_bytes);
  } else {  // none at any count: the per-card bytes over 8 cards, exactly the solver's
    CHECK(zero3->cards == 8);
    CHECK(zero3->saved_bytes == base.requested.reserved_bytes - solver.sharded_reserved("zero3", 8));
  }
  CHECK(zero3->saved_bytes > 0);
  CHECK_FALSE(zero3->fits);  // one card owned: ZeRO-3 needs more

  const FitChange* offload = change(a, "offload");
  REQUIRE(offload);
  CHECK_FALSE(offload->available);  // not modelled on main: stated, not guessed

  // The longest sequence at batch 1 on each card is exact: it fits, one more token does not.
  REQUIRE(a.longest_seq.size() == base.cards.size());
  for (const auto& ls : a.longest_seq) {
    INFO(ls.card->id);
    if (ls.longest_seq == 0 || ls.longest_seq >= a.seq_limit) continue;
    Options at = o, over = o;
    at.seq = ls.longest_seq;
    over.seq = ls.longest_seq + 1;
    CHECK(MemoryModel(m, at, o.mode, at.seq, base.overheads).reserved(1) <= ls.card->capacity_bytes);
    CHECK(MemoryModel(m, over, o.mode, over.seq, base.overheads).reserved(1) > ls.card->capacity_bytes);
  }
}

TEST_CASE("a full fine-tune that no single change fits gets a combination that does, re-planned") {
  const Model m = trace_golden("gemma-2-9b-it.json");
  const Catalog cat = load_catalog();
  Options o;
  o.fit_card = "a10g";
  const Plan base = make_plan(m, o, cat);
  const FitAdvice a = advise_fit(m, base, cat, *find_card(cat, "a10g"));
  CHECK_FALSE(a.fits);
  bool single = false;
  for (const auto& c : a.changes) single = single || (c.available && c.fits);
  if (!single) {
    REQUIRE(a.best.has_value());
    CHECK(a.best->fits);
    CHECK(a.best->reserved_bytes <= find_card(cat, "a10g")->capacity_bytes);
    // The combination's options, applied to the request, give exactly its bytes.
    Options x = parse_options(json::parse(a.best->options).dump());
    Options y = o;
    const json d = json::parse(a.best->options);
    if (d.contains("mode")) y.mode = x.mode;
    if (d.contains("grad_ckpt")) y.grad_ckpt = x.grad_ckpt;
    if (d.contains("optimizer")) y.optimizer = x.optimizer;
    if (d.contains("seq")) y.seq = x.seq;
    if (d.contains("lora_targets")) y.lora_targets = x.lora_targets;
    if (d.contains("lora_rank")) y.lora_rank = x.lora_rank;
    if (!d.contains("strategy")) CHECK(make_plan(m, y, cat).requested.reserved_bytes == a.best->reserved_bytes);
  }
}

TEST_CASE("the fit section in the report, and its Markdown") {
  const std::string config = golden_file("gemma-2-9b-it.json").at("config").dump();
  Planner planner;
  const json r = json::parse(planner.plan(config, R"({"mode":"lora","fit_card":"a10g"})"));
  REQUIRE(r.value("ok", false));
  REQUIRE(r.contains("fit"));
  CHECK(r["fit"]["card"] == "a10g");
  std::set<std::string> ids;
  for (const auto& c : r["fit"]["changes"]) ids.insert(c["id"].get<std::string>());
  for (const char* id : {"grad_ckpt", "qlora", "zero3"}) CHECK(ids.count(id) == 1);
  CHECK(r["fit"]["longest_seq"].size() == r["cards"].size());
  const json none = json::parse(planner.plan(config, R"({"mode":"lora"})"));
  CHECK_FALSE(none.contains("fit"));  // only when asked
  const json md = json::parse(planner.markdown(config, R"({"mode":"lora","fit_card":"a10g"})"));
  CHECK(md["markdown"].get<std::string>().find("## Make it fit: NVIDIA A10G") != std::string::npos);
  const json bad = json::parse(planner.plan(config, R"({"fit_card":"nope"})"));
  CHECK(bad["error"]["path"] == "fit_card");
}

TEST_CASE("training throughput per card: tokens/s and step time from the roofline") {
  const std::string config = golden_file("gemma-2-9b-it.json").at("config").dump();
  Planner planner;
  const json r = json::parse(planner.plan(config, R"({"mode":"lora","batch":2,"grad_accum":3})"));
  const json& cost = r["cost"];
  bool seen = false;
  for (const auto& row : cost["rows"]) {
    if (row["card"] != "h100-sxm") continue;
    seen = true;
    REQUIRE(row["fits"].get<bool>());
    const double peak = 989.4e12 * cost["mfu"].get<double>();
    const double want = double(row["cards"].get<int64_t>()) * peak / cost["flops_per_token_step"].get<double>();
    CHECK(row["tokens_per_s"].get<double>() == Approx(want));
    CHECK(row["step_seconds"].get<double>() == Approx(2.0 * 3.0 * 2048.0 / (want / double(row["cards"].get<int64_t>()))));
  }
  CHECK(seen);
}

TEST_CASE("only the cards I have, the custom card, and bf16 on a card without it") {
  const std::string config = golden_file("gemma-2-9b-it.json").at("config").dump();
  Planner planner;
  const json r = json::parse(planner.plan(
      config, R"({"cards":["t4","rtx3090"],"custom_memory_bytes":34359738368,"custom_name":"My card","custom_tflops":100,"custom_usd_per_hr":0.5})"));
  REQUIRE(r.value("ok", false));
  std::vector<std::string> ids;
  for (const auto& c : r["cards"]) ids.push_back(c["id"]);
  CHECK(ids == std::vector<std::string>{"t4", "rtx3090"});  // the custom card is not in the list
  const json with_custom = json::parse(planner.plan(config, R"({"cards":["t4","custom"],"custom_memory_bytes":34359738368,"custom_tflops":100,"custom_usd_per_hr":0.5})"));
  REQUIRE(with_custom["cards"].size() == 2);
  CHECK(with_custom["cards"][1]["id"] == "custom");
  CHECK(with_custom["cards"][1]["capacity_bytes"] == 34359738368LL);
  CHECK(with_custom["cards"][1]["usd_per_gpu_hr"] == 0.5);
  bool custom_row = false;
  for (const auto& row : with_custom["cost"]["rows"]) custom_row = custom_row || row["card"] == "custom";
  CHECK(custom_row);
  // bf16-mixed on a T4 (no bf16): flagged with the fp16-mixed fix.
  const json t4 = json::parse(planner.plan(config, R"({"card":"t4"})"));
  bool flagged = false;
  for (const auto& f : t4["checks"])
    if (f["id"] == "bf16-unsupported-card") {
      flagged = true;
      CHECK(f["fix"].get<std::string>().find("fp16-mixed") != std::string::npos);
    }
  CHECK(flagged);
  const json v100 = json::parse(planner.plan(config, R"({"fit_card":"v100-16gb","mode":"qlora"})"));
  flagged = false;
  for (const auto& f : v100["checks"]) flagged = flagged || f["id"] == "bf16-unsupported-card";
  CHECK(flagged);
  const json fp16 = json::parse(planner.plan(config, R"({"card":"t4","precision":"fp16-mixed"})"));
  for (const auto& f : fp16["checks"]) CHECK(f["id"] != "bf16-unsupported-card");
  const json plain = json::parse(planner.plan(config, "{}"));  // the default card (A10G) has bf16
  for (const auto& f : plain["checks"]) CHECK(f["id"] != "bf16-unsupported-card");
  const json unknown = json::parse(planner.plan(config, R"({"cards":["t4","nope"]})"));
  CHECK(unknown["error"]["path"] == "cards");
}

TEST_CASE("the cards people own are in the catalog, with bf16/fp8 support and dense peaks") {
  const Catalog cat = load_catalog();
  for (const char* id : {"rtx3060", "rtx4060ti-16gb", "rtx4070", "rtx4070tisuper", "rtx4080", "rtx5090", "rtx-a4000",
                         "rtx-a5000", "v100-16gb", "v100-32gb", "l40", "h20"}) {
    INFO(id);
    const Card* c = find_card(cat, id);
    REQUIRE(c);
    CHECK(c->capacity_bytes > 11'000'000'000LL);
    CHECK(c->fp16_tflops > 0);
    CHECK(c->mem_bw_gbps > 0);
    CHECK(c->prices.empty());  // none published in the reference facts
  }
  CHECK_FALSE(find_card(cat, "v100-16gb")->bf16);
  CHECK_FALSE(find_card(cat, "t4")->bf16);
  CHECK(find_card(cat, "rtx4090")->fp8);
  CHECK_FALSE(find_card(cat, "a100-80gb")->fp8);
  for (size_t i = 1; i < cat.cards.size(); ++i) CHECK(cat.cards[i - 1].capacity_bytes <= cat.cards[i].capacity_bytes);
}
}  // namespace fit_advisor_test

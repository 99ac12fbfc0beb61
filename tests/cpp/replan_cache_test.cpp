// The memory-model cache across re-plans (core/plan/memory_cache.hpp) never changes an answer:
// for EVERY option of the schema (driven by option_specs(), so a new option cannot escape) and a
// few values of each, a plan after the change on a warm planner (its cache filled by the earlier
// plans of this test) is byte for byte the plan of a cold planner, and so is the re-plan back to
// the base options. Values are drawn from the schema itself: every enumeration value, both
// booleans, the range's ends and small values, card ids from the catalog.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cardfit/planner.hpp"
#include "plan/cards.hpp"
#include "plan/memory_cache.hpp"
#include "plan/option_schema.hpp"
#include "test_util.hpp"

namespace replan_cache_test {

using namespace cardfit;
using nlohmann::json;

namespace {
std::vector<json> values_of(const OptionSpec& s, const Catalog& catalog) {
  std::vector<json> out;
  const std::string card_a = catalog.cards.front().id, card_b = catalog.cards.back().id;
  switch (s.type) {
    case OptionType::enumeration:
      for (auto v : s.values) out.push_back(std::string(v));
      break;
    case OptionType::boolean:
      out = {true, false};
      break;
    case OptionType::integer:
      for (int64_t v : {s.int_min, s.int_min + 1, int64_t(2), int64_t(3), int64_t(64), int64_t(4096)})
        if (v >= s.int_min && v <= s.int_max) out.push_back(v);
      break;
    case OptionType::number: {
      const double mid = s.num_min + (s.num_max - s.num_min) / 2;
      out = {mid, s.num_max};
      if (!s.num_min_open) out.push_back(s.num_min);
      if (s.num_max > 1.5 && s.num_min < 1.5) out.push_back(1.5);
      break;
    }
    case OptionType::names:
      out = {json::array({"q_proj"}), json::array({"lm_head"}), json::array({"down_proj", "o_proj", "v_proj"}),
             json::array({card_a}), json::array({card_a, card_b})};
      break;
    case OptionType::map:
      out = {json{{card_a, 0.5}}, json{{card_b, 7.0}, {card_a, 1.25}}};
      break;
    case OptionType::text:
      out = {card_a, card_b, "custom", "{}"};
      break;
  }
  // Values in the range are not all valid together with the base options: the warm and the cold
  // planner must then give the same error, which the comparison checks as well.
  return out;
}

json with(json base, const std::string& name, const json& value) {
  base[name] = value;
  return base;
}


// Every option of the schema, each value, on one model under three base option sets.
void warm_equals_cold(const std::string& file) {
  const Catalog catalog = load_catalog();
  const std::vector<json> bases = {json::object(), json{{"mode", "lora"}, {"gpus", 2}},
                                   json{{"mode", "serve"}, {"engine", "vllm"}}};
  size_t compared = 0, planned = 0;
  const std::string config = golden_file(file).at("config").dump();
  Planner warm;
  for (const auto& base : bases) {
    const std::string cold_base = Planner().plan(config, base.dump());
    for (const auto& spec : option_specs()) {
      for (const auto& value : values_of(spec, catalog)) {
        const std::string changed = with(base, std::string(spec.name), value).dump();
        const std::string warm_changed = warm.plan(config, changed);
        const std::string warm_back = warm.plan(config, base.dump());
        const std::string cold_changed = Planner().plan(config, changed);
        INFO(file << " " << base.dump() << " then " << spec.name << " = " << value.dump());
        REQUIRE(warm_changed == cold_changed);
        REQUIRE(warm_back == cold_base);
        ++compared;
        if (warm_changed.rfind(R"({"ok":false)", 0) != 0) ++planned;  // errors start so; reports are sorted
      }
    }
  }
  // Not vacuous: most changes plan (the others compare their errors).
  CHECK(compared > 1000);
  CHECK(planned * 10 > compared * 7);
}
}  // namespace

// A dense model with soft-capped attention, a MoE and a vision-language model: the options each
// family reads differently (attention default, experts, images). One test case each (ctest's
// per-test time limit).
TEST_CASE("a warm re-plan equals a cold plan for every option of the schema: gemma-2-9b-it", "[replan]") {
  warm_equals_cold("gemma-2-9b-it.json");
}
TEST_CASE("a warm re-plan equals a cold plan for every option of the schema: Qwen1.5-MoE", "[replan]") {
  warm_equals_cold("qwen1.5-moe-a2.7b-chat.json");
}
TEST_CASE("a warm re-plan equals a cold plan for every option of the schema: LLaVA-1.5", "[replan]") {
  warm_equals_cold("llava-1.5-7b-hf.json");
}

TEST_CASE("the memory cache reuses a mode's model only for options no memory model reads", "[replan]") {
  const Model m = trace_golden("gemma-2-9b-it.json");
  const Overheads ov{1000, 0.05};
  MemoryCache cache;
  Options a;
  const auto first = cache.get(m, a, Mode::lora, 512, ov);
  Options cost_only = a;
  cost_only.epochs = 3;
  cost_only.card = "h100-sxm";
  cost_only.mode = Mode::serve;
  cost_only.batch = 7;
  CHECK(cache.get(m, cost_only, Mode::lora, 512, ov) == first);
  Options rank = a;
  rank.lora_rank = 8;
  CHECK(cache.get(m, rank, Mode::lora, 512, ov) != first);
  const auto full = cache.get(m, a, Mode::full, 512, ov);  // the full model reads no LoRA option
  CHECK(full != first);
  CHECK(cache.get(m, rank, Mode::full, 512, ov) == full);
  CHECK(cache.get(m, a, Mode::lora, 1024, ov) != first);                 // the seq is part of the key
  CHECK(cache.get(m, a, Mode::lora, 512, Overheads{1001, 0.05}) != first);  // and the overheads
  CHECK(cache.get(m, a, Mode::lora, 512, ov) == first);                  // still cached
  // A bounded cache: past kEntries other keys the first is gone.
  for (int r = 1; r <= int(MemoryCache::kEntries); ++r) {
    Options o = a;
    o.lora_rank = 100 + r;
    cache.get(m, o, Mode::lora, 512, ov);
  }
  CHECK(cache.get(m, a, Mode::lora, 512, ov) != first);
}
}  // namespace replan_cache_test

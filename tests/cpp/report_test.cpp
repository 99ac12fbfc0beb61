// The report by lifetime (core/include/cardfit/planner.hpp, core/report/): the core report's text
// is nlohmann's own spelling, it stays small, a reused Planner answers as a fresh one, blocks fold
// by signature, MoE experts stack, and the checks the page re-evaluates hold at every batch.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "cardfit/planner.hpp"
#include "report/json_writer.hpp"
#include "test_util.hpp"

namespace report_test {

using nlohmann::json;

namespace {
std::vector<std::pair<std::string, std::string>> golden_configs() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : std::filesystem::directory_iterator(CARDFIT_GOLDEN_DIR))
    out.push_back({e.path().stem().string(), golden_file(e.path().filename().string()).at("config").dump()});
  std::sort(out.begin(), out.end());
  return out;
}
const char* kOptionSets[] = {"{}", R"({"mode":"lora","batch":3,"grad_ckpt":true})", R"({"mode":"serve","batch":2})",
                             R"({"mode":"qlora","attention":"eager","prices":{"t4":0.1234567}})"};
}  // namespace

TEST_CASE("the core report is byte-identical to nlohmann's dump of it, and at most 100 KB") {
  cardfit::Planner planner;
  for (const auto& [name, config] : golden_configs())
    for (const char* options : kOptionSets) {
      INFO(name << " " << options);
      const std::string text = planner.plan(config, options);
      const json r = json::parse(text);
      REQUIRE(r["ok"] == true);
      CHECK(r.dump(-1, ' ', true) == text);  // sorted keys, nlohmann's number and ASCII string spelling
      CHECK(std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }));
      CHECK(text.size() <= 100 * 1000);
      for (const char* moved : {"graph", "curves", "markdown"}) CHECK_FALSE(r.contains(moved));
      CHECK_FALSE(r["params"].contains("tensors"));
    }
}

TEST_CASE("the largest model the limits allow, a 1,024-layer llama, has a core report of at most 100 KB") {
  // Its pipeline cuts have ~1,000 stages per card and mode: the report folds them into runs.
  json config = golden_file("meta-llama-3-8b.json").at("config");
  config["num_hidden_layers"] = 1024;
  cardfit::Planner planner;
  const std::string text = planner.plan(config.dump(), "{}");
  const json r = json::parse(text);
  REQUIRE(r["ok"] == true);
  CHECK(text.size() <= 100 * 1000);
  int64_t longest = 0;  // the cut with the most stages, expanded from its runs
  for (const auto& card : r["cards"])
    for (const auto& [mode, s] : card["split"].items()) {
      if (s.is_null() || s["strategy"] != "pipeline") continue;
      int64_t stages = 0, blocks = 0;
      for (const auto& run : s["stage_runs"]) {
        CHECK(run[0].get<int64_t>() > 0);
        stages += run[1].get<int64_t>();
        blocks += run[0].get<int64_t>() * run[1].get<int64_t>();
      }
      CHECK(stages == s["cards"].get<int64_t>());  // one stage per card
      CHECK(blocks == 1 + 1024 + 1);                // the embedding, every decoder layer and the head, once
      longest = std::max(longest, stages);
    }
  CHECK(longest > 500);
}

TEST_CASE("a card's cut lists its stages once: the chosen strategy's alternative leaves them out") {
  cardfit::Planner planner;
  int chosen_pipelines = 0, other_pipelines = 0;
  for (const char* model : {"gemma-2-9b-it", "meta-llama-3-8b", "deepseek-v3"}) {
    const json r = json::parse(planner.plan(golden_file(std::string(model) + ".json").at("config").dump(), "{}"));
    for (const auto& card : r["cards"])
      for (const auto& [mode, s] : card["split"].items()) {
        if (s.is_null()) continue;
        INFO(model << " " << card["id"] << " " << mode);
        REQUIRE(s.contains("stage_runs"));
        int same = 0;
        for (const auto& a : s["alternatives"]) {
          const bool chosen = a["strategy"] == s["strategy"];
          same += chosen;
          CHECK(a.contains("stage_runs") == !chosen);  // the chosen cut's stages are s.stage_runs
          if (chosen) CHECK(a["cards"] == s["cards"]);
          if (a["strategy"] == "pipeline") (chosen ? chosen_pipelines : other_pipelines) += 1;
        }
        CHECK(same == 1);
      }
  }
  CHECK(chosen_pipelines > 0);  // both cases occur in these three models
  CHECK(other_pipelines > 0);
}

TEST_CASE("the writer spells numbers and strings as nlohmann does") {
  std::string s;
  cardfit::JsonWriter w(s);
  const double doubles[] = {0.0, -0.0, 0.1, 1.193, 1e-7, 123456789012.5, 1e21, 2.0 / 3, 5e-324};
  w.begin_object().key("d").begin_array();
  for (double d : doubles) w.value(d);
  w.end_array().field("s", std::string("q\"\\\b\f\n\r\t\x01\x1f\x7f é")).field("i", int64_t(-9007199254740993LL));
  w.field("u", uint64_t(18446744073709551615ULL)).field("b", false).key("n").null().end_object();
  json j;
  j["d"] = json(std::vector<double>(std::begin(doubles), std::end(doubles)));
  j["s"] = "q\"\\\b\f\n\r\t\x01\x1f\x7f é";
  j["i"] = int64_t(-9007199254740993LL);
  j["u"] = uint64_t(18446744073709551615ULL);
  j["b"] = false;
  j["n"] = nullptr;
  // Same members in the writer's order: compare the texts member by member.
  CHECK(s == std::string("{\"d\":") + j["d"].dump() + ",\"s\":" + j["s"].dump(-1, ' ', true) + ",\"i\":" + j["i"].dump() +
                 ",\"u\":" + j["u"].dump() + ",\"b\":false,\"n\":null}");
}

TEST_CASE("a reused Planner (trace cached) answers exactly as a fresh one") {
  cardfit::Planner reused;
  const auto configs = golden_configs();
  for (size_t i = 0; i < configs.size(); i += 7)
    for (const char* options : kOptionSets) {
      const std::string& config = configs[i].second;
      INFO(configs[i].first << " " << options);
      cardfit::Planner fresh;
      CHECK(reused.plan(config, options) == fresh.plan(config, options));
      CHECK(reused.graph(config, options) == cardfit::Planner().graph(config, options));
      CHECK(reused.curves(config, options) == cardfit::Planner().curves(config, options));
    }
  // Errors are not cached: a bad option, then the good call, then a bad config.
  const std::string gpt2 = example("gpt2.json");
  CHECK(json::parse(reused.plan(gpt2, R"({"batch":"many"})"))["error"]["code"] == "options.value");
  CHECK(json::parse(reused.plan(gpt2, "{}"))["params"]["total"] == 124439808);
  CHECK(json::parse(reused.plan("{\"model_type\": \"gpt2\",", "{}"))["error"]["code"] == "config.json_syntax");
  CHECK(json::parse(reused.plan(gpt2, R"({"card":"nope"})"))["error"]["path"] == "card");
}

TEST_CASE("handle() still returns the whole report, assembled from the calls by lifetime") {
  cardfit::Planner p;
  const std::string gpt2 = example("gpt2.json");
  json whole = json::parse(cardfit::handle(gpt2, "{}"));
  CHECK(whole["params"]["tensors"] == json::parse(p.tensors(gpt2, "{}", true))["tensors"]);
  json graph = json::parse(p.graph(gpt2, "{}"));
  graph.erase("ok");
  CHECK(whole["graph"] == graph);
  CHECK(whole["markdown"] == json::parse(p.markdown(gpt2, "{}"))["markdown"]);
  for (const char* moved : {"graph", "curves", "markdown"}) whole.erase(moved);
  whole["params"].erase("tensors");
  CHECK(whole == json::parse(p.plan(gpt2, "{}")));
}

TEST_CASE("blocks fold by signature: Gemma 2's alternating local and global layers") {
  cardfit::Planner p;
  const std::string gemma2 = golden_file("gemma-2-9b-it.json").at("config").dump();
  const json g = json::parse(p.graph(gemma2, "{}"));
  const json& blocks = g["blocks"];
  CHECK(blocks.size() <= 5);
  size_t total = 0, layer_entries = 0;
  std::vector<int64_t> seen;
  for (const auto& b : blocks) {
    total += b["repeat"].get<size_t>();
    CHECK(b["indices"].size() == b["repeat"].get<size_t>());
    for (const auto& i : b["indices"]) seen.push_back(i.get<int64_t>());
    if (b["kind"] == "decoder_layer") {
      ++layer_entries;
      CHECK(b["repeat"] == 21);
      CHECK(b["contiguous"] == false);
      CHECK(b["indices"][1].get<int64_t>() - b["indices"][0].get<int64_t>() == 2);
    }
  }
  CHECK(layer_entries == 2);
  std::sort(seen.begin(), seen.end());
  REQUIRE(seen.size() == total);
  for (size_t i = 0; i < seen.size(); ++i) CHECK(seen[i] == int64_t(i));  // every block once
  // gpt2 folds its 12 identical layers into one contiguous entry, as before.
  const json g2 = json::parse(p.graph(example("gpt2.json"), "{}"));
  bool twelve = false;
  for (const auto& b : g2["blocks"]) twelve = twelve || (b["repeat"] == 12 && b["contiguous"] == true);
  CHECK(twelve);
}

TEST_CASE("MoE experts stack into one entry per layer and tensor, expanded every checkpoint name") {
  cardfit::Planner p;
  const std::string v3 = golden_file("deepseek-v3.json").at("config").dump();
  const json stacked = json::parse(p.tensors(v3, "{}", false));
  const json expanded = json::parse(p.tensors(v3, "{}", true));
  CHECK(expanded["tensors"].size() == expanded["tensor_count"].get<size_t>());
  CHECK(stacked["tensor_count"] == expanded["tensor_count"]);
  CHECK(stacked["tensors"].size() * 20 < expanded["tensors"].size());
  int64_t a = 0, b = 0;
  for (const auto& t : stacked["tensors"]) a += t["count"].get<int64_t>();
  for (const auto& t : expanded["tensors"]) b += t["count"].get<int64_t>();
  CHECK(a == b);
  bool found = false;
  for (const auto& t : stacked["tensors"])
    if (t["name"] == "model.layers.3.mlp.experts.{0..255}.gate_proj.weight") {
      found = true;
      CHECK(t["experts"] == 256);
      CHECK(t["layer"] == 3);
    }
  CHECK(found);
}

TEST_CASE("the checks the page re-evaluates: checks_by_batch holds at every batch") {
  cardfit::Planner p;
  const std::string config = golden_file("gemma-2-9b-it.json").at("config").dump();
  for (const char* mode : {"full", "serve"}) {
    const json base = json::parse(p.plan(config, std::string(R"({"mode":")") + mode + "\"}"));
    for (int batch : {1, 2, 5, 64}) {
      const json r = json::parse(p.plan(config, std::string(R"({"mode":")") + mode + R"(","batch":)" + std::to_string(batch) + "}"));
      CHECK(r["checks"] == base["checks_by_batch"][batch > 1 ? "batched" : "single"]);
    }
  }
}

TEST_CASE("an unexpected exception reaches the user as a fixed internal error") {
  const json e = json::parse(cardfit::internal_error_json());
  CHECK(e["ok"] == false);
  CHECK(e["error"]["code"] == "internal");
  CHECK(e["error"]["path"] == "");
  CHECK(e.dump() == cardfit::internal_error_json());
}
}  // namespace report_test

// The refactor guard: every golden model under several option sets must give the same numbers as
// the snapshot taken before the dataflow-graph redesign (issue 9). The digest keeps every plan
// number as a value (so a failure names the number that moved) and fingerprints the long lists
// (tensors, graph nodes, curves). CARDFIT_UPDATE_SNAPSHOT=1 rewrites tests/golden/snapshot/ after
// an intended change; the commit that does so must say which numbers moved and why.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cardfit/planner.hpp"
#include "test_util.hpp"

namespace snapshot_test {

using nlohmann::json;

namespace {
// FNV-1a over a list's canonical text: a fingerprint for change detection, not security.
std::string fingerprint(const json& items) {
  uint64_t h = 1469598103934665603ull;
  for (const char c : items.dump()) {
    h ^= uint8_t(c);
    h *= 1099511628211ull;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

// The report as the page and the CLI assemble it from the calls by lifetime: the core report, and
// the tensors (expanded), graph and curves asked for separately.
json assembled(cardfit::Planner& planner, const std::string& config, const json& options) {
  const std::string o = options.dump();
  json r = json::parse(planner.plan(config, o));
  if (!r.value("ok", false)) return r;
  r["params"]["tensors"] = json::parse(planner.tensors(config, o, true)).at("tensors");
  r["graph"] = json::parse(planner.graph(config, o));
  r["curves"] = json::parse(planner.curves(config, o));
  r["curves"].erase("ok");
  return r;
}

// A cut's stages as the list of blocks per stage the snapshot holds, from the report's runs
// ([[blocks, stages], ...], cardfit.report/2).
void expand_stage_runs(json& option) {
  if (!option.contains("stage_runs")) return;
  json blocks = json::array();
  for (const auto& r : option["stage_runs"])
    for (int64_t i = 0; i < r[1].get<int64_t>(); ++i) blocks.push_back(r[0]);
  option.erase("stage_runs");
  option["stage_blocks"] = std::move(blocks);
}

// A card's cuts without the copy of the chosen cut's stages its alternatives once repeated (the
// report lists them once since; every number of every strategy is kept).
json cuts(json split) {
  for (auto& [mode, s] : split.items()) {
    if (!s.is_object()) continue;
    expand_stage_runs(s);
    if (!s.contains("alternatives")) continue;
    for (auto& a : s["alternatives"]) {
      expand_stage_runs(a);
      if (a["strategy"] == s["strategy"]) a.erase("stage_blocks");
    }
  }
  return split;
}

// The numbers of one report that the redesign must keep, whatever call they come from.
json digest(const json& r) {
  json tensors = json::array();
  for (const auto& t : r["params"]["tensors"])
    tensors.push_back({t["name"], t["shape"], t["tied_to"], t["role"], t["layer"]});
  json nodes = json::array();
  for (const auto& n : r["graph"]["nodes"])
    nodes.push_back({n["name"], n["op"], n["detail"], n["out_shape"], n["params"], n["flops_per_token"],
                     n["saved_bytes"], n.value("experts", json()), n.value("attention", json())});
  json cards = json::object();
  for (const auto& c : r["cards"])
    cards[c["id"].get<std::string>()] = {c["capacity_bytes"], c["max_batch"], c["safe_batch"], c["borderline"],
                                         fingerprint(cuts(c["split"])), c["usd_per_gpu_hr"]};
  json assumptions = json::array();  // the values; the prose only as a fingerprint
  for (const auto& a : r["assumptions"]) assumptions.push_back({a["id"], a["option"], a["value"], fingerprint(a["text"])});
  json params = r["params"];
  params.erase("tensors");
  params["tensors"] = fingerprint(tensors);
  params["buffers"] = fingerprint(params["buffers"]);
  json plan = r["plan"];
  plan.erase("double_quant");  // an echo added since (the option as planned), no plan number
  return {{"model", r["model"]}, {"params", params}, {"checkpoint", r["checkpoint"]},
          {"graph_nodes", fingerprint(nodes)}, {"graph_node_count", nodes.size()}, {"plan", plan},
          {"modes", r["modes"]}, {"cards", cards}, {"curves", fingerprint(r["curves"])}, {"cost", r["cost"]},
          {"checks", r["checks"]}, {"assumptions", assumptions}};
}

const json kOptionSets = {
    {"default", json::object()},
    {"lora-ckpt", {{"mode", "lora"}, {"batch", 2}, {"grad_ckpt", true}}},
    {"qlora-eager", {{"mode", "qlora"}, {"seq", 1024}, {"attention", "eager"}}},
    {"serve-int4", {{"mode", "serve"}, {"batch", 4}, {"serve_dtype", "int4"}}},
    {"fp16-8bit-accum", {{"precision", "fp16-mixed"}, {"optimizer", "adamw8bit"}, {"grad_accum", 4}, {"gpus", 2}}},
};

// One file per option set and model (tests/golden/snapshot/<set>/<model>.json): each stays small
// and a diff names the model.
std::filesystem::path snapshot_dir(const std::string& set) {
  return std::filesystem::path(CARDFIT_GOLDEN_DIR) / ".." / "snapshot" / set;
}
}  // namespace

TEST_CASE("every plan number matches the snapshot taken before the dataflow redesign") {
  const bool update = std::getenv("CARDFIT_UPDATE_SNAPSHOT") != nullptr;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(CARDFIT_GOLDEN_DIR)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  cardfit::Planner planner;  // one for all: a change of options reuses the traced model
  for (const auto& [set, options] : kOptionSets.items()) {
    json got = json::object();
    for (const auto& f : files) {
      const json golden = json::parse(read_text(f.string()));
      const json report = assembled(planner, golden.at("config").dump(), options);
      got[f.stem().string()] = report.value("ok", false) ? digest(report) : report;
    }
    const std::filesystem::path dir = snapshot_dir(set);
    if (update) {
      std::filesystem::remove_all(dir);
      std::filesystem::create_directories(dir);
      for (const auto& [model, d] : got.items()) std::ofstream(dir / (model + ".json")) << d.dump() << "\n";
      continue;
    }
    size_t compared = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      const std::string model = e.path().stem().string();
      ++compared;
      INFO(set << " / " << model);
      REQUIRE(got.contains(model));
      const json diff = json::diff(json::parse(read_text(e.path().string())), got[model]);
      INFO("differences (JSON patch from the snapshot): " << diff.dump().substr(0, 4000));
      CHECK(diff.empty());
    }
    CHECK(compared > 0);  // an empty or missing snapshot guards nothing
    CHECK(compared == files.size());  // a new golden model gets its snapshot too
  }
}
}  // namespace snapshot_test

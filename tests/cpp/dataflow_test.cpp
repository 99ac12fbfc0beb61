// The dataflow graph's contract (issue 9): every edge points at a value made earlier by exactly one
// node, and names are for display and checkpoint matching only — renaming every node, block and
// tensor leaves every plan number unchanged.
#include <catch2/catch.hpp>

#include <filesystem>

#include "plan/cards.hpp"
#include "plan/plan.hpp"
#include "test_util.hpp"

namespace dataflow_test {

using namespace cardfit;
using nlohmann::json;

namespace {
std::vector<std::filesystem::path> golden_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(CARDFIT_GOLDEN_DIR)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// Every number a plan reports, without a name in it.
json plan_numbers(const Model& m, const Options& opt, const Catalog& cat) {
  const Plan p = make_plan(m, opt, cat);
  json out = json::array();
  for (const MemoryPlan& mp : p.modes) {
    json comps = json::array();
    for (const auto& c : mp.components) comps.push_back(c.bytes);
    out.push_back({mp.peak_bytes, mp.reserved_bytes, mp.trainable_params, mp.peak_phase, comps});
  }
  out.push_back({p.requested.peak_bytes, p.requested.reserved_bytes});
  for (const auto& row : p.cards)
    for (int i = 0; i < 4; ++i) out.push_back({row.max_batch[i], row.safe_batch[i], row.borderline[i]});
  out.push_back({p.cost.flops_per_token_forward, p.cost.flops_per_token_step, p.cost.total_flops});
  return out;
}

// Gives every node, block and tensor a meaningless name (ties kept consistent).
void rename_everything(Model& m) {
  std::map<std::string, std::string> tensor_names;
  for (size_t i = 0; i < m.tensors.size(); ++i) tensor_names[m.tensors[i].name] = "t" + std::to_string(i);
  for (auto& t : m.tensors) {
    t.name = tensor_names.at(t.name);
    if (!t.tied_to.empty()) t.tied_to = tensor_names.at(t.tied_to);
  }
  for (size_t bi = 0; bi < m.blocks.size(); ++bi) {
    m.blocks[bi].name = "b" + std::to_string(bi);
    for (size_t ni = 0; ni < m.blocks[bi].nodes.size(); ++ni)
      m.blocks[bi].nodes[ni].name = "n" + std::to_string(bi) + "_" + std::to_string(ni);
  }
}
}  // namespace

TEST_CASE("every edge of the graph reads a value made earlier by one node") {
  for (const auto& f : golden_files()) {
    INFO(f.filename().string());
    const Model m = trace_json(json::parse(read_text(f.string())).at("config"));
    std::vector<int> writers(m.values.size(), 0);
    for (size_t bi = 0; bi < m.blocks.size(); ++bi) {
      const Block& b = m.blocks[bi];
      for (size_t ni = 0; ni < b.nodes.size(); ++ni) {
        const Node& n = b.nodes[ni];
        INFO(n.name);
        REQUIRE(n.output >= 0);
        REQUIRE(size_t(n.output) < m.values.size());
        ++writers[size_t(n.output)];
        CHECK(m.values[size_t(n.output)].block == int(bi));
        CHECK(m.values[size_t(n.output)].node == int(ni));
        for (const ValueId v : n.inputs) {
          CHECK(v >= 0);
          CHECK(v < n.output);
        }
      }
    }
    for (const int w : writers) CHECK(w == 1);
  }
}

TEST_CASE("names are for display only: renaming every node and tensor changes no plan number") {
  const Catalog cat = load_catalog();
  Options lora;
  lora.mode = Mode::lora;
  lora.grad_ckpt = true;
  lora.batch = 2;
  for (const auto& f : golden_files()) {
    INFO(f.filename().string());
    Model m = trace_json(json::parse(read_text(f.string())).at("config"));
    const json before = plan_numbers(m, Options{}, cat), before_lora = plan_numbers(m, lora, cat);
    rename_everything(m);
    CHECK(plan_numbers(m, Options{}, cat) == before);
    CHECK(plan_numbers(m, lora, cat) == before_lora);
  }
}
}  // namespace dataflow_test

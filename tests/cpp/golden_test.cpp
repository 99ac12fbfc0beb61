// Walks tests/golden/models/*.json (Netron style: one data file per model, one test for all):
// traces each real config and checks its published total, tensor count, buffers and named shapes.
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "arch/registry.hpp"
#include "config.hpp"
#include "plan/checks.hpp"
#include "test_util.hpp"

namespace golden_test {

using namespace cardfit;
using nlohmann::json;

TEST_CASE("golden models trace to their published totals") {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(CARDFIT_GOLDEN_DIR))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 5);
  for (const auto& path : files) {
    const json g = json::parse(read_text(path.string()));
    const json& exp = g.at("expected");
    INFO(path.filename().string() << " (" << g.value("name", "") << ")");
    const Model m = trace_model(Config::parse(g.at("config").dump()));
    CHECK(m.parameter_count() == exp.at("total").get<int64_t>());
    CHECK_FALSE(m.approximate);
    const std::vector<Tensor> tensors = expand_copies(m.tensors);  // one per checkpoint entry
    if (exp.contains("tensor_count")) CHECK(tensors.size() == exp["tensor_count"].get<size_t>());
    if (exp.contains("buffers_total")) CHECK(m.buffer_count() == exp["buffers_total"].get<int64_t>());
    for (const auto& t : exp.value("tensors", json::array())) {
      const std::string name = t.at("name");
      INFO(name);
      auto it = std::find_if(tensors.begin(), tensors.end(), [&](const Tensor& x) { return x.name == name; });
      auto buf = std::find_if(m.buffers.begin(), m.buffers.end(), [&](const Tensor& x) { return x.name == name; });
      REQUIRE((it != tensors.end() || buf != m.buffers.end()));
      CHECK((it != tensors.end() ? it->shape : buf->shape) == t.at("shape").get<Shape>());
    }
    // The graph forward-passes and its nodes own every parameter exactly once.
    CHECK(shape_errors(m).empty());
    int64_t node_params = 0;
    for (const auto& b : m.blocks)
      for (const auto& n : b.nodes) node_params += n.params;
    CHECK(node_params == m.parameter_count());
    // And the whole pipeline plans it (encoders, encoder-decoders, multimodal and SSMs included).
    const json report = plan(g.at("config").dump());
    CHECK(report.at("ok") == true);
    // Names are unique: a checkpoint cannot hold two tensors of one name.
    std::set<std::string> names;
    for (const auto& t : tensors) names.insert(t.name);
    CHECK(names.size() == tensors.size());
  }
}

TEST_CASE("every registered model_type has a golden model") {
  std::set<std::string> golden_types;
  for (const auto& e : std::filesystem::directory_iterator(CARDFIT_GOLDEN_DIR))
    if (e.path().extension() == ".json")
      golden_types.insert(json::parse(read_text(e.path().string())).at("config").value("model_type", ""));
  for (const auto& f : family_registry()) {
    INFO(f.model_type);
    CHECK(golden_types.count(std::string(f.model_type)) == 1);
  }
}
}  // namespace golden_test

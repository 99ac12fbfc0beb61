// Findings: the ones that must fire on gpt2, and the shape walk catching a broken graph.
#include <catch2/catch.hpp>

#include "arch/registry.hpp"
#include "config.hpp"
#include "plan/checks.hpp"
#include "test_util.hpp"

using namespace cardfit;

TEST_CASE("gpt2's vocabulary is flagged and its graph forward-passes") {
  const Config c = Config::parse(example("gpt2.json"));
  const Model m = trace_model(c);
  const auto findings = run_checks(c, m, Options{}, 512);
  auto has = [&](const std::string& id, const std::string& sev) {
    for (const auto& f : findings)
      if (f.id == id && f.severity == sev) return true;
    return false;
  };
  CHECK(has("vocab-not-multiple-of-64", "info"));
  CHECK(has("forward-pass", "info"));
  CHECK(shape_errors(m).empty());
}

TEST_CASE("the shape walk finds a projection that does not match its consumer") {
  const Config c = Config::parse(example("Meta-Llama-3-8B.json"));
  Model m = trace_model(c);
  for (auto& n : m.blocks[3].nodes)
    if (n.name.ends_with("down_proj")) n.in = 1000;
  CHECK_FALSE(shape_errors(m).empty());
}

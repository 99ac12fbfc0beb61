// Findings: the ones that must fire on gpt2, and the shape walk catching a broken graph.
#include <catch2/catch.hpp>
#include <set>

#include "arch/registry.hpp"
#include "config.hpp"
#include "error.hpp"
#include "plan/checks.hpp"
#include "plan/validate.hpp"
#include "test_util.hpp"

namespace checks_test {

using namespace cardfit;

TEST_CASE("gpt2's vocabulary is flagged and its graph forward-passes") {
  const Config c = Config::parse(example("gpt2.json"));
  const Model m = trace_model(c);
  const auto findings = run_checks(m, Options{}, 512);
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
  // ... and such a graph is refused with a coded error rather than planned beside a finding.
  try {
    validate_request(c, m, Options{}, load_catalog());
    FAIL("a graph that does not forward-pass was planned");
  } catch (const Error& e) {
    CHECK(e.code == ErrorCode::field_inconsistent);
    CHECK_THAT(e.what(), Catch::Contains("down_proj") && Catch::Contains("expects 1000 features"));
  }
}

TEST_CASE("Gemma 2's logit soft-capping asks for eager attention in an explicit SDPA training plan") {
  const std::string text = R"({"model_type": "gemma2", "vocab_size": 1000, "hidden_size": 64, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128,
    "attn_logit_softcapping": 50.0})";
  const Config c = Config::parse(text);
  const Model m = trace_model(c);
  auto ids = [&](const Options& o) {
    std::set<std::string> s;
    for (const auto& f : run_checks(m, o, 512)) s.insert(f.id);
    return s;
  };
  // Left unset, attention is what transformers trains such a model with (eager, graph_costs.hpp
  // attention_of), so only an explicit sdpa plan omits the scores and is warned.
  Options sdpa;
  sdpa.attention = Attention::sdpa;
  CHECK(ids(sdpa).count("softcapping-needs-eager") == 1);
  CHECK(ids(Options{}).count("softcapping-needs-eager") == 0);
  Options eager;
  eager.attention = Attention::eager;
  CHECK(ids(eager).count("softcapping-needs-eager") == 0);
}
}  // namespace checks_test

// Cohere 2 (modeling_cohere2.py Cohere2ForCausalLM; Command R7B, issue 10 Tier 2): Cohere's parallel
// block with 3 sliding : 1 full layers. The total by hand; the windows and what they cache; head_dim
// from hidden / heads; coded errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/memory.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"

namespace arch_cohere2_test {

using namespace cardfit;
using nlohmann::json;

namespace {
constexpr int64_t V = 256000, H = 4096, I = 14336, L = 32, KV = 8 * 128;
constexpr int64_t layer = H * H + 2 * H * KV + H * H + 3 * H * I + H;  // q, k, v, o, gate/up/down, input_layernorm
constexpr int64_t total = V * H + L * layer + H;                         // tied lm_head, bias-free model.norm
static_assert(total == 8028033024);                                      // the hub's "8.03B"
}  // namespace

TEST_CASE("Command R7B: exact total by hand, 3 sliding layers then a full one, the sliding caches capped") {
  const Model m = trace_golden("c4ai-command-r7b-12-2024.json");
  CHECK(m.parameter_count() == total);
  CHECK(find(m, "lm_head.weight")->tied_to == "model.embed_tokens.weight");
  CHECK(find(m, "model.layers.0.post_attention_layernorm.weight") == nullptr);  // parallel block: one norm
  CHECK(find(m, "model.layers.0.self_attn.q_norm.weight") == nullptr);
  const auto a = attention_nodes(m);
  REQUIRE(a.size() == 32);
  for (size_t i = 0; i < a.size(); ++i) {
    INFO(i);
    CHECK(a[i]->attn.window == ((i + 1) % 4 == 0 ? 0 : 4096));
  }
  // Serving 8192 tokens in bf16: 8 full layers cache every token, 24 sliding ones the last 4096.
  const MemoryPlan p = plan_memory(m, Options{}, Mode::serve, 1, 8192, {});
  CHECK(component(p, "kv_cache") == int64_t(8) * 8192 * 2 * KV * 2 + int64_t(24) * 4096 * 2 * KV * 2);
}

TEST_CASE("Cohere 2: layer_types wins over the pattern, head_dim follows hidden / heads, errors name the key") {
  json c = golden_file("c4ai-command-r7b-12-2024.json").at("config");
  json all_full = c;
  all_full["layer_types"] = json::array();
  for (int i = 0; i < 32; ++i) all_full["layer_types"].push_back("full_attention");
  const Model full = trace_json(all_full);
  for (const auto* n : attention_nodes(full)) CHECK(n->attn.window == 0);
  json odd = c;
  odd["head_dim"] = 64;  // Cohere2Config overwrites it with hidden_size / num_attention_heads
  CHECK(trace_json(odd).parameter_count() == total);
  json bad = c;
  bad["layer_types"] = {"sliding_attention"};
  try {
    trace_json(bad);
    FAIL("traced");
  } catch (const Error& e) {
    CHECK(e.path == "$.layer_types");
  }
  bad = c;
  bad["num_key_value_heads"] = 5;
  try {
    trace_json(bad);
    FAIL("traced");
  } catch (const Error& e) {
    CHECK(e.path == "$.num_key_value_heads");
  }
  const json r = plan(c.dump(), {{"mode", "qlora"}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["params"]["total"] == total);
}
}  // namespace arch_cohere2_test

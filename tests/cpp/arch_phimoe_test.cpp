// Phi-3.5-MoE (modeling_phimoe.py PhimoeForCausalLM; issue 10 Tier 2): Mixtral's per-expert layout with
// LayerNorms (weight and bias), attention biases and a biased lm_head. The total by hand; the expert
// nodes; the switches; coded errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "test_util.hpp"

namespace arch_phimoe_test {

using namespace cardfit;
using nlohmann::json;

namespace {
constexpr int64_t V = 32064, H = 4096, I = 6400, L = 32, E = 16, KV = 8 * 128;
constexpr int64_t attn = (H * H + H) + 2 * (H * KV + KV) + (H * H + H);  // q, k, v, o with biases
constexpr int64_t experts = E * 3 * H * I;                                // w1, w3, w2 per expert
constexpr int64_t layer = attn + 2 * 2 * H + E * H + experts;             // 2 LayerNorms, block_sparse_moe.gate
constexpr int64_t total = 2 * V * H + V + L * layer + 2 * H;              // untied head + its bias, model.norm w + b
static_assert(total == 41873153344);                                      // the hub's "41.9B"
}  // namespace

TEST_CASE("Phi-3.5-MoE: exact total by hand, per-expert checkpoint names, 2 of 16 experts per token") {
  const Model m = trace_golden("phi-3.5-moe-instruct.json");
  CHECK(m.parameter_count() == total);
  CHECK(find(m, "model.layers.7.block_sparse_moe.experts.3.w3.weight")->shape == Shape{I, H});
  CHECK(find(m, "model.layers.7.block_sparse_moe.experts.3.w3.weight")->linear);  // nn.Linear per expert: a LoRA target
  CHECK(find(m, "model.layers.7.post_attention_layernorm.bias"));
  CHECK(find(m, "lm_head.bias")->shape == Shape{V});
  CHECK(m.dims.experts == E);
  CHECK(m.dims.experts_per_token == 2);
  CHECK(m.dims.head_dim == 128);

  json c = golden_file("phi-3.5-moe-instruct.json").at("config");
  c["attention_bias"] = false;
  c["lm_head_bias"] = false;
  CHECK(trace_json(c).parameter_count() == total - L * (H + 2 * KV + H) - V);
  c["num_experts_per_tok"] = 17;
  try {
    trace_json(c);
    FAIL("traced");
  } catch (const Error& e) {
    CHECK(e.path == "$.num_experts_per_tok");
  }
  const json r = plan(golden_file("phi-3.5-moe-instruct.json").at("config").dump(), {{"mode", "lora"}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["params"]["total"] == total);
}
}  // namespace arch_phimoe_test

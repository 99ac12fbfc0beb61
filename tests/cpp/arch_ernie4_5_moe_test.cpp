// ERNIE 4.5 MoE (modeling_ernie4_5_moe.py Ernie4_5_MoeForCausalLM; ERNIE-4.5-21B-A3B, issue 10 Tier 2).
// The total by hand; which layers are MoE; the moe_statics parameter; errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "test_util.hpp"

namespace arch_ernie4_5_moe_test {

using namespace cardfit;
using nlohmann::json;

namespace {
constexpr int64_t V = 103424, H = 2560, L = 28, E = 64, MI = 1536;
constexpr int64_t attn = H * H + 2 * H * 512 + H * H;                 // q, k, v, o (use_bias false)
constexpr int64_t moe = E * H + E * 3 * H * MI + 3 * H * 2 * MI + E;  // gate, experts, 2 shared merged, moe_statics [1, E]
constexpr int64_t total = V * H + L * (attn + 2 * H) + 3 * H * 12288 + 27 * moe + H;
static_assert(total == 21825437888);  // the hub's "21.8B"
}  // namespace

TEST_CASE("ERNIE-4.5-21B-A3B: exact total by hand, layer 0 dense, moe_statics counted once per MoE layer") {
  const Model m = trace_golden("ernie-4.5-21b-a3b-pt.json");
  CHECK(m.parameter_count() == total);
  CHECK(find(m, "lm_head.weight")->tied_to == "model.embed_tokens.weight");
  CHECK(find(m, "model.layers.0.mlp.experts.0.gate_proj.weight") == nullptr);
  CHECK(find(m, "model.layers.0.mlp.moe_statics.e_score_correction_bias") == nullptr);
  CHECK(m.dims.experts == E);
  CHECK(m.dims.experts_per_token == 6);
  const Node* statics = find_node(m, "model.layers.1.mlp.moe_statics");
  REQUIRE(statics);
  CHECK(statics->params == E);
  // The residual after the MoE reads the experts' output, not the statics node.
  const Node* res = find_node(m, "model.layers.1.residual_mlp");
  REQUIRE(res);
  CHECK(res->inputs.back() != statics->output);

  json c = golden_file("ernie-4.5-21b-a3b-pt.json").at("config");
  json fewer = c;
  fewer["moe_layer_end_index"] = 13;  // layers 14-27 keep the dense MLP
  CHECK(trace_json(fewer).parameter_count() == total - 14 * moe + 14 * 3 * H * 12288);
  json last = c;
  last["moe_layer_end_index"] = -1;  // the class default: the last layer
  CHECK(trace_json(last).parameter_count() == total);
  json bad = c;
  bad["moe_k"] = 65;
  try {
    trace_json(bad);
    FAIL("traced");
  } catch (const Error& e) {
    CHECK(e.path == "$.moe_k");
  }
  const json r = plan(c.dump(), {{"mode", "lora"}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["params"]["total"] == total);
}
}  // namespace arch_ernie4_5_moe_test

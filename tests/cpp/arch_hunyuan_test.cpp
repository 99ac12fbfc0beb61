// Hunyuan dense (modular_hunyuan_v1_dense.py HunYuanDenseV1ForCausalLM; Hy-MT2-7B / Hunyuan-7B, issue 10
// Tier 2): Llama layers with post-RoPE per-head q/k RMSNorms. The total by hand; the norms; errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "test_util.hpp"

namespace arch_hunyuan_test {

using namespace cardfit;
using nlohmann::json;

namespace {
constexpr int64_t V = 128167, H = 4096, L = 32;
constexpr int64_t layer = H * H + 2 * H * 1024 + H * H + 2 * 128 + 3 * H * 14336 + 2 * H;  // + query/key_layernorm [128]
constexpr int64_t total = V * H + L * layer + H;                                          // tied lm_head
static_assert(total == 7504568320);
}  // namespace

TEST_CASE("Hy-MT2-7B (hunyuan_v1_dense): exact total by hand, q/k norms of head_dim, biases on switch") {
  const Model m = trace_golden("hy-mt2-7b.json");
  CHECK(m.parameter_count() == total);
  CHECK(find(m, "lm_head.weight")->tied_to == "model.embed_tokens.weight");
  CHECK(find(m, "model.layers.3.self_attn.query_layernorm.weight")->shape == Shape{128});
  CHECK(find(m, "model.layers.3.mlp.down_proj.bias") == nullptr);
  const Node* qn = find_node(m, "model.layers.3.self_attn.query_layernorm");
  REQUIRE(qn);
  CHECK(qn->inputs == std::vector<ValueId>{find_node(m, "model.layers.3.self_attn.q_proj")->output});

  json c = golden_file("hy-mt2-7b.json").at("config");
  c["attention_bias"] = true;  // q/k/v/o get biases, the MLP stays bias-free
  CHECK(trace_json(c).parameter_count() == total + L * (H + 2 * 1024 + H));
  c["num_key_value_heads"] = 5;
  try {
    trace_json(c);
    FAIL("traced");
  } catch (const Error& e) {
    CHECK(e.path == "$.num_key_value_heads");
  }
  const json r = plan(golden_file("hy-mt2-7b.json").at("config").dump(), {{"mode", "qlora"}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["params"]["total"] == total);
}

namespace {
constexpr int64_t E = 64, I = 3072;
constexpr int64_t moe_layer = H * H + 2 * H * 1024 + H * H + 2 * 128  // attention and its q/k norms
                              + E * H + E * 3 * H * I + 3 * H * I      // gate.wg, experts, shared_mlp
                              + 2 * H;
constexpr int64_t moe_total = V * H + L * moe_layer + H;
static_assert(moe_total == 80393183232);  // the card's "80B total"
}  // namespace

TEST_CASE("Hunyuan-A13B (hunyuan_v1_moe): exact total by hand, per-layer top-k lists, a shared MLP") {
  const Model m = trace_golden("hunyuan-a13b-instruct.json");
  CHECK(m.parameter_count() == moe_total);
  CHECK(m.dims.experts == E);
  CHECK(m.dims.experts_per_token == 8);
  CHECK(find(m, "model.layers.5.mlp.shared_mlp.gate_proj.weight")->shape == Shape{I, H});
  json c = golden_file("hunyuan-a13b-instruct.json").at("config");
  json k = c;
  k["moe_topk"] = 2;  // an int applies to every layer
  CHECK(trace_json(k).dims.experts_per_token == 2);
  k["moe_topk"] = {8, 8};
  try {
    trace_json(k);
    FAIL("traced");
  } catch (const Error& e) {
    CHECK(e.path == "$.moe_topk");
  }
  const json r = plan(c.dump(), {{"mode", "serve"}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["params"]["total"] == moe_total);
}
}  // namespace arch_hunyuan_test

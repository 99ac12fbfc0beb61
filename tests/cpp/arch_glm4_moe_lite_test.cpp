// GLM-4.7-Flash (modular_glm4_moe_lite.py Glm4MoeLiteForCausalLM; issue 10 Tier 2): DeepSeek-V3's
// latent attention over GLM-4.5's MoE. The total by hand; the latent KV cache; mlp_layer_types; errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/memory.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"

namespace arch_glm4_moe_lite_test {

using namespace cardfit;
using nlohmann::json;

namespace {
constexpr int64_t V = 154880, H = 2048, L = 47, NH = 20, E = 64, MI = 1536;
constexpr int64_t mla = H * 768 + 768 + 768 * NH * 256       // q_a_proj, q_a_layernorm, q_b_proj (192 + 64 per head)
                        + H * (512 + 64) + 512               // kv_a_proj_with_mqa, kv_a_layernorm
                        + 512 * NH * (192 + 256) + NH * 256 * H;  // kv_b_proj (k_nope + v per head), o_proj
constexpr int64_t moe = E * H + E * 3 * H * MI + 3 * H * MI;  // mlp.gate, routed experts, one shared expert
constexpr int64_t total = 2 * V * H + L * (mla + 2 * H) + 3 * H * 10240 + 46 * moe + H;
static_assert(mla == 21759232);
static_assert(total == 29943390976);
}  // namespace

TEST_CASE("GLM-4.7-Flash: exact total by hand, layer 0 dense, the latent KV cache") {
  const Model m = trace_golden("glm-4.7-flash.json");
  CHECK(m.parameter_count() == total);
  CHECK(m.buffer_count() == 46 * E);
  CHECK(find(m, "model.layers.0.mlp.experts.0.gate_proj.weight") == nullptr);
  CHECK(find(m, "model.layers.1.mlp.experts.0.gate_proj.weight")->shape == Shape{MI, H});
  CHECK(m.dims.experts == E);
  CHECK(m.dims.experts_per_token == 4);
  // MLA caches kv_lora_rank + qk_rope_head_dim = 576 elements per token and layer (bf16).
  const MemoryPlan p = plan_memory(m, Options{}, Mode::serve, 1, 4096, {});
  CHECK(component(p, "kv_cache") == int64_t(47) * 4096 * 576 * 2);
}

TEST_CASE("GLM-4.7-Flash: the hub's 31,221,488,576 is the model, its router biases and the MTP layer 47, 0 unexplained") {
  // zai-org/GLM-4.7-Flash's safetensors.total (a hub-scraped dataset and public index total_size
  // reports, read 2026-12-05). The MTP layer model.layers.47.*, GLM-4.5's layout: a copy of layer 46
  // (a MoE layer with its router bias), its own embed_tokens and shared_head.head [V, H], enorm,
  // hnorm, shared_head.norm, eh_proj [H, 2H].
  constexpr int64_t mtp = mla + 2 * H + moe + E + 2 * V * H + 3 * H + H * 2 * H;
  static_assert(mtp == 1278094656);
  static_assert(total + 46 * E + mtp == 31221488576);
  const Model m = trace_golden("glm-4.7-flash.json");
  int64_t extras = 0;
  for (const auto& x : m.stored_extras) extras += x.tensor.count();
  CHECK(extras == mtp);
  const json r = plan(golden_file("glm-4.7-flash.json").at("config").dump(), {{"checkpoint_total", 31221488576}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["checkpoint"]["unexplained"] == 0);
  json none = golden_file("glm-4.7-flash.json").at("config");
  none.erase("num_nextn_predict_layers");
  CHECK(trace_json(none).stored_extras.empty());
}

TEST_CASE("GLM-4.7-Flash: mlp_layer_types picks the dense layers, errors name the key") {
  json c = golden_file("glm-4.7-flash.json").at("config");
  json two = c;
  two["mlp_layer_types"] = json::array();
  for (int i = 0; i < 47; ++i) two["mlp_layer_types"].push_back(i < 2 ? "dense" : "sparse");
  CHECK(trace_json(two).parameter_count() == total - moe + 3 * H * 10240);
  json bad = c;
  bad["mlp_layer_types"] = {"dense"};
  try {
    trace_json(bad);
    FAIL("traced");
  } catch (const Error& e) {
    CHECK(e.path == "$.mlp_layer_types");
  }
  const json r = plan(c.dump(), {{"mode", "qlora"}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["params"]["total"] == total);
}
}  // namespace arch_glm4_moe_lite_test

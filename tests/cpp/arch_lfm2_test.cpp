// LFM2 (modeling_lfm2.py Lfm2ForCausalLM; LFM2-1.2B, issue 10 Tier 2): gated short-conv layers beside
// attention layers. The total by hand; the conv layers hold a conv state, not a KV cache; the MLP
// width rule; coded errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/memory.hpp"
#include "plan/recurrent_state.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"

namespace arch_lfm2_test {

using namespace cardfit;
using nlohmann::json;

namespace {
constexpr int64_t V = 65536, H = 2048, FF = 2 * 12288 / 3;      // block_auto_adjust_ff_dim: 8192 (a multiple of 256)
constexpr int64_t attn = H * H + 2 * H * 512 + H * H + 2 * 64;  // q, k, v, out_proj, q/k_layernorm [head_dim 64]
constexpr int64_t conv = H * 3 * H + H * 3 + H * H;             // in_proj, conv [H, 1, 3], out_proj
constexpr int64_t mlp = 3 * H * FF;                             // w1, w3, w2
constexpr int64_t total = V * H + 6 * (attn + mlp + 2 * H) + 10 * (conv + mlp + 2 * H) + H;
static_assert(total == 1170340608);  // the hub's "1.17B"
}  // namespace

TEST_CASE("LFM2-1.2B: exact total by hand, 6 attention layers cache K/V, 10 conv layers keep a conv state") {
  const Model m = trace_golden("lfm2-1.2b.json");
  CHECK(m.parameter_count() == total);
  CHECK(find(m, "lm_head.weight")->tied_to == "model.embed_tokens.weight");
  CHECK(attention_nodes(m).size() == 6);
  CHECK(find(m, "model.layers.2.conv.in_proj.weight") == nullptr);
  CHECK(find(m, "model.layers.3.self_attn.q_proj.weight") == nullptr);
  // bf16 serving at 4096 tokens: 6 layers × 4096 × 8 KV heads × 64 × (K + V) × 2 bytes; each conv
  // layer's state [2048, 3] in bf16.
  CHECK(recurrent_state_bytes(m, 2) == int64_t(10) * H * 3 * 2);
  const MemoryPlan p = plan_memory(m, Options{}, Mode::serve, 1, 4096, {});
  CHECK(component(p, "kv_cache") == int64_t(6) * 4096 * 8 * 64 * 2 * 2);
  const Node* n = find_node(m, "model.layers.0.conv.c_gate");
  REQUIRE(n);
  CHECK(n->inputs.size() == 2);
  CHECK(n->inputs[0] == find_node(m, "model.layers.0.conv.in_proj")->output);
  CHECK(n->inputs[1] == find_node(m, "model.layers.0.conv.conv")->output);
}

TEST_CASE("LFM2: layer_types wins, the MLP width rule, tie_embedding, coded errors") {
  const json c = golden_file("lfm2-1.2b.json").at("config");
  json t = c;
  t["layer_types"] = json::array();
  for (int i = 0; i < 16; ++i) t["layer_types"].push_back(i % 2 ? "full_attention" : "conv");
  const Model text = trace_json(t);
  CHECK(attention_nodes(text).size() == 8);
  json plain = c;
  plain["block_auto_adjust_ff_dim"] = false;  // the MLP is block_ff_dim itself
  CHECK(trace_json(plain).parameter_count() == total + 16 * 3 * H * (12288 - FF));
  json untied = c;
  untied["tie_embedding"] = false;
  CHECK(trace_json(untied).parameter_count() == total + V * H);
  json bad = c;
  bad["layer_types"] = {"conv"};
  try {
    trace_json(bad);
    FAIL("traced");
  } catch (const Error& e) {
    CHECK(e.path == "$.layer_types");
  }
  bad = c;
  bad.erase("full_attn_idxs");
  bad["layer_types"] = json::array();
  for (int i = 0; i < 16; ++i) bad["layer_types"].push_back(i == 3 ? "linear_attention" : "conv");
  try {
    trace_json(bad);
    FAIL("traced");
  } catch (const Error& e) {
    CHECK(e.path == "$.layer_types");
  }
  const json r = plan(c.dump(), {{"mode", "full"}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["params"]["total"] == total);
}
}  // namespace arch_lfm2_test

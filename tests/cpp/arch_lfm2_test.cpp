// LFM2 (modeling_lfm2.py Lfm2ForCausalLM; LFM2-1.2B, issue 10 Tier 2): gated short-conv layers beside
// attention layers. The total by hand; the conv layers hold a conv state, not a KV cache; the MLP
// width rule; coded errors. LFM2-MoE (modeling_lfm2_moe.py Lfm2MoeForCausalLM; LFM2-8B-A1B): the same
// layers with dense, then sigmoid-routed MoE feed-forwards and the expert_bias buffers.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/memory.hpp"
#include "plan/recurrent_state.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"
#include "vlm_test_util.hpp"

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
namespace {
// LFM2-8B-A1B: hidden 2048, 24 layers (6 attention at 2, 6, 10, 14, 18, 21; 18 conv), layers 0-1 a
// dense MLP at intermediate_size 7168 as given (Lfm2MoeMLP has no auto-adjust), layers 2-23 a gate
// [32, H] and 32 experts of 1792; embed_tokens tied.
constexpr int64_t I8 = 7168, E8 = 32, F8 = 1792;
constexpr int64_t dense8 = 3 * H * I8, moe8 = E8 * H + E8 * 3 * H * F8;
constexpr int64_t total8 = V * H + H + 6 * attn + 18 * conv + 24 * 2 * H + 2 * dense8 + 22 * moe8;
static_assert(total8 == 8339929856);  // the hub's safetensors total
// Per token: everything but the experts, and 4 of each layer's 32: the card's "1.5B active".
static_assert(total8 - 22 * (E8 - 4) * 3 * H * F8 == 1557740288);
}  // namespace

TEST_CASE("LFM2-8B-A1B: exact total by hand, two dense layers, then 32 experts with a float32 expert_bias buffer") {
  const Model m = trace_golden("lfm2-8b-a1b.json");
  CHECK(m.parameter_count() == total8);
  CHECK(m.dims.experts == E8);
  CHECK(m.dims.experts_per_token == 4);
  CHECK(attention_nodes(m).size() == 6);
  CHECK(find(m, "model.layers.1.feed_forward.w1.weight")->shape == Shape{I8, H});
  CHECK(find(m, "model.layers.1.feed_forward.gate.weight") == nullptr);
  CHECK(find(m, "model.layers.2.feed_forward.gate.weight")->shape == Shape{E8, H});
  CHECK(find(m, "model.layers.21.feed_forward.experts.31.w2.weight")->shape == Shape{H, F8});
  // expert_bias: a persistent buffer [32] in each of the 22 MoE layers, not a parameter.
  CHECK(m.buffer_count() == 22 * E8);
  // Serving: 6 layers of K/V, 18 conv states [H, 3].
  CHECK(recurrent_state_bytes(m, 2) == int64_t(18) * H * 3 * 2);
  const MemoryPlan p = plan_memory(m, Options{}, Mode::serve, 1, 4096, {});
  CHECK(component(p, "kv_cache") == int64_t(6) * 4096 * 8 * 64 * 2 * 2);

  json c = golden_file("lfm2-8b-a1b.json").at("config");
  c["num_dense_layers"] = 0;
  CHECK(trace_json(c).parameter_count() == total8 - 2 * dense8 + 2 * moe8);
  c = golden_file("lfm2-8b-a1b.json").at("config");
  c["use_expert_bias"] = false;
  CHECK(trace_json(c).buffer_count() == 0);
  c = golden_file("lfm2-8b-a1b.json").at("config");
  c.erase("intermediate_size");  // Lfm2MoeConfig's default, 7168
  CHECK(trace_json(c).parameter_count() == total8);
  c["tie_embedding"] = false;
  CHECK(trace_json(c).parameter_count() == total8 + V * H);
  check_plans_in_every_mode(golden_file("lfm2-8b-a1b.json").at("config"), total8);
}

TEST_CASE("LFM2-MoE configs that cannot run are coded errors naming the field") {
  const json config = golden_file("lfm2-8b-a1b.json").at("config");
  json bad = config;
  bad.erase("layer_types");  // Lfm2MoeConfig has no default: the model would index None
  CHECK(path_of(bad) == "$.layer_types");
  bad["layer_types"] = json::array();
  CHECK(path_of(bad) == "$.layer_types");
  bad = config;
  bad["layer_types"][3] = "linear_attention";
  CHECK(path_of(bad) == "$.layer_types");
  bad = config;
  bad["num_experts_per_tok"] = 33;
  CHECK(path_of(bad) == "$.num_experts_per_tok");
  bad = config;
  bad["num_experts"] = 0;
  CHECK(path_of(bad) == "$.num_experts");
}
}  // namespace arch_lfm2_test

// MiniMax-Text-01 (modeling_minimax.py MiniMaxForCausalLM; issue 10 Tier 2): lightning attention and
// softmax attention layers by layer_types, Mixtral's MoE everywhere. The total by hand; the
// lightning state per sequence by hand; the default layer pattern; coded errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/memory.hpp"
#include "plan/recurrent_state.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"

namespace arch_minimax_test {

using namespace cardfit;
using nlohmann::json;

namespace {
constexpr int64_t V = 200064, H = 6144, inner = 64 * 128;
// MiniMaxLightningAttention: qkv_proj [3 * 8192, H], norm [8192], output_gate [8192, H], out_proj [H, 8192].
constexpr int64_t lightning = H * 3 * inner + inner + H * inner + inner * H;
// MixtralAttention: q [8192, H], k/v [8 * 128, H], o [H, 8192].
constexpr int64_t full = 2 * H * inner + 2 * H * 8 * 128;
// MixtralSparseMoeBlock as stored: gate [32, H], experts.{e}.w1/w3 [9216, H], w2 [H, 9216].
constexpr int64_t moe = 32 * H + 32 * 3 * H * 9216;
constexpr int64_t total = 2 * V * H + 70 * lightning + 10 * full + 80 * (moe + 2 * H) + H;
static_assert(total == 456'089'655'296);  // the model card's 456B
}  // namespace

TEST_CASE("MiniMax-Text-01: exact total by hand, 70 lightning and 10 softmax attention layers") {
  const Model m = trace_golden("minimax-text-01-hf.json");
  CHECK(m.parameter_count() == total);
  CHECK(attention_nodes(m).size() == 10);
  CHECK(find(m, "model.layers.7.self_attn.q_proj.weight"));
  CHECK_FALSE(find(m, "model.layers.7.self_attn.qkv_proj.weight"));
  CHECK(find(m, "model.layers.6.self_attn.qkv_proj.weight")->shape == Shape{24576, 6144});
  CHECK(m.dims.experts == 32);
  CHECK(m.dims.experts_per_token == 2);
  // output_gate reads the layer's normed input, as qkv_proj does; the gate multiplies norm(o).
  const Node* qkv = find_node(m, "model.layers.0.self_attn.qkv_proj");
  const Node* gate = find_node(m, "model.layers.0.self_attn.output_gate");
  const Node* mul = find_node(m, "model.layers.0.self_attn.gate");
  REQUIRE(qkv);
  REQUIRE(gate);
  REQUIRE(mul);
  CHECK(gate->inputs == qkv->inputs);
  CHECK(mul->inputs == std::vector<ValueId>{find_node(m, "model.layers.0.self_attn.norm")->output, gate->output});
}

TEST_CASE("MiniMax-Text-01: lightning layers keep K^T V per sequence, softmax layers a KV cache") {
  const Model m = trace_golden("minimax-text-01-hf.json");
  // MiniMaxCache.linear_cache per lightning layer: attn_weights_inter [heads, head_dim, head_dim]
  // = 64 × 128 × 128 = 1,048,576 elements in the activation dtype (.to(value_states)); bf16:
  // 2,097,152 bytes a layer, 70 layers = 146,800,640 bytes a sequence; no conv state.
  CHECK(recurrent_state_bytes(m, 2) == int64_t(146'800'640));
  CHECK(recurrent_state_bytes(m, 4) == int64_t(2) * 146'800'640);
  const MemoryPlan a = plan_memory(m, Options{}, Mode::serve, 1, 4096, {});
  const MemoryPlan b = plan_memory(m, Options{}, Mode::serve, 4, 4096, {});
  CHECK(component(a, "ssm_state") == 146'800'640);
  CHECK(component(b, "ssm_state") == 4 * 146'800'640);
  CHECK(component(a, "kv_cache") == int64_t(10) * 4096 * 8 * 128 * 2 * 2);
}

TEST_CASE("minimax: the default alternation, num_experts, coded errors") {
  const json c = golden_file("minimax-text-01-hf.json").at("config");
  // MiniMaxConfig without layer_types: layer i is full_attention when (i + 1) % 2, else linear.
  json alternate = c;
  alternate.erase("layer_types");
  const Model a = trace_json(alternate);
  CHECK(attention_nodes(a).size() == 40);
  CHECK(find(a, "model.layers.0.self_attn.q_proj.weight"));
  CHECK(find(a, "model.layers.1.self_attn.qkv_proj.weight"));
  CHECK(a.parameter_count() == total + 30 * (full - lightning));
  json alias = c;
  alias.erase("num_local_experts");
  alias["num_experts"] = 32;  // attribute_map
  CHECK(trace_json(alias).parameter_count() == total);

  json remote = c;  // the remote code's list alone: transformers would not read it
  remote.erase("layer_types");
  remote["attn_type_list"] = json::array();
  for (int i = 0; i < 80; ++i) remote["attn_type_list"].push_back(i % 8 == 7 ? 1 : 0);
  CHECK(refusal(remote).path == "$.attn_type_list");
  json shared = c;
  shared["shared_intermediate_size"] = 0;  // what the remote-code configs carry: no shared expert
  CHECK(trace_json(shared).parameter_count() == total);
  shared["shared_intermediate_size"] = 1536;
  CHECK(refusal(shared).path == "$.shared_intermediate_size");
  json bad = c;
  bad["layer_types"][3] = "sliding_attention";
  CHECK(refusal(bad).path == "$.layer_types");
  bad = c;
  bad["num_experts_per_tok"] = 33;
  CHECK(refusal(bad).path == "$.num_experts_per_tok");

  const json r = plan(c.dump(), {{"mode", "full"}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["params"]["total"] == total);
}
}  // namespace arch_minimax_test

// GLM-4 as transformers ports it (modeling_glm.py GlmForCausalLM, glm-4-9b-chat-hf) and GLM-4-0414
// (modeling_glm4.py Glm4ForCausalLM, GLM-4-32B-0414): totals by hand, the sandwich norms' dataflow,
// the config classes' defaults.
#include <catch2/catch.hpp>

#include "test_util.hpp"

namespace arch_glm_test {

using namespace cardfit;
using nlohmann::json;

namespace {
constexpr int64_t V = 151552, D = 128, KV = 2;
// glm-4-9b-chat-hf: q/k/v biases, two RMSNorms per layer.
constexpr int64_t H9 = 4096, I9 = 13696, L9 = 40;
constexpr int64_t glm_layer = (H9 * H9 + H9) + 2 * (KV * D * H9 + KV * D) + H9 * H9 + 2 * I9 * H9 + H9 * I9 + 2 * H9;
constexpr int64_t glm_total = 2 * V * H9 + L9 * glm_layer + H9;
static_assert(glm_total == 9399951360);  // chatllm.cpp's count of glm-4-9b-chat
// GLM-4-32B-0414: no attention biases, four RMSNorms per layer.
constexpr int64_t H32 = 6144, I32 = 23040, L32 = 61;
constexpr int64_t glm4_layer = 2 * H32 * H32 + 2 * KV * D * H32 + 2 * I32 * H32 + H32 * I32 + 4 * H32;
constexpr int64_t glm4_total = 2 * V * H32 + L32 * glm4_layer + H32;
static_assert(glm4_total == 32566081536);  // "32.57 B" (GLM-Z1-32B-0414, ik_llama.cpp)
}  // namespace

TEST_CASE("glm-4-9b-chat-hf (glm): exact total by hand, q/k/v biases, fused gate_up, two pre-norms") {
  const Model m = trace_golden("glm-4-9b-chat-hf.json");
  CHECK(m.parameter_count() == glm_total);
  CHECK(find(m, "model.layers.7.self_attn.q_proj.bias")->shape == Shape{H9});
  CHECK(find(m, "model.layers.7.self_attn.o_proj.bias") == nullptr);
  CHECK(find(m, "model.layers.7.mlp.gate_up_proj.weight")->shape == Shape{2 * I9, H9});
  CHECK(find(m, "model.layers.7.post_self_attn_layernorm.weight") == nullptr);
  CHECK(find(m, "lm_head.weight")->tied_to.empty());
  CHECK(m.dims.kv_heads == KV);

  // GlmConfig's defaults: two KV heads and head_dim 128, whatever hidden_size / heads is.
  json c = golden_file("glm-4-9b-chat-hf.json").at("config");
  c.erase("num_key_value_heads");
  c.erase("head_dim");
  c["num_attention_heads"] = 64;  // hidden / heads = 64, not the class's 128
  const Model d = trace_json(c);
  CHECK(find(d, "model.layers.0.self_attn.q_proj.weight")->shape == Shape{64 * D, H9});
  CHECK(find(d, "model.layers.0.self_attn.k_proj.weight")->shape == Shape{KV * D, H9});
  c.erase("attention_bias");  // the class default is True
  CHECK(find(trace_json(c), "model.layers.0.self_attn.v_proj.bias") != nullptr);
}

TEST_CASE("GLM-4-32B-0414 (glm4): exact total by hand, sandwich norms on each sub-layer's output") {
  const Model m = trace_golden("glm-4-32b-0414.json");
  CHECK(m.parameter_count() == glm4_total);
  CHECK(find(m, "model.layers.0.self_attn.q_proj.bias") == nullptr);
  // Glm4DecoderLayer: post_self_attn_layernorm normalises the attention output before the residual
  // add; post_attention_layernorm is the MLP's input norm; post_mlp_layernorm its output's.
  const std::string p = "model.layers.5.";
  const Node* o = find_node(m, p + "self_attn.o_proj");
  const Node* after_attn = find_node(m, p + "post_self_attn_layernorm");
  const Node* before_mlp = find_node(m, p + "post_attention_layernorm");
  const Node* gate_up = find_node(m, p + "mlp.gate_up_proj");
  const Node* down = find_node(m, p + "mlp.down_proj");
  const Node* after_mlp = find_node(m, p + "post_mlp_layernorm");
  REQUIRE((o && after_attn && before_mlp && gate_up && down && after_mlp));
  CHECK(after_attn->inputs == std::vector<ValueId>{o->output});
  CHECK(gate_up->inputs == std::vector<ValueId>{before_mlp->output});
  CHECK(after_mlp->inputs == std::vector<ValueId>{down->output});
  const json r = plan(golden_file("glm-4-32b-0414.json").at("config").dump(), {{"mode", "lora"}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["params"]["total"] == glm4_total);
}
}  // namespace arch_glm_test

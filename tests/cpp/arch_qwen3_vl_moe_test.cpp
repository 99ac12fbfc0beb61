// Qwen3-VL-MoE (modeling_qwen3_vl_moe.py Qwen3VLMoeForConditionalGeneration; Qwen3-VL-30B-A3B, issue 10):
// Qwen3-VL's vision tower with deepstack over a Qwen3-MoE-shaped language model whose experts the
// checkpoint stores input-major (conversion_mapping.py transposes them on load). The total by hand
// from the modules; the expert layout; the text part = qwen3_vl_moe_text's trace; plans; errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/checks.hpp"
#include "test_util.hpp"
#include "vlm_test_util.hpp"

namespace arch_qwen3_vl_moe_test {

using namespace cardfit;
using nlohmann::json;

namespace {
constexpr int64_t H = 2048, V = 151936, E = 128, MI = 768, L = 48;
constexpr int64_t attn = H * 32 * 128 + 2 * H * 4 * 128 + 32 * 128 * H + 2 * 128;  // q, k, v, o, q_norm, k_norm
constexpr int64_t moe = E * H + E * H * 2 * MI + E * MI * H;  // mlp.gate, experts.gate_up_proj, experts.down_proj
constexpr int64_t layer = attn + moe + 2 * H;                  // + input / post_attention RMSNorms
constexpr int64_t text_total = 2 * V * H + L * layer + H;      // untied embed_tokens and lm_head, final norm
static_assert(layer == 623120640);
static_assert(text_total == 30532122624);  // = Qwen3-30B-A3B's index total_size 61,064,245,248 bytes / 2
// Qwen3VLVisionModel: hidden 1152, 27 blocks, intermediate 4304, 16 px patches over 2 frames, 2304
// positions, 2 x 2 merger to 2048, deepstack mergers after blocks 8, 16 and 24.
constexpr int64_t VH = 1152, M = VH * 4;
constexpr int64_t patch_embed = VH * 3 * 2 * 16 * 16 + VH;  // Conv3d with bias
constexpr int64_t block = 2 * 2 * VH + (3 * VH * VH + 3 * VH) + (VH * VH + VH) + (4304 * VH + 4304) + (VH * 4304 + VH);
constexpr int64_t merger = 2 * VH + (M * M + M) + (H * M + H);         // norm LayerNorm(1152)
constexpr int64_t deepstack = 2 * M + (M * M + M) + (H * M + H);       // norm LayerNorm(4608)
constexpr int64_t vision = patch_embed + 2304 * VH + 27 * block + merger + 3 * deepstack;
static_assert(block == 15239504);
static_assert(vision == 538631408);
}  // namespace

TEST_CASE("Qwen3-VL-30B-A3B: exact total by hand, input-major stacked experts, text part = the text trace") {
  const json config = golden_file("qwen3-vl-30b-a3b-instruct.json").at("config");
  const Model m = trace_json(config);
  CHECK(m.parameter_count() == text_total + vision);
  const Tensor* gate_up = find(m, "model.language_model.layers.5.mlp.experts.gate_up_proj");
  REQUIRE(gate_up);
  CHECK(gate_up->shape == Shape{E, H, 2 * MI});  // [E, in, out] as stored (the model transposes on load)
  CHECK_FALSE(gate_up->linear);
  CHECK(find(m, "model.language_model.layers.5.mlp.experts.down_proj")->shape == Shape{E, MI, H});
  CHECK(find(m, "model.language_model.layers.5.mlp.experts.0.gate_proj.weight") == nullptr);
  CHECK(find(m, "lm_head.weight")->tied_to.empty());
  CHECK(shape_errors(m).empty());

  const Model lm = trace_golden("qwen3-vl-30b-a3b-text.json");
  CHECK(lm.parameter_count() == text_total);
  CHECK(trace_golden("qwen3-30b-a3b.json").parameter_count() == text_total);  // the same text model, stored per expert
  for (const auto& t : lm.tensors) {
    const std::string name = t.name.rfind("model.", 0) == 0 ? "model.language_model." + t.name.substr(6) : t.name;
    INFO(name);
    const Tensor* w = find(m, name);
    REQUIRE(w);
    CHECK(w->shape == t.shape);
  }
  int64_t visual = 0;
  for (const auto& t : m.tensors)
    if (t.name.rfind("model.visual.", 0) == 0) visual += t.count();
  CHECK(visual == vision);

  // The routed experts run top_k of 128: the expert nodes hold all 128 and 8 per token.
  const Node* n = find_node(m, "model.language_model.layers.5.mlp.experts.gate_up_proj");
  REQUIRE(n);
  CHECK(n->experts == E);
  CHECK(n->active == 8);
  CHECK(m.dims.experts == E);
  CHECK(m.dims.experts_per_token == 8);
}

TEST_CASE("Qwen3-VL-MoE: mlp_only_layers keep a dense MLP, plans in every mode, coded errors") {
  json config = golden_file("qwen3-vl-30b-a3b-instruct.json").at("config");
  check_plans_in_every_mode(config, text_total + vision);
  json dense = config;
  dense["text_config"]["mlp_only_layers"] = {0, 47};
  const Model d = trace_json(dense);
  CHECK(d.parameter_count() == text_total + vision - 2 * moe + 2 * 3 * H * 6144);
  REQUIRE(find(d, "model.language_model.layers.0.mlp.gate_proj.weight"));
  CHECK(find(d, "model.language_model.layers.0.mlp.gate_proj.weight")->shape == Shape{6144, H});
  CHECK(find(d, "model.language_model.layers.1.mlp.experts.gate_up_proj"));

  json bad = config;
  bad["text_config"]["num_experts_per_tok"] = 129;
  try {
    trace_json(bad);
    FAIL("traced");
  } catch (const Error& e) {
    CHECK(e.path == "$.text_config.num_experts_per_tok");
  }
  bad = config;
  bad["vision_config"]["out_hidden_size"] = 4096;
  try {
    trace_json(bad);
    FAIL("traced");
  } catch (const Error& e) {
    CHECK(e.path == "$.vision_config");
  }
}
}  // namespace arch_qwen3_vl_moe_test

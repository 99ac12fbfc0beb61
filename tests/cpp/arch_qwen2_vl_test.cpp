// Qwen2-VL (modeling_qwen2_vl.py Qwen2VLForConditionalGeneration, Qwen2-VL-7B-Instruct): the vision
// tower of Qwen2.5-VL's shape with LayerNorms, an ungated fc1/fc2 MLP and no windows, the
// merger into a Qwen2 text model. Totals by hand; the class defaults; a merger that cannot feed the text.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "test_util.hpp"

namespace arch_qwen2_vl_test {

using namespace cardfit;
using nlohmann::json;

namespace {
// Text: Qwen2 (q/k/v biases), untied head.
constexpr int64_t V = 152064, H = 3584, I = 18944, L = 28, KV = 4 * 128;
constexpr int64_t text_layer = (H * H + H) + 2 * (KV * H + KV) + H * H + 3 * H * I + 2 * H;
constexpr int64_t text = 2 * V * H + L * text_layer + H;
// Vision: embed_dim 1280, 32 blocks, mlp_ratio 4, patches of 2 x 14 x 14 pixels in 3 channels.
constexpr int64_t E = 1280, M = 4 * E, merged = 4 * E;
constexpr int64_t patch_embed = E * 3 * 2 * 14 * 14;                         // Conv3d, no bias
constexpr int64_t block = 2 * 2 * E + (3 * E * E + 3 * E) + (E * E + E) + (M * E + M) + (E * M + E);
constexpr int64_t merger = 2 * E + (merged * merged + merged) + (H * merged + H);  // ln_q, mlp.0, mlp.2
constexpr int64_t vision = patch_embed + 32 * block + merger;
static_assert(vision == 675759104);  // the Qwen2-VL report's 675M vision encoder
static_assert(text + vision == 8291375616);
}  // namespace

TEST_CASE("Qwen2-VL-7B (qwen2_vl): exact total by hand, LayerNorm tower with fc1/fc2, global attention") {
  const Model m = trace_golden("qwen2-vl-7b-instruct.json");
  CHECK(m.parameter_count() == text + vision);
  CHECK(find(m, "visual.blocks.0.norm1.bias")->shape == Shape{E});
  CHECK(find(m, "visual.blocks.31.mlp.fc1.weight")->shape == Shape{M, E});
  CHECK(find(m, "visual.blocks.31.mlp.fc2.bias")->shape == Shape{E});
  CHECK(find(m, "visual.blocks.0.mlp.gate_proj.weight") == nullptr);
  CHECK(find(m, "visual.merger.ln_q.bias")->shape == Shape{E});
  CHECK(find(m, "visual.merger.mlp.2.weight")->shape == Shape{H, merged});
  CHECK(find(m, "model.layers.27.self_attn.k_proj.bias")->shape == Shape{KV});
  CHECK(find(m, "lm_head.weight")->tied_to.empty());
  const Node* attn = find_node(m, "visual.blocks.5.attn.attn");
  REQUIRE(attn);
  CHECK(attn->attn.window == 0);  // no window_size in Qwen2-VL: every block global

  // Qwen2VLVisionConfig's defaults are the 7B tower's: an empty vision_config traces the same.
  json c = golden_file("qwen2-vl-7b-instruct.json").at("config");
  json bare = c;
  bare["vision_config"] = json::object();
  CHECK(trace_json(bare).parameter_count() == text + vision);
  json wide = c;
  wide["vision_config"]["hidden_size"] = 1536;  // the 2B's text width, against this 3584-wide text model
  try {
    trace_json(wide);
    FAIL("traced");
  } catch (const Error& e) {
    CHECK(e.path == "$.vision_config.hidden_size");
  }
  const json r = plan(c.dump(), {{"mode", "lora"}, {"images", 1}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["params"]["total"] == text + vision);
}
}  // namespace arch_qwen2_vl_test

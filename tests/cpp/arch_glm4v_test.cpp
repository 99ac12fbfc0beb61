// GLM-4.1V (modeling_glm4v.py Glm4vForConditionalGeneration) and GLM-4.5V (modeling_glm4v_moe.py
// Glm4vMoeForConditionalGeneration): Glm4vVisionModel (GLM-OCR's tower with its position table and
// post-conv norm, no q/k norms, MLPs out_hidden_size wide) over GLM-4-0414 or GLM-4.5 MoE layers.
// The totals by hand, the tower's tokens, plans, coded errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/checks.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"
#include "vlm_test_util.hpp"

namespace arch_glm4v_test {

using namespace cardfit;
using nlohmann::json;

namespace {
// Glm4vVisionModel: hidden 1536, 24 blocks, 12 heads, out_hidden 4096, patch 14 (temporal 2), 336 px.
constexpr int64_t VH = 1536, OUT = 4096;
constexpr int64_t patch_embed = VH * 3 * 2 * 14 * 14 + VH;  // Conv3d with its bias
constexpr int64_t block = 2 * VH + 3 * VH * VH + VH * VH + 3 * OUT * VH;  // norms, qkv, proj, the MLP out_hidden wide
constexpr int64_t tower_without_merger = patch_embed + VH + 576 * VH + 24 * block + VH + (OUT * VH * 4 + OUT);
constexpr int64_t merger(int64_t context) { return OUT * OUT + 2 * OUT + 3 * OUT * context; }
constexpr int64_t vision45 = tower_without_merger + merger(10944), vision41 = tower_without_merger + merger(13696);
static_assert(vision45 == 858681856 && vision41 == 892498432);

constexpr int64_t V = 151552, H = 4096;
// GLM-4.1V's text: GLM-4-0414 layers, 32 query and 2 KV heads of 128, q/k/v biases, gate_up [2 · 13696].
constexpr int64_t layer41 = (H * H + H) + 2 * (H * 256 + 256) + H * H + 2 * 13696 * H + 13696 * H + 4 * H;
constexpr int64_t total41 = vision41 + V * H + 40 * layer41 + H + V * H;
static_assert(total41 == 10292777472);  // the hub's total (GLM-4.1V-9B-Thinking, GLM-4.6V-Flash)
// GLM-4.5V's text: 96 query and 8 KV heads of 128 with q/k/v biases; layer 0 dense (10944), layers 1-45
// a router, 128 experts of 1408 and one shared expert.
constexpr int64_t attn45 = (H * 12288 + 12288) + 2 * (H * 1024 + 1024) + 12288 * H + 2 * H;
constexpr int64_t moe45 = 128 * H + 128 * 3 * H * 1408 + 3 * H * 1408;
constexpr int64_t total45 = vision45 + V * H + 46 * attn45 + 3 * H * 10944 + 45 * moe45 + H + V * H;
static_assert(total45 + 45 * 128 == 107710933120);  // with the float32 e_score_correction_bias buffers: the hub's
}  // namespace

TEST_CASE("GLM-4.5V: exact total by hand, the tower's position table, names as the checkpoint stores them") {
  const Model m = trace_golden("glm-4.5v.json");
  CHECK(m.parameter_count() == total45);
  CHECK(m.buffer_count() == 45 * 128);
  CHECK(under(m, "model.visual.") == vision45);
  CHECK(shape_errors(m).empty());
  CHECK(find(m, "model.visual.blocks.0.attn.q_norm.weight") == nullptr);  // GLM-OCR's; not Glm4v's
  CHECK(find(m, "model.visual.blocks.0.attn.qkv.bias") == nullptr);       // attention_bias false
  CHECK(find(m, "model.visual.blocks.0.attn.proj.bias") == nullptr);
  CHECK(find(m, "lm_head.weight")->tied_to.empty());
  CHECK(m.dims.experts == 128);
  CHECK(m.dims.experts_per_token == 8);
  // One 336 px image: 576 patches through the tower, 144 tokens after the 2 × 2 downsample.
  for (const auto& b : m.blocks) {
    if (b.name == "model.visual.blocks.0") CHECK(b.tokens_per_image == 576);
    if (b.name == "model.visual.merger") CHECK(b.tokens_per_image == 144);
  }
}

TEST_CASE("GLM-4.1V-9B: exact total by hand, q/k/v biases whatever attention_bias says") {
  const Model m = trace_golden("glm-4.1v-9b-thinking.json");
  CHECK(m.parameter_count() == total41);
  CHECK(under(m, "model.visual.") == vision41);
  json c = golden_file("glm-4.1v-9b-thinking.json").at("config");
  c["text_config"]["attention_bias"] = false;  // Glm4vTextAttention hard-codes bias=True
  CHECK(trace_json(c).parameter_count() == total41);
  c["vision_config"]["attention_bias"] = true;  // the tower's qkv alone gains a bias
  CHECK(trace_json(c).parameter_count() == total41 + 24 * 3 * VH);
  check_plans_in_every_mode(golden_file("glm-4.1v-9b-thinking.json").at("config"), total41);
  const Model with_tower = trace_json(golden_file("glm-4.1v-9b-thinking.json").at("config"));
  CHECK(with_images(with_tower, 1, Mode::full).peak_bytes > with_images(with_tower, 0, Mode::full).peak_bytes);
}

TEST_CASE("GLM-4.1V's and GLM-4.5V's text_config alone: the language model, GLM-4.5V's that of GLM-4.5-Air") {
  const Model t41 = trace_golden("glm-4.1v-9b-thinking-text.json");
  CHECK(t41.parameter_count() == total41 - vision41);
  CHECK(t41.model_type == "glm4v_text");
  CHECK(find(t41, "model.layers.0.self_attn.k_proj.bias"));  // hard-coded, as in the whole model
  const Model t45 = trace_golden("glm-4.5v-text.json");
  CHECK(t45.parameter_count() == total45 - vision45);
  CHECK(t45.parameter_count() == trace_golden("glm-4.5-air.json").parameter_count());
  CHECK(t45.buffer_count() == 45 * 128);
}

TEST_CASE("GLM-4V configs that cannot run are coded errors naming the field") {
  const json config = golden_file("glm-4.1v-9b-thinking.json").at("config");
  json bad = config;
  bad["vision_config"]["out_hidden_size"] = 2048;  // the merger's tokens must be the text's width
  CHECK(path_of(bad) == "$.vision_config");
  bad = config;
  bad["vision_config"]["image_size"] = 300;  // not a multiple of patch × merge (28)
  CHECK(path_of(bad) == "$.vision_config.image_size");
  bad = config;
  bad["text_config"]["num_attention_heads"] = 0;
  CHECK(path_of(bad) == "$.text_config.num_attention_heads");
}
}  // namespace arch_glm4v_test

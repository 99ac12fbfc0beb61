// PaliGemma (modeling_paligemma.py PaliGemmaForConditionalGeneration): a SigLIP tower, one linear
// projector and a Gemma (PaliGemma) or Gemma 2 (PaliGemma 2) language model. The totals by hand against
// the hub's, the image tokens, plans, coded errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/checks.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"
#include "vlm_test_util.hpp"

namespace arch_paligemma_test {

using namespace cardfit;
using nlohmann::json;

namespace {
// SigLIP so400m at 224 px (hidden 1152, intermediate 4304, 27 layers, patch 14: 256 patches), no head.
constexpr int64_t VH = 1152, VI = 4304;
constexpr int64_t vision_layer = 4 * (VH * VH + VH) + (VH * VI + VI) + (VI * VH + VH) + 2 * 2 * VH;
constexpr int64_t vision(int64_t patches) { return (VH * 3 * 14 * 14 + VH) + patches * VH + 27 * vision_layer + 2 * VH; }
constexpr int64_t V = 257216;
// Gemma at hidden 2048: 8 query heads and 1 KV head of 256, MLP 16384, 18 layers, lm_head tied.
constexpr int64_t gemma_layer = 2048 * 8 * 256 + 2 * 2048 * 256 + 8 * 256 * 2048 + 3 * 2048 * 16384 + 2 * 2048;
constexpr int64_t text = V * 2048 + 18 * gemma_layer + 2048;
constexpr int64_t total = vision(256) + (2048 * VH + 2048) + text;
static_assert(vision(256) == 412442352 && text == 2508662784);
static_assert(total == 2923466480);  // the hub's total for paligemma-3b-mix-224, the same architecture
// PaliGemma 2 3B: Gemma 2 2B's text (hidden 2304, 26 layers, 8 heads and 4 KV heads of 256, MLP 9216, a
// post-attention and a post-feedforward norm more) and projection_dim 2304.
constexpr int64_t gemma2_layer = 2304 * 8 * 256 + 2 * 2304 * 4 * 256 + 8 * 256 * 2304 + 3 * 2304 * 9216 + 4 * 2304;
constexpr int64_t total2(int64_t patches) {
  return vision(patches) + (2304 * VH + 2304) + V * 2304 + 26 * gemma2_layer + 2304;
}
static_assert(total2(256) == 3032242416);   // the hub's: paligemma2-3b-mix-224
static_assert(total2(1024) == 3033127152);  // paligemma2-3b-pt-448

json paligemma2(int64_t image_size) {
  json c = golden_file("paligemma-3b-pt-224.json").at("config");
  c["projection_dim"] = 2304;
  c["text_config"] = {{"model_type", "gemma2"}, {"hidden_size", 2304},      {"intermediate_size", 9216},
                      {"num_hidden_layers", 26},  {"num_attention_heads", 8}, {"num_key_value_heads", 4},
                      {"head_dim", 256},          {"vocab_size", V}};
  c["vision_config"]["image_size"] = image_size;
  return c;
}
}  // namespace

TEST_CASE("PaliGemma 3B: exact total by hand, names as the checkpoint stores them, 256 tokens an image") {
  const Model m = trace_golden("paligemma-3b-pt-224.json");
  CHECK(m.parameter_count() == total);
  CHECK(under(m, "vision_tower.vision_model.") == vision(256));
  CHECK(under(m, "language_model.model.") == text);  // lm_head is a tied entry
  CHECK(shape_errors(m).empty());
  CHECK(find(m, "vision_tower.vision_model.head.probe") == nullptr);  // vision_use_head false
  CHECK(find(m, "language_model.lm_head.weight")->tied_to == "language_model.model.embed_tokens.weight");
  for (const auto& b : m.blocks)
    if (b.name == "multi_modal_projector") CHECK(b.tokens_per_image == 256);
  check_plans_in_every_mode(golden_file("paligemma-3b-pt-224.json").at("config"), total);
  CHECK(with_images(m, 1, Mode::full).peak_bytes > with_images(m, 0, Mode::full).peak_bytes);
}

TEST_CASE("PaliGemma 2: Gemma 2's text, the hub's totals at 224 and 448 px") {
  CHECK(trace_json(paligemma2(224)).parameter_count() == total2(256));
  const Model m448 = trace_json(paligemma2(448));
  CHECK(m448.parameter_count() == total2(1024));
  for (const auto& b : m448.blocks)
    if (b.name == "multi_modal_projector") CHECK(b.tokens_per_image == 1024);
}

TEST_CASE("PaliGemma configs that cannot run are coded errors naming the field") {
  json bad = golden_file("paligemma-3b-pt-224.json").at("config");
  bad["projection_dim"] = 1024;  // the projected tokens must be the text's width
  CHECK(path_of(bad) == "$.projection_dim");
  bad = golden_file("paligemma-3b-pt-224.json").at("config");
  bad["vision_config"]["model_type"] = "clip_vision_model_x";
  CHECK(path_of(bad) == "$.vision_config.model_type");
}
}  // namespace arch_paligemma_test

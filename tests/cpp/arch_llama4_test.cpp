// Llama 4 (modeling_llama4.py Llama4ForConditionalGeneration; Llama-4-Scout-17B-16E, issue 10): the
// vision model, its pixel-shuffle adapter and the projector over the llama4_text language model.
// The total by hand from the modules; the tower's tokens; the text part = llama4_text's trace renamed
// as the checkpoint stores it; plans at images 0 and 1; coded errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/checks.hpp"
#include "plan/memory.hpp"
#include "test_util.hpp"
#include "vlm_test_util.hpp"

namespace arch_llama4_test {

using namespace cardfit;
using nlohmann::json;

namespace {
// Llama4VisionModel for Scout's vision_config (hidden 1408, 34 layers, intermediate 5632, 336 px
// images of 14 px patches: 24 × 24 = 576 patches + the class token):
constexpr int64_t VH = 1408, VI = 5632;
constexpr int64_t embeddings = VH * 3 * 14 * 14 + VH + 577 * VH;  // patch_embedding.linear, class_embedding, positions
constexpr int64_t vision_layer = 4 * (VH * VH + VH) + (VH * VI + VI) + (VI * VH + VH) + 2 * 2 * VH;
constexpr int64_t vision = embeddings + 2 * 2 * VH + 34 * vision_layer + 4096 * VI + 4096 * 4096;  // + pre/post LN, adapter
constexpr int64_t projector = 5120 * 4096;  // multi_modal_projector.linear_1, no bias
constexpr int64_t text = 107769861120;      // tests/golden/models/llama-4-scout-17b-16e-text.json
static_assert(vision_layer == 23807872);
static_assert(vision == 850960896);
static_assert(text + vision + projector == 108641793536);  // the card's "109B total"
}  // namespace

TEST_CASE("Llama 4 Scout wrapper: exact total by hand, names as the checkpoint stores them") {
  const json config = golden_file("llama-4-scout-17b-16e.json").at("config");
  const Model m = trace_json(config);
  CHECK(m.parameter_count() == text + vision + projector);
  int64_t tower = 0, proj = 0;
  for (const auto& t : m.tensors) {
    if (t.name.rfind("vision_model.", 0) == 0) tower += t.count();
    if (t.name.rfind("multi_modal_projector.", 0) == 0) proj += t.count();
  }
  CHECK(tower == vision);
  CHECK(proj == projector);
  CHECK(shape_errors(m).empty());

  // The language model is llama4_text's trace of text_config under "language_model.".
  const Model lm = trace_golden("llama-4-scout-17b-16e-text.json");
  CHECK(lm.parameter_count() == text);
  for (const auto& t : lm.tensors) {
    INFO(t.name);
    const Tensor* w = find(m, "language_model." + t.name);
    REQUIRE(w);
    CHECK(w->shape == t.shape);
  }
  CHECK(find(m, "language_model.lm_head.weight")->tied_to.empty());  // tie_word_embeddings false
  CHECK(m.dims.hidden == 5120);
  CHECK(m.dims.experts == 16);

  // The tower runs 577 tokens per image; the adapter and projector the 144 shuffled ones.
  for (const auto& b : m.blocks) {
    if (b.name == "vision_model.model.layers.0") CHECK(b.tokens_per_image == 577);
    if (b.name == "multi_modal_projector") CHECK(b.tokens_per_image == 144);
  }
  const Node* attn = find_node(m, "vision_model.model.layers.0.self_attn.attn");
  REQUIRE(attn);
  CHECK_FALSE(attn->attn.causal);  // bidirectional: no KV cache
  CHECK(attn->attn.head_dim == 88);
}

TEST_CASE("Llama 4 Scout plans at images 0 and 1 in every mode") {
  const json config = golden_file("llama-4-scout-17b-16e.json").at("config");
  const Model m = trace_json(config);
  const Model lm = trace_golden("llama-4-scout-17b-16e-text.json");
  Options none, one;
  none.images = 0;
  one.images = 1;
  for (Mode mode : {Mode::full, Mode::serve}) {
    INFO(mode_name(mode));
    const MemoryPlan a = MemoryModel(m, none, mode, 2048, {}).at(1);
    const MemoryPlan b = MemoryModel(lm, Options{}, mode, 2048, {}).at(1);
    CHECK(a.peak_bytes >= b.peak_bytes + (vision + projector) * (mode == Mode::full ? 4 : 2));
    const MemoryPlan i1 = MemoryModel(m, one, mode, 2048, {}).at(1);
    CHECK(i1.peak_bytes >= a.peak_bytes);
    if (mode == Mode::full) CHECK(i1.peak_bytes > a.peak_bytes);  // the image's activations
  }
  check_plans_in_every_mode(config, text + vision + projector);
}

TEST_CASE("Llama 4 vision configs that cannot run are coded errors naming the field") {
  const json config = golden_file("llama-4-scout-17b-16e.json").at("config");
  auto path_of = [](const json& c) {
    try {
      trace_json(c);
    } catch (const Error& e) {
      return e.path;
    }
    return std::string("traced");
  };
  json bad = config;
  bad["vision_config"]["pixel_shuffle_ratio"] = 0.3;
  CHECK(path_of(bad) == "$.vision_config.pixel_shuffle_ratio");
  bad = config;
  bad["vision_config"]["intermediate_size"] = 4096;
  CHECK(path_of(bad) == "$.vision_config.intermediate_size");
  bad = config;
  bad["vision_config"]["vision_output_dim"] = 7680;
  CHECK(path_of(bad) == "$.vision_config.vision_output_dim");
  bad = config;
  bad["vision_config"]["num_attention_heads"] = 15;
  CHECK(path_of(bad) == "$.vision_config.num_attention_heads");
  // No vision_config: Llama4VisionConfig's own defaults, whose adapter cannot read its tower (768 × 4 ≠ 5632).
  bad = config;
  bad.erase("vision_config");
  CHECK(path_of(bad) == "$.vision_config.intermediate_size");
}
}  // namespace arch_llama4_test

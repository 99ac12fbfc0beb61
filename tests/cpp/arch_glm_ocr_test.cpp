// GLM-OCR (modeling_glm_ocr.py GlmOcrForConditionalGeneration; zai-org/GLM-OCR, issue 10): the
// vision model of glm_ocr_vision.hpp and the GLM-4-layered text model. The total by hand from the
// modules; the tower's and merger's tokens; the four norms per text layer in their order; the MTP
// layer noted, not counted; plans; coded errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/checks.hpp"
#include "plan/memory.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"
#include "vlm_test_util.hpp"

namespace arch_glm_ocr_test {

using namespace cardfit;
using nlohmann::json;

namespace {
// GlmOcrVisionModel: hidden 1024, 24 blocks, 16 heads (head_dim 64), intermediate 4096, biases
// (attention_bias), out_hidden 1536, 14 px patches over 2 frames, 2 × 2 merge.
constexpr int64_t VH = 1024, VI = 4096, OUT = 1536, CTX = OUT * 3;
constexpr int64_t patch = VH * 3 * 2 * 14 * 14 + VH;
constexpr int64_t block = 2 * VH + (3 * VH * VH + 3 * VH) + 2 * 64 + (VH * VH + VH) + 2 * (VI * VH + VI) + (VH * VI + VH);
constexpr int64_t downsample = OUT * VH * 2 * 2 + OUT;
constexpr int64_t merger = OUT * OUT + 2 * OUT + 2 * CTX * OUT + OUT * CTX;  // no biases
constexpr int64_t vision = patch + 24 * block + VH + downsample + merger;
static_assert(block == 16792704 && merger == 23596032);
static_assert(vision == 434120192);
// GlmOcrTextModel: vocab 59392, hidden 1536, 16 layers, 16 heads of 128 (q 2048 wide), 8 KV heads,
// intermediate 4608, no biases, four RMSNorms per layer; lm_head untied.
constexpr int64_t V = 59392, H = 1536, I = 4608;
constexpr int64_t layer = H * 2048 + 2 * H * 1024 + 2048 * H + 2 * I * H + I * H + 4 * H;
constexpr int64_t text = V * H + 16 * layer + H + V * H;
static_assert(layer == 30676992);
static_assert(vision + text == 1107405824);

}  // namespace

TEST_CASE("GLM-OCR: exact total by hand, names as the checkpoint stores them") {
  const Model m = trace_golden("glm-ocr.json");
  CHECK(m.parameter_count() == vision + text);
  CHECK(under(m, "model.visual.") == vision);
  CHECK(under(m, "model.visual.merger.") == merger);
  CHECK(under(m, "model.language_model.") + under(m, "lm_head.") == text);
  CHECK(shape_errors(m).empty());
  CHECK(m.dims.hidden == H);
  CHECK(find(m, "lm_head.weight")->tied_to.empty());
  CHECK(find(m, "model.language_model.layers.16.input_layernorm.weight") == nullptr);  // the MTP layer: not loaded
  bool noted = false;
  for (const auto& note : m.notes) noted = noted || note.find("layers.16") != std::string::npos;
  CHECK(noted);

  // The four norms of a text layer, in forward order, around attention and MLP.
  std::vector<std::string> norms;
  for (const auto& b : m.blocks)
    if (b.name == "model.language_model.layers.3")
      for (const auto& n : b.nodes)
        if (n.op == Op::norm) norms.push_back(n.name.substr(n.name.rfind('.') + 1));
  CHECK(norms == std::vector<std::string>{"input_layernorm", "post_self_attn_layernorm", "post_attention_layernorm",
                                          "post_mlp_layernorm"});

  // One 336 px image: 576 patches through the blocks, 144 tokens from the downsample on.
  for (const auto& b : m.blocks) {
    if (b.name == "model.visual.blocks.0") CHECK(b.tokens_per_image == 576);
    if (b.name == "model.visual.merger") CHECK(b.tokens_per_image == 144);
  }
  const Node* attn = find_node(m, "model.visual.blocks.0.attn.attn");
  REQUIRE(attn);
  CHECK_FALSE(attn->attn.causal);
  CHECK(attn->attn.head_dim == 64);
  // The text attention caches 8 KV heads of 128 per layer.
  const MemoryPlan p = plan_memory(m, Options{}, Mode::serve, 1, 4096, {});
  int64_t kv = -1;
  for (const auto& c : p.components)
    if (c.id == "kv_cache") kv = c.bytes;
  CHECK(kv == int64_t(16) * 4096 * 8 * 128 * 2 * 2);
}

TEST_CASE("GLM-OCR: the hub's 1,325,258,240 in 526 tensors is the model and its MTP layer 16, 0 unexplained") {
  // zai-org/GLM-OCR's safetensors.total (public hub-metadata fixtures at ca5d8b3e, 2026-12-05). The
  // MTP layer model.language_model.layers.16.*, GLM-4.5's layout: a copy of layer 15, its own
  // embed_tokens and shared_head.head [V, H], enorm, hnorm, shared_head.norm, eh_proj [H, 2H].
  constexpr int64_t mtp = layer + 2 * V * H + 3 * H + H * 2 * H;
  static_assert(mtp == 217852416);
  static_assert(vision + text + mtp == 1325258240);
  const Model m = trace_golden("glm-ocr.json");
  int64_t extras = 0;
  for (const auto& x : m.stored_extras) extras += x.tensor.count();
  CHECK(extras == mtp);
  CHECK(expand_copies(m.tensors).size() + expand_copies(m.stored_extras).size() == 526);
  REQUIRE(find_extra(m, "model.language_model.layers.16.eh_proj.weight"));
  CHECK(find_extra(m, "model.language_model.layers.16.eh_proj.weight")->tensor.shape == Shape{H, 2 * H});
  CHECK(find_extra(m, "model.language_model.layers.16.mlp.gate_up_proj.weight")->tensor.shape == Shape{2 * I, H});
  const json r = plan(golden_file("glm-ocr.json").at("config").dump(), {{"checkpoint_total", 1325258240}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["checkpoint"]["unexplained"] == 0);
}

TEST_CASE("GLM-OCR plans in every mode, images add the tower's activations") {
  const json config = golden_file("glm-ocr.json").at("config");
  const Model m = trace_json(config);
  CHECK(with_images(m, 1, Mode::full).peak_bytes > with_images(m, 0, Mode::full).peak_bytes);
  check_plans_in_every_mode(config, vision + text);
}

TEST_CASE("GLM-OCR configs that cannot run are coded errors naming the field") {
  const json config = golden_file("glm-ocr.json").at("config");
  json bad = config;
  bad["vision_config"]["out_hidden_size"] = 1024;  // the merger's tokens would not fit the text
  CHECK(path_of(bad) == "$.vision_config");
  bad = config;
  bad["vision_config"]["num_heads"] = 12;
  CHECK(path_of(bad) == "$.vision_config.num_heads");
  bad = config;
  bad["vision_config"]["image_size"] = 330;
  CHECK(path_of(bad) == "$.vision_config.image_size");
}
}  // namespace arch_glm_ocr_test

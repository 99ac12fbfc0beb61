// Idefics3 and SmolVLM (modeling_idefics3.py Idefics3ForConditionalGeneration, modular_smolvlm.py
// SmolVLMForConditionalGeneration; issue 10): SmolVLM-256M-Instruct (model_type idefics3) and
// SmolVLM2-500M-Video-Instruct (smolvlm). The totals by hand from the modules; the tower's and the
// connector's tokens; the text part = the llama family's trace of text_config renamed as the
// checkpoint stores it; the tie read from the top level; plans at images 0 and 1; coded errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/checks.hpp"
#include "plan/memory.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"
#include "vlm_test_util.hpp"

namespace arch_idefics3_test {

using namespace cardfit;
using nlohmann::json;

namespace {
// Idefics3VisionTransformer of both goldens (SigLIP-B/16 at 512 px: hidden 768, 12 layers, 12 heads,
// intermediate 3072, 32 × 32 = 1024 patches; no class token, no pooling head).
constexpr int64_t VH = 768, VI = 3072, patches = (512 / 16) * (512 / 16);
constexpr int64_t vision_layer = 4 * (VH * VH + VH) + (VH * VI + VI) + (VI * VH + VH) + 2 * 2 * VH;
constexpr int64_t vision = (VH * 3 * 16 * 16 + VH) + patches * VH + 12 * vision_layer + 2 * VH;
static_assert(vision_layer == 7087872);
static_assert(vision == 86433024);

// A Llama text model with an untied lm_head: V·H twice, L layers of q/o [H, H], k/v [kv·64, H],
// gate/up/down [I, H], two RMSNorms, the final norm.
constexpr int64_t llama(int64_t V, int64_t H, int64_t L, int64_t kv_dim, int64_t I) {
  return 2 * V * H + L * (2 * H * H + 2 * kv_dim * H + 3 * H * I + 2 * H) + H;
}
// SmolVLM-256M: SmolLM2-135M (576 wide, 30 layers, 3 KV heads of 64, 1536), scale_factor 4.
constexpr int64_t text256 = llama(49280, 576, 30, 192, 1536), connector256 = 576 * VH * 16;
static_assert(text256 == 162974016);
static_assert(vision + connector256 + text256 == 256484928);
// SmolVLM2-500M: SmolLM2-360M-shaped (960 wide, 32 layers, 5 KV heads of 64, 2560), scale_factor 4.
constexpr int64_t text500 = llama(49280, 960, 32, 320, 2560), connector500 = 960 * VH * 16;
static_assert(text500 == 409252800);
static_assert(vision + connector500 + text500 == 507482304);

}  // namespace

TEST_CASE("Idefics3 / SmolVLM: exact totals by hand, names as the checkpoints store them") {
  struct Case {
    const char* file;
    int64_t text, connector, text_hidden;
  };
  for (const Case& k : {Case{"smolvlm-256m-instruct.json", text256, connector256, 576},
                        Case{"smolvlm2-500m-video-instruct.json", text500, connector500, 960}}) {
    INFO(k.file);
    const Model m = trace_golden(k.file);
    CHECK(m.parameter_count() == vision + k.connector + k.text);
    CHECK(under(m, "model.vision_model.") == vision);
    CHECK(under(m, "model.connector.") == k.connector);
    CHECK(under(m, "model.text_model.") + under(m, "lm_head.") == k.text);
    CHECK(shape_errors(m).empty());
    CHECK(m.dims.hidden == k.text_hidden);
    CHECK(find(m, "model.vision_model.head.probe") == nullptr);  // no SigLIP pooling head
    CHECK(find(m, "model.connector.modality_projection.proj.bias") == nullptr);
    const Tensor* head = find(m, "lm_head.weight");
    REQUIRE(head);
    CHECK(head->tied_to.empty());  // tie_word_embeddings false

    // The tower runs 1024 patches per image; the connector the 64 tokens of the 4 × 4 shuffle.
    bool saw_layer = false, saw_connector = false;
    for (const auto& b : m.blocks) {
      if (b.name == "model.vision_model.encoder.layers.0") {
        saw_layer = true;
        CHECK(b.tokens_per_image == patches);
        CHECK(b.domain == Domain::vision);
      }
      if (b.name == "model.connector") {
        saw_connector = true;
        CHECK(b.tokens_per_image == patches / 16);
        CHECK(b.width == VH * 16);
      }
    }
    CHECK(saw_layer);
    CHECK(saw_connector);
    const Node* attn = find_node(m, "model.vision_model.encoder.layers.0.self_attn.attn");
    REQUIRE(attn);
    CHECK_FALSE(attn->attn.causal);  // bidirectional: no KV cache
    CHECK(attn->attn.head_dim == 64);
  }
}

TEST_CASE("Idefics3's text model is the llama trace of text_config under model.text_model.") {
  const json config = golden_file("smolvlm2-500m-video-instruct.json").at("config");
  json text = config.at("text_config");
  text["tie_word_embeddings"] = false;
  const Model lm = trace_json(text);
  CHECK(lm.parameter_count() == text500);
  const Model m = trace_json(config);
  for (const auto& t : lm.tensors) {
    INFO(t.name);
    const std::string name = t.name.rfind("model.", 0) == 0 ? "model.text_model." + t.name.substr(6) : t.name;
    const Tensor* w = find(m, name);
    REQUIRE(w);
    CHECK(w->shape == t.shape);
  }
}

TEST_CASE("Idefics3 ties lm_head from the top-level tie_word_embeddings, as its tie_weights does") {
  json config = golden_file("smolvlm-256m-instruct.json").at("config");
  config["tie_word_embeddings"] = true;
  const Model m = trace_json(config);
  const Tensor* head = find(m, "lm_head.weight");
  REQUIRE(head);
  CHECK(head->tied_to == "model.text_model.embed_tokens.weight");
  CHECK(m.parameter_count() == vision + connector256 + text256 - 49280 * 576);
}

TEST_CASE("SmolVLM plans at images 0 and 1 in every mode") {
  const json config = golden_file("smolvlm2-500m-video-instruct.json").at("config");
  const Model m = trace_json(config);
  for (Mode mode : {Mode::full, Mode::serve}) {
    INFO(mode_name(mode));
    const MemoryPlan a = with_images(m, 0, mode), i1 = with_images(m, 1, mode);
    CHECK(i1.peak_bytes >= a.peak_bytes);
    if (mode == Mode::full) CHECK(i1.peak_bytes > a.peak_bytes);  // the image's activations
  }
  check_plans_in_every_mode(config, vision + connector500 + text500);
}

TEST_CASE("Idefics3 configs that cannot run are coded errors naming the field") {
  const json config = golden_file("smolvlm-256m-instruct.json").at("config");
  json bad = config;
  bad["scale_factor"] = 3;  // 32 patches per side do not fold by 3
  CHECK(path_of(bad) == "$.scale_factor");
  bad = config;
  bad["vision_config"]["num_attention_heads"] = 7;
  CHECK(path_of(bad) == "$.vision_config.num_attention_heads");
  bad = config;
  bad["vision_config"]["patch_size"] = 15;
  CHECK(path_of(bad) == "$.vision_config.patch_size");
  // No sub-configs: the class defaults (Idefics3VisionConfig: 1152 wide, 224 px, 32 px patches), whose
  // 7 × 7 patch grid pixel_shuffle cannot fold by the default scale_factor 2.
  CHECK(path_of({{"model_type", "idefics3"}}) == "$.scale_factor");
  // At 448 px the defaults run: 14 × 14 patches, the connector over LlamaConfig's 4096 width.
  const Model d = trace_json({{"model_type", "idefics3"}, {"vision_config", {{"image_size", 448}}}});
  CHECK(find(d, "model.vision_model.embeddings.position_embedding.weight")->shape == std::vector<int64_t>{196, 1152});
  CHECK(find(d, "model.connector.modality_projection.proj.weight")->shape == std::vector<int64_t>{4096, 1152 * 4});
  CHECK(find(d, "model.text_model.layers.31.mlp.down_proj.weight")->shape == std::vector<int64_t>{4096, 11008});
}
}  // namespace arch_idefics3_test

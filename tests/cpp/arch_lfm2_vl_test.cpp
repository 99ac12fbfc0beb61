// LFM2-VL (modeling_lfm2_vl.py Lfm2VlForConditionalGeneration, modeling_siglip2.py; LFM2-VL-450M,
// issue 10): the SigLIP2 NaFlex tower, the pixel-unshuffle projector and the lfm2 language model.
// The total by hand from the modules; the tower's and projector's tokens; the text part keeps its
// conv states per sequence; the optional head and layer norm; plans; coded errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/checks.hpp"
#include "plan/memory.hpp"
#include "plan/recurrent_state.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"
#include "vlm_test_util.hpp"

namespace arch_lfm2_vl_test {

using namespace cardfit;
using nlohmann::json;

namespace {
// Siglip2VisionModel of LFM2-VL-450M (SigLIP2 base NaFlex: hidden 768, 12 layers, intermediate 3072,
// patch 16, a 256-row position table, vision_use_head false).
constexpr int64_t VH = 768, VI = 3072;
constexpr int64_t vision_layer = 4 * (VH * VH + VH) + (VH * VI + VI) + (VI * VH + VH) + 2 * 2 * VH;
constexpr int64_t vision = (VH * 3 * 16 * 16 + VH) + 256 * VH + 12 * vision_layer + 2 * VH;
static_assert(vision == 85843200);  // the card's "SigLIP2 NaFlex base (86M)"
// Lfm2VlMultiModalProjector: layer_norm over 768 · 2², linear_1 → 2560, linear_2 → 1024, with biases.
constexpr int64_t PIN = VH * 4, projector = 2 * PIN + (2560 * PIN + 2560) + (1024 * 2560 + 1024);
static_assert(projector == 10495488);
// LFM2-350M: hidden 1024, vocab 65536 (lm_head tied), feed-forward 6656 auto-adjusted:
// int(2 · 6656 / 3) = 4437, rounded up to a multiple of 256 = 4608; 10 conv layers (in_proj [3H, H],
// depthwise conv [H, 1, 3], out_proj), 6 attention layers (q/out [H, H], k/v [512, H], q/k_layernorm [64]).
constexpr int64_t H = 1024, FF = 4608;
constexpr int64_t ffn = 3 * FF * H + 2 * H;  // w1, w3, w2 and the two layer norms
constexpr int64_t conv_layer = 3 * H * H + H * 3 + H * H + ffn;
constexpr int64_t attn_layer = 2 * H * H + 2 * 512 * H + 2 * 64 + ffn;
constexpr int64_t text = 65536 * H + 10 * conv_layer + 6 * attn_layer + H;
static_assert(conv_layer == 18355200 && attn_layer == 17303680);
static_assert(text == 354483968);
static_assert(vision + projector + text == 450822656);

}  // namespace

TEST_CASE("LFM2-VL-450M: exact total by hand, names as the checkpoint stores them") {
  const Model m = trace_golden("lfm2-vl-450m.json");
  CHECK(m.parameter_count() == vision + projector + text);
  CHECK(under(m, "model.vision_tower.vision_model.") == vision);
  CHECK(under(m, "model.multi_modal_projector.") == projector);
  CHECK(under(m, "model.language_model.") == text);
  CHECK(shape_errors(m).empty());
  CHECK(find(m, "model.vision_tower.vision_model.embeddings.patch_embedding.weight")->shape == std::vector<int64_t>{VH, 768});
  CHECK(find(m, "model.vision_tower.vision_model.embeddings.position_embedding.weight")->shape == std::vector<int64_t>{256, VH});
  CHECK(find(m, "model.vision_tower.vision_model.head.probe") == nullptr);  // vision_use_head false
  CHECK(find(m, "lm_head.weight")->tied_to == "model.language_model.embed_tokens.weight");
  CHECK(find(m, "model.language_model.layers.0.feed_forward.w1.weight")->shape == std::vector<int64_t>{FF, H});

  // The patch embedding is an nn.Linear (a LoRA target), not a convolution.
  const Node* patch = find_node(m, "model.vision_tower.vision_model.embeddings.patch_embedding");
  REQUIRE(patch);
  CHECK(patch->linear == LinearKind::module);
  CHECK(patch->lora);
  // One 512 px tile: 1024 patches through the tower, 256 tokens after the 2 × 2 unshuffle.
  for (const auto& b : m.blocks) {
    if (b.name == "model.vision_tower.vision_model.encoder.layers.0") CHECK(b.tokens_per_image == 1024);
    if (b.name == "model.multi_modal_projector") {
      CHECK(b.tokens_per_image == 256);
      CHECK(b.width == PIN);
    }
  }
  // Serving state: the language model's 10 conv layers keep [H, 3] each per sequence (bf16), the
  // 6 attention layers a KV cache; the tower's attention is bidirectional and caches nothing.
  CHECK(recurrent_state_bytes(m, 2) == int64_t(10) * H * 3 * 2);
  const MemoryPlan p = plan_memory(m, Options{}, Mode::serve, 1, 4096, {});
  CHECK(component(p, "kv_cache") == int64_t(6) * 4096 * 8 * 64 * 2 * 2);
}

TEST_CASE("LFM2-VL's optional parts: the pooling head, the projector layer norm, the tie") {
  const json config = golden_file("lfm2-vl-450m.json").at("config");
  json c = config;
  c["vision_config"].erase("vision_use_head");  // Siglip2VisionConfig has no such attribute: head built
  const Model with_head = trace_json(c);
  // SiglipMultiheadAttentionPoolingHead: probe [1, 1, H], in_proj [3H, H] + bias, out_proj, layernorm, mlp.
  constexpr int64_t head = VH + (3 * VH * VH + 3 * VH) + (VH * VH + VH) + 2 * VH + (VH * VI + VI) + (VI * VH + VH);
  CHECK(with_head.parameter_count() == vision + projector + text + head);
  c = config;
  c["projector_use_layernorm"] = false;
  CHECK(trace_json(c).parameter_count() == vision + projector + text - 2 * PIN);
  c = config;
  c["text_config"]["tie_embedding"] = false;
  const Model untied = trace_json(c);
  CHECK(untied.parameter_count() == vision + projector + text + 65536 * H);
  CHECK(find(untied, "lm_head.weight")->tied_to.empty());
}

TEST_CASE("LFM2-VL plans in every mode, images add the tower's activations") {
  const json config = golden_file("lfm2-vl-450m.json").at("config");
  const Model m = trace_json(config);
  CHECK(with_images(m, 1, Mode::full).peak_bytes > with_images(m, 0, Mode::full).peak_bytes);
  check_plans_in_every_mode(config, vision + projector + text);
}

namespace {
// LFM2.5-VL-1.6B (model_type "lfm2_vl", transformers' spelling): SigLIP2 NaFlex so400m (hidden 1152,
// intermediate 4304, 27 layers, no head), a projector without its layer norm (2048 wide) and LFM2-1.2B.
constexpr int64_t VH2 = 1152, VI2 = 4304;
constexpr int64_t vision_layer2 = 4 * (VH2 * VH2 + VH2) + (VH2 * VI2 + VI2) + (VI2 * VH2 + VH2) + 2 * 2 * VH2;
constexpr int64_t vision2 = (VH2 * 3 * 16 * 16 + VH2) + 256 * VH2 + 27 * vision_layer2 + 2 * VH2;
static_assert(vision_layer2 == 15239504 && vision2 == 412649712);
constexpr int64_t PIN2 = VH2 * 4, projector2 = (2048 * PIN2 + 2048) + (2048 * 2048 + 2048);
static_assert(projector2 == 13635584);
// LFM2-1.2B: hidden 2048, 32 heads of 64, 8 KV heads, feed-forward int(2 · 12288 / 3) = 8192 (already a
// multiple of 256), 10 conv and 6 attention layers, embed_tokens tied.
constexpr int64_t H2 = 2048, FF2 = 8192;
constexpr int64_t ffn2 = 3 * FF2 * H2 + 2 * H2;
constexpr int64_t text2 = 65536 * H2 + 10 * (3 * H2 * H2 + H2 * 3 + H2 * H2 + ffn2) +
                          6 * (2 * H2 * H2 + 2 * 512 * H2 + 2 * 64 + ffn2) + H2;
static_assert(text2 == 1170340608);
static_assert(vision2 + projector2 + text2 == 1596625904);  // the hub's safetensors total
}  // namespace

TEST_CASE("LFM2.5-VL-1.6B: transformers' spelling lfm2_vl, exact total by hand") {
  const Model m = trace_golden("lfm2.5-vl-1.6b.json");
  CHECK(m.parameter_count() == vision2 + projector2 + text2);
  CHECK(under(m, "model.vision_tower.vision_model.") == vision2);
  CHECK(under(m, "model.multi_modal_projector.") == projector2);
  CHECK(find(m, "model.multi_modal_projector.layer_norm.weight") == nullptr);
  CHECK(find(m, "model.language_model.layers.0.feed_forward.w1.weight")->shape == std::vector<int64_t>{FF2, H2});
  // Both spellings name one architecture: the 450M config under either traces alike.
  json c = golden_file("lfm2-vl-450m.json").at("config");
  c["model_type"] = "lfm2_vl";
  CHECK(trace_json(c).parameter_count() == vision + projector + text);
  // Lfm2VlConfig takes any text config: over LFM2-8B-A1B (lfm2_moe, hidden 2048) only linear_2 widens.
  c["text_config"] = golden_file("lfm2-8b-a1b.json").at("config");
  const Model moe = trace_json(c);
  CHECK(moe.parameter_count() == vision + projector + 1024 * 2560 + 1024 + 8339929856);
  CHECK(moe.buffer_count() == 22 * 32);
}

TEST_CASE("LFM2-VL configs that cannot run are coded errors naming the field") {
  const json config = golden_file("lfm2-vl-450m.json").at("config");
  json bad = config;
  bad["downsample_factor"] = 3;  // 32 patches per tile side
  CHECK(path_of(bad) == "$.downsample_factor");
  bad = config;
  bad["vision_config"]["num_patches"] = 200;
  CHECK(path_of(bad) == "$.vision_config.num_patches");
  bad = config;
  bad["vision_config"]["model_type"] = "clip_vision_model";
  CHECK(path_of(bad) == "$.vision_config.model_type");
  bad = config;
  bad["tile_size"] = 500;
  CHECK(path_of(bad) == "$.tile_size");
}
}  // namespace arch_lfm2_vl_test

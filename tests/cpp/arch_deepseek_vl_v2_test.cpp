// DeepSeek-VL2 (remote code deepseek-ai/DeepSeek-VL2 DeepseekVLV2ForCausalLM; deepseek-ai/deepseek-vl2,
// issue 10): the timm SigLIP-SO400M tower with its stored-but-unused attention pool, the
// downsample_mlp_gelu projector, the tile separators and the DeepSeek-V2 MoE language model. The total
// by hand; tokens; the pool costs nothing; the untraced variants are coded errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/checks.hpp"
#include "plan/memory.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"
#include "vlm_test_util.hpp"

namespace arch_deepseek_vl_v2_test {

using namespace cardfit;
using nlohmann::json;

namespace {
constexpr int64_t W = 1152, M = 4304;  // int(1152 · 3.7362)
constexpr int64_t block = 2 * W + (3 * W * W + 3 * W) + (W * W + W) + 2 * W + (M * W + M) + (W * M + W);
constexpr int64_t pool = W + (W * W + W) + (2 * W * W + 2 * W) + (W * W + W) + 2 * W + (M * W + M) + (W * M + W);
constexpr int64_t vision = (W * 3 * 14 * 14 + W) + 729 * W + 27 * block + 2 * W + pool;
static_assert(block == 15239504 && pool == 15238352);
static_assert(vision == 428225600);
constexpr int64_t H = 2560;
constexpr int64_t projector = (H * 4 * W + H) + (H * H + H) + 2 * H;  // layers.0, layers.2, image_newline, view_seperator
// DeepseekV2ForCausalLM: 30 layers (the remote default), MLA without q_lora (q_proj [32 · 192, H]),
// kv_a_proj_with_mqa [512 + 64, H], kv_a_layernorm, kv_b_proj [32 · 256, 512], o_proj [H, 32 · 128].
constexpr int64_t attn = 6144 * H + 576 * H + 512 + 8192 * 512 + H * 4096;
constexpr int64_t dense = attn + 2 * H + 3 * H * 12288;
constexpr int64_t moe = attn + 2 * H + 72 * H + 72 + 72 * 3 * H * 1536 + 3 * H * 3072;
constexpr int64_t language = 2 * 129280 * H + dense + 29 * moe + H;
static_assert(language == 27033548328);
static_assert(vision + projector + language == 27480134248);  // the hub's "27.5B"

}  // namespace

TEST_CASE("DeepSeek-VL2: exact total by hand, names as the checkpoint stores them") {
  const Model m = trace_golden("deepseek-vl2.json");
  CHECK(m.parameter_count() == vision + projector + language);
  CHECK(under(m, "vision.") == vision);
  CHECK(under(m, "vision.attn_pool.") == pool);
  CHECK(under(m, "language.") == language);
  CHECK(shape_errors(m).empty());
  CHECK(m.dims.hidden == H);
  CHECK(m.dims.experts == 72);
  CHECK(find(m, "language.lm_head.weight")->tied_to.empty());
  for (const auto& b : m.blocks) {
    if (b.name == "vision.blocks.0") CHECK(b.tokens_per_image == 729);
    if (b.name == "vision.attn_pool") CHECK(b.tokens_per_image == 0);  // built, never run
    if (b.name == "projector") {
      CHECK(b.tokens_per_image == 196);  // 27 × 27 padded to 28 × 28, 2 × 2 unfolded
      CHECK(b.width == 4 * W);
    }
  }
}

TEST_CASE("DeepSeek-VL2: the attention pool adds parameters, not compute") {
  const json config = golden_file("deepseek-vl2.json").at("config");
  json no_pool = config;
  no_pool["vision_config"]["global_pool"] = "";
  const Model a = trace_json(config), b = trace_json(no_pool);
  CHECK(a.parameter_count() - b.parameter_count() == pool);
  for (Mode mode : {Mode::full, Mode::serve}) {
    INFO(mode_name(mode));
    const MemoryPlan pa = with_images(a, 1, mode, 1024), pb = with_images(b, 1, mode, 1024);
    // The pool's weights differ (a whole number of bytes per parameter); nothing it would compute does.
    const int64_t dw = component(pa, "weights") - component(pb, "weights");
    CHECK(dw > 0);
    CHECK(dw % pool == 0);
    if (mode == Mode::serve) CHECK(pa.peak_bytes - pb.peak_bytes == dw);
    else CHECK(pa.peak_bytes > pb.peak_bytes);
  }
  check_plans_in_every_mode(config, vision + projector + language);
}

TEST_CASE("deepseek_vl_v2 variants cardfit does not trace are coded errors naming the field") {
  const json config = golden_file("deepseek-vl2.json").at("config");
  json bad = config;
  bad["architectures"] = json::array({"DeepseekOCRForCausalLM"});  // DeepSeek-OCR's SAM + CLIP tower
  CHECK(path_of(bad) == "$.architectures");
  bad = config;
  bad["language_config"]["use_mla"] = false;  // DeepSeek-VL2-Tiny
  CHECK(path_of(bad) == "$.language_config.use_mla");
  bad = config;
  bad["projector_config"]["projector_type"] = "identity";
  CHECK(path_of(bad) == "$.projector_config.projector_type");
  bad = config;
  bad["projector_config"]["n_embed"] = 2048;
  CHECK(path_of(bad) == "$.projector_config.n_embed");
}
}  // namespace arch_deepseek_vl_v2_test

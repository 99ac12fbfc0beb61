// Tier 2 vision-language types not traced yet (issue 10): deepseek_vl_v2 (DeepSeek-VL2's timm SigLIP
// tower with its attention pool and tile separators over DeepSeek-V2 MoE, and DeepSeek-OCR's SAM + CLIP
// tower under the same model_type) and qwen3_omni_moe (thinker, talker, code2wav). Both stay refused
// with a coded error naming their sub-configs, never planned as a dense decoder.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "test_util.hpp"

using namespace cardfit;
using nlohmann::json;

namespace {
Error refusal(const json& config) {
  try {
    trace_json(config);
  } catch (const Error& e) {
    return e;
  }
  return Error(ErrorCode::internal, "traced");
}
}  // namespace

TEST_CASE("deepseek_vl_v2 and qwen3_omni_moe are refused with a coded error naming the structure") {
  // DeepSeek-VL2's layout (deepseek-ai/DeepSeek-VL2 modeling_deepseek_vl_v2.py): language_config,
  // vision_config (timm siglip_so400m_patch14_384), projector_config; no decoder keys at the top.
  const json vl2 = {{"model_type", "deepseek_vl_v2"},
                    {"architectures", json::array({"DeepseekVLV2ForCausalLM"})},
                    {"language_config", {{"model_type", "deepseek_v2"}, {"hidden_size", 1280}, {"n_routed_experts", 64}}},
                    {"vision_config", {{"model_name", "siglip_so400m_patch14_384"}, {"width", 1152}, {"layers", 27}}},
                    {"projector_config", {{"projector_type", "downsample_mlp_gelu"}, {"input_dim", 1152}}}};
  const Error a = refusal(vl2);
  CHECK(a.code == ErrorCode::model_type_unknown);
  // DeepSeek-OCR repeats its language keys at the top level beside the towers: still refused, naming them.
  json ocr = vl2;
  ocr["architectures"] = json::array({"DeepseekOCRForCausalLM"});
  const json language_keys = {{"vocab_size", 129280}, {"hidden_size", 1280}, {"intermediate_size", 6848},
                              {"num_hidden_layers", 12}, {"num_attention_heads", 10}, {"n_routed_experts", 64}};
  for (const auto& [k, v] : language_keys.items()) ocr[k] = v;
  const Error b = refusal(ocr);
  CHECK(b.code == ErrorCode::model_type_unknown);
  CHECK(std::string(b.what()).find("vision_config") != std::string::npos);
  // Qwen3-Omni-MoE: thinker_config (audio, vision, MoE text), talker_config, code2wav_config.
  const json omni = {{"model_type", "qwen3_omni_moe"},
                     {"thinker_config", {{"text_config", {{"hidden_size", 2048}}}, {"vision_config", {{"depth", 27}}}}},
                     {"talker_config", {{"text_config", {{"hidden_size", 1024}}}}},
                     {"code2wav_config", {{"hidden_size", 1024}}}};
  CHECK(refusal(omni).code == ErrorCode::model_type_unknown);
}

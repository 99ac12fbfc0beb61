// Tier 2 vision-language types not traced yet (issue 10): qwen3_omni_moe (thinker, talker, code2wav).
// It stays refused with a coded error, never planned as a dense decoder. (deepseek_vl_v2's untraced
// variants are refused in arch_deepseek_vl_v2_test.cpp.)
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

TEST_CASE("qwen3_omni_moe is refused with a coded error") {
  // Qwen3-Omni-MoE: thinker_config (audio, vision, MoE text), talker_config, code2wav_config.
  const json omni = {{"model_type", "qwen3_omni_moe"},
                     {"thinker_config", {{"text_config", {{"hidden_size", 2048}}}, {"vision_config", {{"depth", 27}}}}},
                     {"talker_config", {{"text_config", {{"hidden_size", 1024}}}}},
                     {"code2wav_config", {{"hidden_size", 1024}}}};
  CHECK(refusal(omni).code == ErrorCode::model_type_unknown);
  // With the decoder keys copied to the top level it is still refused, naming the sub-configs.
  json flat = omni;
  const json keys = {{"vocab_size", 151936}, {"hidden_size", 2048}, {"intermediate_size", 6144},
                     {"num_hidden_layers", 48}, {"num_attention_heads", 32}, {"vision_config", {{"depth", 27}}}};
  for (const auto& [k, v] : keys.items()) flat[k] = v;
  const Error e = refusal(flat);
  CHECK(e.code == ErrorCode::model_type_unknown);
  CHECK(std::string(e.what()).find("vision_config") != std::string::npos);
}

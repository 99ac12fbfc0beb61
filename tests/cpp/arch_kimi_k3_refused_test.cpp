// kimi_k3 (issue 10 Tier 2) stays refused. transformers has only src/transformers/models/kimi_k3/
// modular_kimi_k3.py (both stored versions, e6ffd134 and aa83b548, read 2026-12-01 and 2026-12-05):
// it imports KimiK3TextConfig from a configuration_kimi_k3.py that does not exist, ends at
// KimiK3PreTrainedModel (whose parent
// Kimi_K25PreTrainedModel it never imports) and defines no KimiK3Model or *ForCausalLM /
// *ForConditionalGeneration. So the config keys the modules read (linear_attn_key_heads, ...,
// routed_expert_hidden_size, attn_res_block_size) cannot be mapped from the published config's
// (linear_attn_config, num_experts, num_shared_experts, ...), and the embedding, the final norm, the
// head, the vision tower and the checkpoint prefixes are not defined anywhere: nothing can be traced
// exactly. The configs below follow the shape public runtimes' K3 fixtures give (a text_config of
// model_type "kimi_linear"); their sizes are illustrative, the refusal does not depend on them.
#include <catch2/catch.hpp>

#include "arch/registry.hpp"
#include "plan_test_util.hpp"

using namespace cardfit;
using nlohmann::json;

namespace {
json k3_text() {
  return {{"model_type", "kimi_linear"}, {"vocab_size", 163840}, {"hidden_size", 7168},
          {"intermediate_size", 18432}, {"num_hidden_layers", 93}, {"num_attention_heads", 64},
          {"first_k_dense_replace", 1}, {"num_experts", 896}, {"num_experts_per_token", 16},
          {"num_shared_experts", 2}, {"moe_intermediate_size", 3072}, {"routed_expert_hidden_size", 3072},
          {"attn_res_block_size", 12}, {"q_lora_rank", 1536}, {"kv_lora_rank", 512},
          {"linear_attn_config", {{"num_heads", 64}, {"head_dim", 128}, {"short_conv_kernel_size", 4},
                                  {"kda_layers", {1, 2, 3}}, {"full_attn_layers", {4}}}}};
}
}  // namespace

TEST_CASE("kimi_k3 has no family and is refused with a coded error naming its keys") {
  for (const auto& f : family_registry()) CHECK(std::string(f.model_type) != "kimi_k3");
  const json k3 = {{"model_type", "kimi_k3"}, {"architectures", {"KimiK3ForConditionalGeneration"}},
                   {"text_config", k3_text()}};
  const Error wrapped = refusal(k3);
  CHECK(wrapped.code == ErrorCode::model_type_unknown);
  CHECK(wrapped.path == "$.text_config");
  // The text_config alone: its experts and linear-attention layers are named, never a dense decoder.
  const Error text = refusal(k3_text());
  CHECK(text.code == ErrorCode::model_type_unknown);
  const std::string why = text.what();
  CHECK(why.find("num_experts") != std::string::npos);
  CHECK(why.find("linear_attn_config") != std::string::npos);
  CHECK(why.find("moe_intermediate_size") != std::string::npos);
  // Flattened under model_type kimi_k3, with every standard decoder key present: still refused.
  json flat = k3_text();
  flat["model_type"] = "kimi_k3";
  const Error f = refusal(flat);
  CHECK(f.code == ErrorCode::model_type_unknown);
  CHECK(f.path == "$.linear_attn_config");
  const json r = plan(flat.dump());
  CHECK(r.at("ok") == false);
  CHECK(r["error"]["code"] == "config.model_type_unknown");
}

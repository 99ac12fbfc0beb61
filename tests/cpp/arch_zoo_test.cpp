// The 2026 decoders (issue 10): the generic fallback's refusal of structure it does not model,
// gpt-oss's sinks / windows / biased experts, and the gated delta net's per-sequence serving state
// computed by hand from the modeling code.
#include <catch2/catch.hpp>

#include "arch/registry.hpp"
#include "config.hpp"
#include "error.hpp"
#include "plan/memory.hpp"
#include "plan/recurrent_state.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"

namespace arch_zoo_test {

using namespace cardfit;
using nlohmann::json;

namespace {
// A config with the standard decoder keys (what the generic fallback needs) plus `extra`.
json dense_keys(const std::string& type) {
  return {{"model_type", type}, {"vocab_size", 1000}, {"hidden_size", 256}, {"num_hidden_layers", 2},
          {"num_attention_heads", 4}, {"intermediate_size", 512}};
}

}  // namespace

TEST_CASE("the generic fallback refuses an unknown config with experts, naming the keys") {
  // gpt-oss-20b under an unknown model_type: before this refusal it was traced as a 2.39 B dense
  // decoder; the real model has 20.9 B parameters.
  json c = golden_file("gpt-oss-20b.json").at("config");
  c["model_type"] = "gpt_oss_next";
  const Error e = refusal(c);
  CHECK(e.code == ErrorCode::model_type_unknown);
  CHECK(e.path == "$.experts_per_token");  // the first such key in the config's (sorted) order
  CHECK(std::string(e.what()).find("num_local_experts") != std::string::npos);
  CHECK(std::string(e.what()).find("num_experts_per_tok") != std::string::npos);

  for (const char* key : {"num_experts", "n_routed_experts", "moe_intermediate_size"}) {
    json d = dense_keys("mystery");
    d[key] = 64;
    const Error k = refusal(d);
    CHECK(k.path == std::string("$.") + key);
    CHECK(std::string(k.what()).find(key) != std::string::npos);
  }
}

TEST_CASE("the generic fallback refuses linear-attention, SSM, unknown layer types and sub-configs") {
  json lin = dense_keys("mystery");
  lin["linear_num_value_heads"] = 32;
  CHECK(refusal(lin).path == "$.linear_num_value_heads");

  json ssm = dense_keys("mystery");
  ssm["mamba_d_state"] = 128;
  CHECK(refusal(ssm).path == "$.mamba_d_state");

  json types = dense_keys("mystery");
  types["layer_types"] = {"full_attention", "linear_attention"};
  const Error t = refusal(types);
  CHECK(t.path == "$.layer_types");
  CHECK(std::string(t.what()).find("\"linear_attention\"") != std::string::npos);

  // The real Qwen3.5 top-level config nests its text model and a vision tower: refused, not planned
  // as a decoder made of whatever keys happen to sit at the top.
  json nested = dense_keys("mystery");
  nested["text_config"] = {{"hidden_size", 4096}};
  nested["vision_config"] = {{"depth", 27}};
  const Error n = refusal(nested);
  CHECK(std::string(n.what()).find("text_config") != std::string::npos);
  CHECK(std::string(n.what()).find("vision_config") != std::string::npos);
  CHECK(std::string(n.what()).find("paste the text_config alone") == std::string::npos);
  // A wrapper cardfit does not trace (an unknown type here) whose language model is traced: the refusal
  // says how to plan it. (qwen3_5 and qwen3_omni_moe are traced now: arch_wrappers_test.cpp,
  // arch_qwen3_omni_moe_test.cpp.)
  nested["model_type"] = "mystery_omni";
  nested["text_config"]["model_type"] = "qwen3_5_text";
  CHECK(std::string(refusal(nested).what()).find("paste the text_config alone") != std::string::npos);
}

TEST_CASE("the generic fallback still traces a plain dense config, and ignores keys that say nothing") {
  json d = dense_keys("my-llama");
  d["num_experts"] = 0;               // a dense model's explicit "no experts"
  d["n_routed_experts"] = nullptr;
  d["layer_types"] = {"full_attention", "sliding_attention"};
  d["sliding_window"] = 128;
  const Model m = trace_json(d);
  CHECK(m.approximate);
  CHECK(m.family == "generic_decoder");
}

TEST_CASE("gpt-oss: sinks on every attention node, alternating windows, biased experts outside LoRA") {
  const Model m = trace_golden("gpt-oss-20b.json");
  const auto attn = attention_nodes(m);
  REQUIRE(attn.size() == 24);
  CHECK(attn[0]->attn.window == 128);
  CHECK(attn[1]->attn.window == 0);
  CHECK(attn[0]->attn.sinks);
  CHECK(attn[0]->params == 64);  // the sink logits, one per head
  const Tensor* gate_up = find(m, "model.layers.0.mlp.experts.gate_up_proj");
  REQUIRE(gate_up);
  CHECK_FALSE(gate_up->linear);  // a bare parameter: PEFT's LoRA does not target it
  CHECK(find(m, "model.layers.0.self_attn.o_proj.bias"));
  CHECK(m.dims.experts == 32);
  CHECK(m.dims.experts_per_token == 4);
}

TEST_CASE("Qwen3.5 text: per-sequence serving state of the gated delta net, by hand from the modeling code") {
  const Model m = trace_golden("qwen3.5-9b-text.json");
  // Qwen3_5GatedDeltaNet with linear_num_key_heads 16, linear_num_value_heads 32, head dims 128,
  // linear_conv_kernel_dim 4: key_dim = 16 * 128 = 2048, value_dim = 32 * 128 = 4096,
  // conv_dim = 2 * 2048 + 4096 = 8192.
  //   conv state   [conv_dim, kernel] = 8192 * 4 = 32,768 elements, bf16 (the layer's input dtype)
  //                = 65,536 bytes;
  //   recurrent    [value_heads, k_dim, v_dim] = 32 * 128 * 128 = 524,288 elements, fp32 (the
  //                kernels' final state) = 2,097,152 bytes;
  //   per layer    2,162,688 bytes; 24 linear-attention layers (3 of each 4) = 51,904,512 bytes.
  CHECK(recurrent_state_bytes(m, 2) == int64_t(51'904'512));
  // fp32 activations: the conv state doubles, the recurrent state is fp32 already.
  CHECK(recurrent_state_bytes(m, 4) == int64_t(24) * (8192 * 4 * 4 + 524'288 * 4));

  // Served: the state is per sequence and independent of the context; the 8 full-attention layers
  // (4 KV heads of 256) hold a KV cache that grows with it.
  const MemoryPlan a = plan_memory(m, Options{}, Mode::serve, 1, 1024, {});
  const MemoryPlan b = plan_memory(m, Options{}, Mode::serve, 2, 4096, {});
  CHECK(component(a, "ssm_state") == 51'904'512);
  CHECK(component(b, "ssm_state") == 2 * 51'904'512);
  CHECK(component(a, "kv_cache") == int64_t(8) * 4 * 256 * 2 * 2 * 1024);
  // The gated attention's q_proj makes query and gate: [2 * 16 * 256, 4096].
  const Tensor* q = find(m, "model.layers.3.self_attn.q_proj.weight");
  REQUIRE(q);
  CHECK(q->shape == Shape{8192, 4096});
}

TEST_CASE("Qwen3-Next: fused delta-net projections and a gated shared expert") {
  const Model m = trace_golden("qwen3-coder-next.json");
  // 36 linear layers × (conv 8192 × 4 × 2 bytes + 32 × 128 × 128 × 4 bytes) = 36 × 2,162,688.
  CHECK(recurrent_state_bytes(m, 2) == int64_t(36) * 2'162'688);
  CHECK(find(m, "model.layers.0.linear_attn.in_proj_qkvz.weight")->shape == Shape{12288, 2048});
  CHECK(find(m, "model.layers.5.mlp.shared_expert_gate.weight")->shape == Shape{1, 2048});
}

TEST_CASE("layer_types with a value the family does not know is a coded error naming the key") {
  json c = golden_file("gpt-oss-20b.json").at("config");
  c["layer_types"][3] = "linear_attention";
  const Error e = refusal(c);
  CHECK(e.code == ErrorCode::field_inconsistent);
  CHECK(e.path == "$.layer_types");
  c = golden_file("gpt-oss-20b.json").at("config");
  c["layer_types"].erase(c["layer_types"].begin());
  CHECK(refusal(c).path == "$.layer_types");
}

TEST_CASE("Nemotron-H: per-sequence Mamba-2 state, by hand from the modeling code") {
  const Model m = trace_golden("nemotron-h-8b-base-8k.json");
  // NemotronHMamba2Mixer with mamba_num_heads 128, mamba_head_dim 64 (inner 8192), n_groups 8,
  // ssm_state_size 128, conv_kernel 4: conv_dim = 8192 + 2 * 8 * 128 = 10,240.
  //   conv state [conv_dim, kernel] = 40,960 elements, bf16 = 81,920 bytes;
  //   SSM state  [heads, head_dim, state] = 128 * 64 * 128 = 1,048,576 elements, fp32
  //              (mamba_ssm_cache_dtype "float32") = 4,194,304 bytes;
  //   per layer  4,276,224 bytes; 24 Mamba blocks ('M' in the pattern) = 102,629,376 bytes.
  CHECK(recurrent_state_bytes(m, 2) == int64_t(102'629'376));
  const MemoryPlan a = plan_memory(m, Options{}, Mode::serve, 1, 2048, {});
  CHECK(component(a, "ssm_state") == 102'629'376);
  // The 4 attention blocks (8 KV heads of 128) are the only KV cache.
  CHECK(component(a, "kv_cache") == int64_t(4) * 8 * 128 * 2 * 2 * 2048);
  CHECK(attention_nodes(m).size() == 4);

  json c = golden_file("nemotron-h-8b-base-8k.json").at("config");
  c["hybrid_override_pattern"] = "M-X";
  CHECK(refusal(c).path == "$.hybrid_override_pattern");
}

TEST_CASE("Gemma 4 E2B text: layers sharing KV hold no cache, per-layer embeddings are counted") {
  const Model m = trace_golden("gemma-4-e2b-text.json");
  // Layers 0-14 compute their own K/V: 12 sliding layers (1 KV head of 256, window 512) and 3 full
  // layers (4, 9, 14: 1 KV head of global_head_dim 512). Layers 15-34 read layer 13's / 14's cache.
  // At 4096 tokens in bf16: 3 × 4096 × (512 + 512) × 2 + 12 × 512 × (256 + 256) × 2 = 31,457,280.
  const MemoryPlan a = plan_memory(m, Options{}, Mode::serve, 1, 4096, {});
  CHECK(component(a, "kv_cache") == int64_t(3) * 4096 * 1024 * 2 + int64_t(12) * 512 * 512 * 2);
  CHECK_FALSE(find(m, "model.layers.15.self_attn.k_proj.weight"));
  CHECK(find(m, "model.layers.14.self_attn.k_proj.weight"));
  CHECK(find(m, "model.embed_tokens_per_layer.weight")->shape == Shape{262144, 35 * 256});

  json c = golden_file("gemma-4-e2b-text.json").at("config");
  c["enable_moe_block"] = true;  // traced since issue 10 (gemma4_moe.hpp); the expert sizes it needs are absent
  CHECK(refusal(c).path == "$.num_experts");
}

TEST_CASE("EXAONE 4, Llama 4 and Qwen3.5-MoE text: per-layer windows and stored expert layouts") {
  // EXAONE-4.0-32B: sliding_window_pattern 4, so layers 3, 7, ... are global; "LLG" repeats.
  const Model ex = trace_golden("exaone-4.0-32b.json");
  auto a = attention_nodes(ex);
  REQUIRE(a.size() == 64);
  CHECK(a[0]->attn.window == 4096);
  CHECK(a[3]->attn.window == 0);
  json c = golden_file("exaone-4.0-32b.json").at("config");
  c["sliding_window_pattern"] = "LLG";
  const Model llg = trace_json(c);
  a = attention_nodes(llg);
  CHECK(a[1]->attn.window == 4096);
  CHECK(a[2]->attn.window == 0);
  c["sliding_window_pattern"] = "LXG";
  CHECK(refusal(c).path == "$.sliding_window_pattern");

  // Llama 4 Scout: RoPE layers attend in chunks of 8192; every 4th layer (NoPE) sees the whole context.
  const Model l4 = trace_golden("llama-4-scout-17b-16e-text.json");
  a = attention_nodes(l4);
  CHECK(a[0]->attn.window == 8192);
  CHECK(a[3]->attn.window == 0);
  CHECK_FALSE(find(l4, "model.layers.0.feed_forward.experts.gate_up_proj")->linear);

  // Qwen3.5-35B-A3B: experts stored fused, not LoRA targets; the shared expert's MLP is.
  const Model q = trace_golden("qwen3.5-35b-a3b-text.json");
  CHECK_FALSE(find(q, "model.layers.0.mlp.experts.down_proj")->linear);
  CHECK(find(q, "model.layers.0.mlp.shared_expert.up_proj.weight")->linear);
  CHECK(q.dims.experts == 256);
}
}  // namespace arch_zoo_test

// Structure the golden totals do not pin for the modern decoder families (Mixtral, Qwen2-MoE,
// Qwen3/Qwen3-MoE, Granite/Granite-MoE, InternLM/InternLM2, EXAONE, OLMo/OLMo 2, Cohere, StableLM,
// StarCoder2, Phi, Phi-3, Nemotron, Baichuan, Qwen) — the shape walk and parameter ownership of
// every golden model are in golden_test.cpp: MoE layers follow the sparse-step switches, sliding windows land on the right
// layers, fused experts are not LoRA targets, and the q/k norm layouts match the checkpoints.
#include <catch2/catch.hpp>

#include <algorithm>

#include "arch/registry.hpp"
#include "config.hpp"
#include "error.hpp"
#include "plan/checks.hpp"
#include "test_util.hpp"

namespace arch_decoder_test {

using namespace cardfit;
using nlohmann::json;

namespace {

std::vector<int64_t> windows(const Model& m) {
  std::vector<int64_t> out;
  for (const auto& b : m.blocks)
    for (const auto& n : b.nodes)
      if (n.op == Op::attention) out.push_back(n.attn.window);
  return out;
}


// A small Qwen-MoE-shaped config for the switches.
json small_moe(const std::string& type) {
  return {{"model_type", type}, {"vocab_size", 64}, {"hidden_size", 16}, {"intermediate_size", 32},
          {"num_hidden_layers", 4}, {"num_attention_heads", 4}, {"num_key_value_heads", 2},
          {"num_experts", 4}, {"num_experts_per_tok", 2}, {"moe_intermediate_size", 8},
          {"shared_expert_intermediate_size", 24}};
}
}  // namespace

TEST_CASE("MoE layers follow decoder_sparse_step and mlp_only_layers, dense layers keep intermediate_size") {
  for (const std::string type : {"qwen2_moe", "qwen3_moe"}) {
    INFO(type);
    json c = small_moe(type);
    c["decoder_sparse_step"] = 2;  // (i + 1) % 2 == 0: layers 1 and 3
    c["mlp_only_layers"] = {3};
    const Model m = trace_json(c);
    CHECK(find(m, "model.layers.0.mlp.gate_proj.weight")->shape == Shape{32, 16});
    CHECK(find(m, "model.layers.1.mlp.gate.weight")->shape == Shape{4, 16});
    CHECK(find(m, "model.layers.1.mlp.experts.3.down_proj.weight")->shape == Shape{16, 8});
    CHECK(find(m, "model.layers.2.mlp.gate.weight") == nullptr);
    CHECK(find(m, "model.layers.2.mlp.gate_proj.weight") != nullptr);
    CHECK(find(m, "model.layers.3.mlp.gate.weight") == nullptr);
    CHECK(find(m, "model.layers.3.mlp.up_proj.weight")->shape == Shape{32, 16});
    const Node* e = find_node(m, "model.layers.1.mlp.experts.*.up_proj");
    REQUIRE(e != nullptr);
    CHECK(e->experts == 4);
    CHECK(e->active == 2);
    // Only Qwen2-MoE has the always-on shared expert and its sigmoid gate.
    const bool shared = type == "qwen2_moe";
    CHECK((find(m, "model.layers.1.mlp.shared_expert.gate_proj.weight") != nullptr) == shared);
    CHECK((find(m, "model.layers.1.mlp.shared_expert_gate.weight") != nullptr) == shared);
  }
  // Qwen2-MoE's q/k/v bias follows qkv_bias (default true).
  json c = small_moe("qwen2_moe");
  CHECK(find(trace_json(c), "model.layers.0.self_attn.k_proj.bias") != nullptr);
  c["qkv_bias"] = false;
  CHECK(find(trace_json(c), "model.layers.0.self_attn.k_proj.bias") == nullptr);
}

TEST_CASE("sliding windows: Qwen3 from max_window_layers, Qwen3-MoE and Mixtral everywhere, off without use_sliding_window") {
  json c = small_moe("qwen3");
  c["sliding_window"] = 8;
  c["max_window_layers"] = 2;
  CHECK(windows(trace_json(c)) == std::vector<int64_t>{0, 0, 0, 0});
  CHECK(trace_json(c).dims.sliding_window == 0);
  c["use_sliding_window"] = true;
  CHECK(windows(trace_json(c)) == std::vector<int64_t>{0, 0, 8, 8});
  c["model_type"] = "qwen3_moe";
  CHECK(windows(trace_json(c)) == std::vector<int64_t>{8, 8, 8, 8});
  c["layer_types"] = {"full_attention", "sliding_attention", "full_attention", "sliding_attention"};
  CHECK(windows(trace_json(c)) == std::vector<int64_t>{0, 8, 0, 8});
  // Qwen3 without head_dim uses the config class default of 128, not hidden / heads.
  json q = small_moe("qwen3");
  CHECK(find(trace_json(q), "model.layers.0.self_attn.q_proj.weight")->shape == Shape{512, 16});
  // Starcoder2 and Phi-3 slide on every layer when sliding_window is set.
  for (const char* file : {"starcoder2-3b.json", "phi-3-mini-4k-instruct.json"}) {
    INFO(file);
    const int64_t w = golden_file(file).at("config").at("sliding_window").get<int64_t>();
    for (int64_t x : windows(trace_golden(file))) CHECK(x == w);
  }
}

TEST_CASE("Granite-MoE's stacked experts are bare parameters: no LoRA target, not quantized by QLoRA") {
  const Model m = trace_golden("granite-3.0-1b-a400m-base.json");
  const Tensor* t = find(m, "model.layers.0.block_sparse_moe.input_linear.weight");
  REQUIRE(t != nullptr);
  CHECK_FALSE(t->linear);
  CHECK(t->role == Role::expert);
  const Node* up = find_node(m, "model.layers.0.block_sparse_moe.input_linear.weight");
  REQUIRE(up != nullptr);
  CHECK_FALSE(up->lora);
  CHECK(up->experts == 32);
  CHECK(up->active == 8);
  CHECK(up->out == 1024);  // gate and up stacked: 2 * intermediate
  CHECK(m.dims.experts == 32);
  CHECK(m.dims.experts_per_token == 8);
  // The attention projections stay ordinary nn.Linear LoRA targets.
  CHECK(find(m, "model.layers.0.self_attn.q_proj.weight")->linear);
}

TEST_CASE("q/k norm layouts: Qwen3 per head, OLMo 2 over the projection, StableLM one module per head, Cohere [heads, head_dim]") {
  CHECK(find(trace_golden("qwen3-8b.json"), "model.layers.0.self_attn.k_norm.weight")->shape == Shape{128});
  CHECK(find(trace_golden("olmo-2-1124-7b.json"), "model.layers.0.self_attn.k_norm.weight")->shape == Shape{4096});
  const Model s = trace_golden("stablelm-2-12b.json");
  int q = 0, k = 0;
  for (const auto& t : s.tensors) {
    if (t.name.rfind("model.layers.0.self_attn.q_layernorm.norms.", 0) == 0) ++q;
    if (t.name.rfind("model.layers.0.self_attn.k_layernorm.norms.", 0) == 0) ++k;
  }
  CHECK(q == 32);
  CHECK(k == 8);
  CHECK(find(s, "model.layers.0.self_attn.q_layernorm.norms.0.bias") == nullptr);
  CHECK(find(s, "model.layers.0.post_attention_layernorm.weight") == nullptr);  // parallel residual
  const Model c = trace_golden("c4ai-command-r-plus.json");
  CHECK(find(c, "model.layers.0.self_attn.q_norm.weight")->shape == Shape{96, 128});
  CHECK(find(c, "model.layers.0.self_attn.k_norm.bias") == nullptr);
  CHECK(find(trace_golden("c4ai-command-r-v01.json"), "model.layers.0.self_attn.q_norm.weight") == nullptr);
}

TEST_CASE("norm layouts: OLMo's LayerNorms store nothing, OLMo 2 has no input norm, Cohere's have no bias") {
  const Model o = trace_golden("olmo-1b-hf.json");
  for (const auto& t : o.tensors) CHECK(t.name.find("layernorm") == std::string::npos);
  CHECK(find(o, "model.norm.weight") == nullptr);
  const Model o2 = trace_golden("olmo-2-1124-7b.json");
  CHECK(find(o2, "model.layers.0.input_layernorm.weight") == nullptr);
  CHECK(find(o2, "model.layers.0.post_feedforward_layernorm.weight") != nullptr);
  const Model c = trace_golden("c4ai-command-r-v01.json");
  CHECK(find(c, "model.layers.0.input_layernorm.bias") == nullptr);
  CHECK(find(c, "model.layers.0.post_attention_layernorm.weight") == nullptr);
  CHECK(find(c, "lm_head.weight")->tied_to == "model.embed_tokens.weight");  // CohereConfig ties by default
  const Model n = trace_golden("minitron-4b-base.json");
  CHECK(find(n, "model.layers.0.post_attention_layernorm.bias") != nullptr);  // LayerNorm1P keeps its bias
  CHECK(find(n, "model.layers.0.mlp.gate_proj.weight") == nullptr);           // ungated relu2 MLP
}

TEST_CASE("remote-code layouts: InternLM2 fuses GQA rows in wqkv, Qwen halves intermediate_size, Baichuan needs full heads") {
  const Model i2 = trace_golden("internlm2-7b.json");
  const Node* wqkv = find_node(i2, "model.layers.0.attention.wqkv");
  REQUIRE(wqkv != nullptr);
  CHECK(wqkv->out == (32 + 2 * 8) * 128);
  CHECK(find(i2, "output.weight") != nullptr);
  const Model q = trace_golden("qwen-7b.json");
  CHECK(q.dims.intermediate == 11008);
  CHECK(find(q, "transformer.h.0.attn.c_proj.bias") == nullptr);  // no_bias
  json c = golden_file("qwen-7b.json").at("config");
  c["no_bias"] = false;
  CHECK(find(trace_json(c), "transformer.h.0.mlp.w2.bias") != nullptr);
  c["intermediate_size"] = 22015;
  CHECK_THROWS_AS(trace_json(c), Error);
  json b = golden_file("baichuan2-7b-base.json").at("config");
  b["num_key_value_heads"] = 8;
  CHECK_THROWS_AS(trace_json(b), Error);
  // InternLM (v1) puts config.bias on q/k/v/o; turning it off drops all four.
  json il = golden_file("internlm-7b.json").at("config");
  il["bias"] = false;
  const Model m = trace_json(il);
  CHECK(find(m, "model.layers.0.self_attn.o_proj.bias") == nullptr);
  CHECK(m.parameter_count() == golden_file("internlm-7b.json").at("expected").at("total").get<int64_t>() - 32 * 4 * 4096);
}

TEST_CASE("MoE KV cache and active experts: Qwen3-30B-A3B caches 4 kv heads, runs 8 of 128 experts") {
  const Model m = trace_golden("qwen3-30b-a3b.json");
  const Node* a = find_node(m, "model.layers.0.self_attn.attn");
  REQUIRE(a != nullptr);
  CHECK(a->attn.cache_dim == 4 * (128 + 128));
  const Node* d = find_node(m, "model.layers.0.mlp.experts.*.down_proj");
  REQUIRE(d != nullptr);
  CHECK(d->experts == 128);
  CHECK(d->active == 8);
  CHECK(d->params == int64_t(128) * 768 * 2048);
  const Model x = trace_golden("mixtral-8x7b-v0.1.json");
  CHECK(find_node(x, "model.layers.0.block_sparse_moe.experts.*.w2")->active == 2);
}
}  // namespace arch_decoder_test

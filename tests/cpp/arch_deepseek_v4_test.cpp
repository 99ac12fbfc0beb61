// DeepSeek-V4 (issue 10): DeepSeek-V4-Flash traced from modeling_deepseek_v4.py. The total derived by
// hand from the modules' __init__; the hyper-connection edges; the serving state per sequence (the
// sliding K = V cache, the compressed entries, the compressors' buffers) by hand from DeepseekV4HCACache /
// DeepseekV4CSACache; the stored FP8 / FP4 extras; coded errors.
#include <catch2/catch.hpp>

#include "plan/checks.hpp"
#include "plan/recurrent_state.hpp"
#include "test_util.hpp"

using namespace cardfit;
using nlohmann::json;

namespace {
// DeepSeek-V4-Flash (config.json): hidden 4096, 43 layers, 64 heads of 512, q_lora_rank 1024, o_groups 8
// of o_lora_rank 1024, 256 experts of 2048 (top 6), hc_mult 4, indexer 64 heads of 128, vocab 129280.
constexpr int64_t H = 4096, V = 129280, HD = 512, NH = 64, QL = 1024, G = 8, OL = 1024, E = 256, I = 2048;
constexpr int64_t HC = 4, IH = 64, ID = 128;
constexpr int64_t mix = (2 + HC) * HC;                    // pre, post (hc each) and comb (hc × hc)
constexpr int64_t hyper = mix * HC * H + mix + 3;         // DeepseekV4HyperConnection fn, base, scale
// DeepseekV4Attention: q_a_proj, q_a_norm, q_b_proj, kv_proj, kv_norm, o_a_proj (grouped), o_b_proj, sinks.
constexpr int64_t attn = QL * H + QL + NH * HD * QL + HD * H + HD + G * OL * (NH * HD / G) + H * G * OL + NH;
constexpr int64_t hca = 2 * HD * H + 128 * HD + HD;              // compressor kv/gate, position_bias, kv_norm
constexpr int64_t csa = 2 * 2 * HD * H + 4 * 2 * HD + HD;        // two overlapping series
constexpr int64_t indexer = 2 * 2 * ID * H + 4 * 2 * ID + ID + IH * ID * QL + IH * H;
constexpr int64_t moe = E * H + E * 2 * I * H + E * H * I + 3 * I * H;  // router, experts, shared expert
constexpr int64_t layer = 2 * hyper + 2 * H + attn + moe;               // + attn_norm, ffn_norm
// compress_ratios: layers 0-1 sliding, 21 CSA (even 2-42), 20 HCA (odd 3-41); 3 hash layers without
// the router's correction bias, 40 with it.
constexpr int64_t total = 2 * V * H + H + (HC * HC * H + HC + 1) + 43 * layer + 21 * (csa + indexer) + 20 * hca + 40 * E;
static_assert(total == 284332240471);  // the model card's "284B total parameters"
}  // namespace

TEST_CASE("DeepSeek-V4-Flash: exact total by hand, checkpoint names, hash-routing tables") {
  const Model m = trace_golden("deepseek-v4-flash.json");
  CHECK(m.parameter_count() == total);
  CHECK(shape_errors(m).empty());
  CHECK(find(m, "layers.0.attn.compressor.wkv.weight") == nullptr);  // sliding only
  CHECK(find(m, "layers.3.attn.indexer.wq_b.weight") == nullptr);    // HCA: no indexer
  CHECK(find(m, "layers.2.attn.compressor.ape")->shape == Shape{4, 2 * HD});
  CHECK(find(m, "layers.3.attn.compressor.ape")->shape == Shape{128, HD});
  CHECK(find(m, "layers.2.ffn.gate.bias") == nullptr);  // hash layer
  CHECK(find(m, "layers.3.ffn.gate.bias")->shape == Shape{E});
  CHECK(m.buffer_count() == 3 * V * 6);  // tid2eid on the three hash_moe layers
  CHECK_FALSE(find(m, "layers.5.hc_attn_fn")->linear);  // a bare parameter, not an nn.Linear
  // Routed experts: stored one by one, held by DeepseekV4Experts as stacked bare parameters (no LoRA,
  // no bitsandbytes); the shared expert is nn.Linear.
  CHECK_FALSE(find(m, "layers.5.ffn.experts.17.w1.weight")->linear);
  CHECK(find(m, "layers.5.ffn.shared_experts.w1.weight")->linear);
  const Node* routed = find_node(m, "layers.5.ffn.experts.*.w1");
  REQUIRE(routed);
  CHECK(routed->experts == E);
  CHECK(routed->active == 6);
  CHECK(routed->linear == LinearKind::parameter);
  CHECK_FALSE(routed->lora);
  CHECK(find_node(m, "layers.5.hc_attn")->linear == LinearKind::parameter);
  CHECK(find_node(m, "layers.5.attn.wq_a")->lora);
  CHECK_FALSE(find_node(m, "layers.5.attn.compressor.wkv")->lora);  // layer 5 is HCA
  // QLoRA: bitsandbytes quantizes the nn.Linear modules only, so the routed experts stay 16-bit.
  const json r = plan(golden_file("deepseek-v4-flash.json").at("config").dump(), {{"mode", "qlora"}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["plan"]["components"]["weights"].get<int64_t>() >= 2 * 43 * E * 3 * I * H);
}

TEST_CASE("DeepSeek-V4 hyper-connections: blocks read the collapsed copies, the stream is hc_mult wide") {
  const Model m = trace_golden("deepseek-v4-flash.json");
  const Node* fn = find_node(m, "layers.4.hc_attn");
  const Node* collapse = find_node(m, "layers.4.hc_attn.collapse");
  const Node* norm = find_node(m, "layers.4.attn_norm");
  const Node* expand = find_node(m, "layers.4.hc_attn.expand");
  const Node* wo_b = find_node(m, "layers.4.attn.wo_b");
  const Node* ffn_fn = find_node(m, "layers.4.hc_ffn");
  for (const Node* n : {fn, collapse, norm, expand, wo_b, ffn_fn}) REQUIRE(n);
  CHECK(m.values[size_t(fn->inputs.at(0))].width == HC * H);
  CHECK(collapse->inputs == std::vector<ValueId>{fn->inputs[0], fn->output});
  CHECK(norm->inputs == std::vector<ValueId>{collapse->output});
  CHECK(expand->inputs == std::vector<ValueId>{wo_b->output, fn->inputs[0], fn->output});
  CHECK(ffn_fn->inputs == std::vector<ValueId>{expand->output});
  CHECK(fn->params == hyper);
  // The grouped output projection: 8 groups of 4096 → 1024, one token through every group.
  const Node* wo_a = find_node(m, "layers.4.attn.wo_a");
  REQUIRE(wo_a);
  CHECK(wo_a->in * wo_a->active == NH * HD);
  CHECK(wo_a->out * wo_a->active == G * OL);
  CHECK(wo_a->params == G * OL * NH * HD / G);
}

TEST_CASE("DeepSeek-V4 serving state per sequence, by hand from the cache layers") {
  const json config = golden_file("deepseek-v4-flash.json").at("config");
  const Model m = trace_json(config);
  // Between decode steps: HCA buffers kv and gate of up to 127 tokens [127, 512] each; CSA buffers
  // [3, 1024] each plus the overlap series kv and gate [4, 512], and its indexer [3, 256] and [4, 128].
  const int64_t hca_state = 2 * 127 * HD;
  const int64_t csa_state = 2 * 3 * 2 * HD + 2 * 4 * HD + 2 * 3 * 2 * ID + 2 * 4 * ID;
  CHECK(recurrent_state_bytes(m, 2) == 2 * (20 * hca_state + 21 * csa_state));
  // The cache at 8192 tokens, bf16: every layer's window of 128 K = V entries of 512; CSA layers one
  // compressed entry (512) and one indexer key (128) per 4 tokens; HCA one entry (512) per 128.
  const int64_t seq = 8192;
  const int64_t kv = 2 * (43 * 128 * HD + 21 * (seq / 4) * (HD + ID) + 20 * (seq / 128) * HD);
  const json r = plan(config.dump(), {{"mode", "serve"}, {"batch", 1}, {"seq", seq}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["plan"]["components"]["kv_cache"] == kv);
  CHECK(r["plan"]["components"]["ssm_state"] == 2 * (20 * hca_state + 21 * csa_state));
  // Twice the batch: twice the state.
  const json r2 = plan(config.dump(), {{"mode", "serve"}, {"batch", 2}, {"seq", seq}});
  CHECK(r2["plan"]["components"]["kv_cache"] == 2 * kv);
}

TEST_CASE("DeepSeek-V4-Flash stored format: FP8 block scales and FP4 experts as the checkpoint stores them") {
  const Model m = trace_golden("deepseek-v4-flash.json");
  CHECK(m.stored_format == "fp8");
  auto extra = [&](const std::string& name, ExtraRole role) -> const StoredExtra* {
    for (const auto& x : m.stored_extras)
      if (names(x.tensor, name) && x.role == role) return &x;
    return nullptr;
  };
  const StoredExtra* s = extra("layers.0.attn.wq_b.scale", ExtraRole::quant_scale);
  REQUIRE(s);
  CHECK(s->tensor.shape == Shape{NH * HD / 128, QL / 128});
  CHECK(s->dtype == StoredDtype::f8_e8m0);
  CHECK(extra("layers.2.attn.compressor.wkv.scale", ExtraRole::quant_scale) == nullptr);  // BF16
  CHECK(extra("layers.2.attn.indexer.weights_proj.scale", ExtraRole::quant_scale) == nullptr);
  CHECK(extra("layers.2.attn.indexer.wq_b.scale", ExtraRole::quant_scale));
  CHECK(extra("layers.0.ffn.gate.scale", ExtraRole::quant_scale) == nullptr);  // the router
  CHECK(extra("head.scale", ExtraRole::quant_scale) == nullptr);
  const StoredExtra* w1 = extra("layers.9.ffn.experts.3.w1.weight", ExtraRole::quant_blocks);
  REQUIRE(w1);
  CHECK(w1->tensor.shape == Shape{I, H / 2});
  CHECK(w1->values_per_element == 2);
  CHECK(extra("layers.9.ffn.experts.3.w2.scale", ExtraRole::quant_scale)->tensor.shape == Shape{H, I / 32});
  CHECK(extra("layers.9.ffn.shared_experts.w2.scale", ExtraRole::quant_scale)->tensor.shape ==
        Shape{H / 128, I / 128});
  // No DeepSeek-V3-style weight_scale_inv anywhere.
  for (const auto& x : m.stored_extras) {
    INFO(x.tensor.name);
    CHECK(x.tensor.name.find("scale_inv") == std::string::npos);
  }
}

TEST_CASE("DeepSeek-V4 refuses what it cannot trace exactly, with a coded error naming the field") {
  json config = golden_file("deepseek-v4-flash.json").at("config");
  {
    json c = config;
    c["compress_ratios"][5] = 8;
    const json r = plan(c.dump());
    REQUIRE(r.at("ok") == false);
    CHECK(r["error"]["code"] == "config.field_inconsistent");
    CHECK(r["error"]["path"] == "$.compress_ratios");
  }
  {
    json c = config;
    c["num_key_value_heads"] = 8;
    const json r = plan(c.dump());
    REQUIRE(r.at("ok") == false);
    CHECK(r["error"]["path"] == "$.num_key_value_heads");
  }
  {
    json c = config;
    c["compress_ratios"] = json::array({0, 4});
    const json r = plan(c.dump());
    REQUIRE(r.at("ok") == false);
    CHECK(r["error"]["path"] == "$.compress_ratios");
  }
  {
    // Explicit layer_types win over compress_ratios (DeepseekV4Config.__post_init__).
    json c = config;
    c["layer_types"] = json::array();
    for (int i = 0; i < 43; ++i) c["layer_types"].push_back("sliding_attention");
    const Model m = trace_json(c);
    CHECK(m.parameter_count() == total - 21 * (csa + indexer) - 20 * hca);
  }
}

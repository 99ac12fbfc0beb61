// DeepSeek-V4 (issue 10): DeepSeek-V4-Flash traced from modeling_deepseek_v4.py. The total derived by
// hand from the modules' __init__; the hyper-connection edges; the serving state per sequence (the
// sliding K = V cache, the compressed entries, the compressors' buffers) by hand from DeepseekV4HCACache /
// DeepseekV4CSACache; the stored FP8 / FP4 extras; coded errors.
#include <catch2/catch.hpp>

#include "plan/checks.hpp"
#include "plan/recurrent_state.hpp"
#include "test_util.hpp"

namespace arch_deepseek_v4_test {

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

namespace {
constexpr int64_t blocks(int64_t out, int64_t in) { return (out + 127) / 128 * ((in + 127) / 128); }
// The FP8 linears of one attention block (wq_a, wq_b, wkv, wo_a, wo_b) and of the shared expert, as
// their UE8M0 block scales count; a routed expert's FP4 scales, one per 32 values of each row.
constexpr int64_t attn_scales = blocks(QL, H) + blocks(NH * HD, QL) + blocks(HD, H) + blocks(G * OL, NH * HD / G) + blocks(H, G * OL);
constexpr int64_t shared_scales = 2 * blocks(I, H) + blocks(H, I);
constexpr int64_t expert_scales = 2 * I * (H / 32) + H * (I / 32);
constexpr int64_t packed_experts = E * 3 * I * H / 2;  // two FP4 values an int8
// mtp.0: a sliding block with learned routing (no compressor, no indexer, no tid2eid), e_proj / h_proj
// [H, H] FP8, enorm, hnorm, norm and its own hc_head.
constexpr int64_t mtp_weights = attn + 2 * H + 2 * hyper + E * H + E + 3 * I * H + packed_experts + 2 * H * H + 3 * H +
                                (HC * HC * H + HC + 1);
constexpr int64_t mtp_scales = attn_scales + shared_scales + E * expert_scales + 2 * blocks(H, H);
constexpr int64_t main_scales = 43 * (attn_scales + shared_scales + E * expert_scales) + 21 * blocks(IH * ID, QL);
constexpr int64_t stored = total + 3 * V * 6 - 43 * packed_experts + main_scales + mtp_weights + mtp_scales;
// A public listing of deepseek-ai/DeepSeek-V4-Flash's 46 safetensors files (a "模型信息报告" of a local
// copy, read 2026-12-04): 69,187 tensors holding 158,069,433,298 scalars, the MTP layer's 1,575 of them
// in the last file (also asserted by a public Rust loader's test); the hub's "158B" (mirrored).
static_assert(stored == 158069433298);
}  // namespace

TEST_CASE("DeepSeek-V4-Flash: the published checkpoint's 69,187 tensors and 158,069,433,298 scalars, the MTP layer listed") {
  const json r = plan(golden_file("deepseek-v4-flash.json").at("config").dump(), {{"checkpoint_total", stored}});
  REQUIRE(r.at("ok") == true);
  const json& c = r["checkpoint"];
  CHECK(c["unexplained"] == 0);
  REQUIRE(group(c, "mtp"));
  CHECK((*group(c, "mtp"))["scalars"] == mtp_weights);
  CHECK((*group(c, "mtp"))["tensors"] == 8 + 2 + 6 + 2 + 3 + 3 * E + 2 + 3 + 3);  // 797
  REQUIRE(group(c, "quant_scale"));
  CHECK((*group(c, "quant_scale"))["scalars"] == main_scales + mtp_scales);

  const Model m = trace_golden("deepseek-v4-flash.json");
  int64_t tensors = int64_t(expand_copies(m.tensors).size() + expand_copies(m.buffers).size());
  for (const auto& x : expand_copies(m.stored_extras)) tensors += x.role != ExtraRole::quant_blocks;  // those replace
  CHECK(tensors == 69187);
  const StoredExtra* w2 = find_extra(m, "mtp.0.ffn.experts.255.w2.weight");
  REQUIRE(w2);
  CHECK(w2->tensor.shape == Shape{H, I / 2});
  CHECK(w2->dtype == StoredDtype::i8);
  CHECK(find_extra(m, "mtp.0.ffn.experts.255.w2.scale")->tensor.shape == Shape{H, I / 32});
  CHECK(find_extra(m, "mtp.0.e_proj.weight")->dtype == StoredDtype::f8_e4m3);
  CHECK(find_extra(m, "mtp.0.h_proj.scale")->tensor.shape == Shape{H / 128, H / 128});
  CHECK(find_extra(m, "mtp.0.hc_head_fn")->tensor.shape == Shape{HC, HC * H});
  CHECK(find_extra(m, "mtp.0.ffn.gate.bias"));
  CHECK(find_extra(m, "mtp.0.attn.compressor.wkv.weight") == nullptr);
  CHECK(find_extra(m, "mtp.0.ffn.gate.tid2eid") == nullptr);
  // Served weights hold none of it: the model class ignores mtp.*.
  const json none = plan(golden_file("deepseek-v4-flash.json").at("config").dump(), {{"mode", "serve"}});
  json cfg = golden_file("deepseek-v4-flash.json").at("config");
  cfg["num_nextn_predict_layers"] = 0;
  const json without = plan(cfg.dump(), {{"mode", "serve"}});
  CHECK(none["plan"]["components"]["weights"] == without["plan"]["components"]["weights"]);
}

TEST_CASE("DeepSeek-V4 expert_dtype: fp4 when absent (the published config), fp8 block-scaled when stated, else refused") {
  json cfg = golden_file("deepseek-v4-flash.json").at("config");
  REQUIRE_FALSE(cfg.contains("expert_dtype"));
  const int64_t fp4 = plan(cfg.dump(), {{"mode", "serve"}})["plan"]["components"]["weights"];
  cfg["expert_dtype"] = "fp8";
  const Model m = trace_json(cfg);
  const StoredExtra* s = find_extra(m, "layers.9.ffn.experts.3.w1.scale");
  REQUIRE(s);
  CHECK(s->tensor.shape == Shape{I / 128, H / 128});
  CHECK(find_extra(m, "layers.9.ffn.experts.3.w1.weight") == nullptr);  // stored as itself, one byte
  const int64_t fp8 = plan(cfg.dump(), {{"mode", "serve"}})["plan"]["components"]["weights"];
  // Per expert: FP8 one byte a value and a byte a 128 x 128 block against FP4's half byte and a byte a 32.
  constexpr int64_t fp8_scales = 2 * blocks(I, H) + blocks(H, I);
  CHECK(fp8 - fp4 == 43 * E * ((3 * I * H + fp8_scales) - (packed_experts / E + expert_scales)));
  // Without scale_fmt ue8m0 the block scales are float32 (DeepSeek-V3's).
  cfg["quantization_config"].erase("scale_fmt");
  CHECK(find_extra(trace_json(cfg), "layers.0.attn.wq_b.scale")->dtype == StoredDtype::f32);
  cfg["expert_dtype"] = "int4";
  const json r = plan(cfg.dump());
  REQUIRE(r.at("ok") == false);
  CHECK(r["error"]["code"] == "config.field_inconsistent");
  CHECK(r["error"]["path"] == "$.expert_dtype");
}

TEST_CASE("DeepSeek-V4-Pro: the published checkpoint's 145,116 tensors and 861,608,274,846 scalars, 0 unexplained") {
  // The same report lists V4-Pro's 64 files (tests/golden/models/deepseek-v4-pro.json): 61 layers, the
  // first two HCA and hash-routed, so the sliding MTP layer is layer 60's block without its compressor
  // and indexer.
  const json r = plan(golden_file("deepseek-v4-pro.json").at("config").dump(), {{"checkpoint_total", 861608274846}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["checkpoint"]["unexplained"] == 0);
  REQUIRE(group(r["checkpoint"], "mtp"));
  CHECK((*group(r["checkpoint"], "mtp"))["tensors"] == 29 + 3 * 384);
  const Model m = trace_golden("deepseek-v4-pro.json");
  int64_t tensors = int64_t(expand_copies(m.tensors).size() + expand_copies(m.buffers).size());
  for (const auto& x : expand_copies(m.stored_extras)) tensors += x.role != ExtraRole::quant_blocks;
  CHECK(tensors == 145116);
  CHECK(find_extra(m, "mtp.0.attn.compressor.ape") == nullptr);
  CHECK(find_extra(m, "mtp.0.ffn.experts.383.w1.scale")->tensor.shape == Shape{3072, 7168 / 32});
}
}  // namespace arch_deepseek_v4_test

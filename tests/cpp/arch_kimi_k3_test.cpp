// Kimi-K3 (core/arch/families/kimi_k3.cpp): the exact total by hand from the modules, the published
// checkpoint's 497,220 tensors and 1,503,647,073,024 stored scalars reconciled with 0 unexplained, the
// hybrid layout, the attention residuals' candidates, the serving state by hand, and coded refusals.
#include <catch2/catch.hpp>

#include "arch/registry.hpp"
#include "cardfit/planner.hpp"
#include "plan_test_util.hpp"

namespace arch_kimi_k3_test {

using namespace cardfit;
using nlohmann::json;

namespace {
constexpr int64_t H = 7168, V = 163840, W = 96 * 128;  // hidden, vocab, the KDA / MLA head width
// Every layer: four norms and two [1, H] attention-residual projections, g_proj and o_proj.
constexpr int64_t every = 6 * H + 2 * W * H;
// A KDA layer: q/k/v projections and their F32 convs, f_a / f_b, b_proj, A_log (128 stored), dt_bias, o_norm.
constexpr int64_t kda = 3 * W * H + 3 * W * 4 + 128 * H + W * 128 + 96 * H + 128 + W + 128;
// An MLA layer: q_a, its norm, q_b (96 × (128 + 64)), kv_a (512 + 64), its norm, kv_b (96 × (128 + 128)).
constexpr int64_t mla = 1536 * H + 1536 + 18432 * 1536 + 576 * H + 512 + 24576 * 512;
// A latent-MoE layer: router and its bias, latent down / norm / up, 896 experts (w1, w3 [3072, 3584],
// w2 [3584, 3072]), the shared experts (2 × 3072 wide).
constexpr int64_t expert = 3 * 3072 * 3584;
constexpr int64_t moe = 896 * H + 896 + 3584 * H + 3584 + H * 3584 + 896 * expert + 3 * 6144 * H;
constexpr int64_t dense = 3 * 33792 * H;
constexpr int64_t text = 2 * V * H + 3 * H + 93 * every + 69 * kda + 24 * mla + dense + 92 * moe;
// MoonViT3d: patch conv, the 64 × 64 position grid, 27 blocks (norm0, norm1, wqkv, wo, fc0, fc1), the
// final norm; the projector proj.0, proj.2 and post_norm.
constexpr int64_t vision = 1024 * 3 * 14 * 14 + 64 * 64 * 1024 +
                           27 * (2 * 1024 + 4608 * 1024 + 1024 * 1536 + 2 * 4096 * 1024) + 1024;
constexpr int64_t projector = 4096 * 4096 + 7168 * 4096 + 7168;
constexpr int64_t total = text + vision + projector;
static_assert(total == 2779931837184);
// As stored: each expert weight mxfp4-pack-quantized, weight_packed U8 [out, in / 2] and weight_scale
// U8 [out, in / 32].
constexpr int64_t expert_stored = 2 * (3072 * 1792 + 3072 * 112) + 3584 * 1536 + 3584 * 96;
static_assert(total - 92 * 896 * (expert - expert_stored) == 1503647073024);

const Node* node(const Model& m, const std::string& name) { return find_node(m, name); }
}  // namespace

TEST_CASE("Kimi-K3: exact total by hand, the published checkpoint's 497,220 tensors and scalars, 0 unexplained") {
  const Model m = trace_golden("kimi-k3.json");
  CHECK(m.parameter_count() == total);
  CHECK(m.stored_format == "compressed-tensors");
  cardfit::Planner planner;  // the core report (handle()'s whole one lists 249,924 tensors)
  const json r = json::parse(planner.plan(golden_file("kimi-k3.json").at("config").dump(), R"({"checkpoint_total": 1503647073024})"));
  REQUIRE(r.at("ok") == true);
  CHECK(r["checkpoint"]["unexplained"] == 0);
  REQUIRE(group(r["checkpoint"], "quant_blocks"));
  CHECK((*group(r["checkpoint"], "quant_blocks"))["tensors"] == 92 * 896 * 3);
  CHECK((*group(r["checkpoint"], "quant_scale"))["tensors"] == 92 * 896 * 3);
  int64_t tensors = int64_t(expand_copies(m.tensors).size());
  for (const auto& x : expand_copies(m.stored_extras)) tensors += x.role != ExtraRole::quant_blocks;
  CHECK(tensors == 497220);
  // Only the routed experts are quantized: the latent projections, routers and attention-residual
  // weights are stored 16-bit (not nn.Linear), the rest by the ignore patterns.
  CHECK(find_extra(m, "language_model.model.layers.92.block_sparse_moe.experts.895.w2.weight_scale")->tensor.shape ==
        Shape{3584, 3072 / 32});
  CHECK(find_extra(m, "language_model.model.layers.1.block_sparse_moe.routed_expert_down_proj.weight_packed") == nullptr);
  CHECK(find_extra(m, "language_model.model.layers.0.mlp.down_proj.weight_packed") == nullptr);
  CHECK(find_extra(m, "language_model.model.layers.3.self_attn.q_a_proj.weight_packed") == nullptr);
}

TEST_CASE("Kimi-K3 layout: KDA and gated MLA layers from linear_attn_config, latent experts, attention-residual candidates") {
  const Model m = trace_golden("kimi-k3.json");
  const auto attention = attention_nodes(m);
  REQUIRE(attention.size() == 24 + 27);  // the MLA layers and the vision blocks
  int mla_layers = 0;
  for (int64_t i = 0; i < 93; ++i) {
    const std::string p = "language_model.model.layers." + std::to_string(i) + ".self_attn.";
    const bool full = (i + 1) % 4 == 0 || i == 92;  // full_attn_layers 4, 8, ..., 92, 93 (1-based)
    INFO(i);
    CHECK((node(m, p + "attn") != nullptr) == full);
    CHECK((node(m, p + "delta_rule") != nullptr) == !full);
    if (full) {
      ++mla_layers;
      CHECK(node(m, p + "attn")->attn.cache_dim == 512 + 64);
      CHECK(node(m, p + "output_gate") != nullptr);  // sigmoid(g_proj(x)) before o_proj
    }
  }
  CHECK(mla_layers == 24);
  // The latent MoE: experts read the 3584-wide latent, its norm follows their weighted sum.
  const std::string moe = "language_model.model.layers.5.block_sparse_moe.";
  CHECK(node(m, moe + "experts.*.w1")->in == 3584);
  CHECK(node(m, moe + "experts.*.w1")->experts == 896);
  CHECK(node(m, moe + "experts.*.w1")->active == 16);
  CHECK(node(m, moe + "routed_expert_up_proj")->linear == LinearKind::parameter);
  CHECK(node(m, moe + "shared_experts.gate_proj")->in == H);
  // Attention residuals weigh the block summaries kept every 12 layers (the embedding first) and the
  // running sum: none yet before layer 0's attention, 2 rows after its append, 8 + 1 at the end.
  CHECK(node(m, "language_model.model.layers.0.self_attention_res")->in == 0);
  CHECK(node(m, "language_model.model.layers.0.mlp_res")->in == 2 * H);
  CHECK(node(m, "language_model.model.layers.11.self_attention_res")->in == 2 * H);
  CHECK(node(m, "language_model.model.layers.12.self_attention_res")->in == 2 * H);
  CHECK(node(m, "language_model.model.layers.12.mlp_res")->in == 3 * H);
  CHECK(node(m, "language_model.model.output_attn_res")->in == 9 * H);
  // A_log is stored at head_dim entries; the scan owns it with dt_bias.
  CHECK(node(m, "language_model.model.layers.0.self_attn.delta_rule")->params == 128 + W);
}

TEST_CASE("Kimi-K3 serving state per sequence, by hand from the cache layers") {
  const Model m = trace_golden("kimi-k3.json");
  const MemoryPlan p = plan_memory(m, Options{}, Mode::serve, 1, 8192, {});
  // 24 MLA layers cache the latent and the shared 64-wide key: 576 bf16 values a token.
  CHECK(component(p, "kv_cache") == 24 * 8192 * 576 * 2);
  // 69 KDA layers: q, k, v conv inputs (4 frames of 12288 each, bf16) and the fp32 [96, 128, 128] state.
  CHECK(component(p, "ssm_state") == 69 * (3 * W * 4 * 2 + 96 * 128 * 128 * 4));
  // Served as stored: the experts' packed bytes and scales, the rest 16-bit.
  CHECK(component(p, "weights") == (total - 92 * 896 * expert) * 2 + 92 * 896 * expert_stored);
}

TEST_CASE("Kimi-K3 plans in every mode, with and without an image") {
  // The core report, as the page asks for it (handle()'s whole report lists 249,924 tensors).
  const std::string c = golden_file("kimi-k3.json").at("config").dump();
  cardfit::Planner planner;
  for (const char* mode : {"full", "lora", "qlora", "serve"})
    for (int images : {0, 1}) {
      INFO(mode << " images " << images);
      const json r = json::parse(planner.plan(c, json{{"mode", mode}, {"images", images}, {"seq", 1024}}.dump()));
      INFO(r.dump().substr(0, 600));
      REQUIRE(r.at("ok") == true);
      CHECK(r["plan"]["peak_bytes"].get<int64_t>() > 0);
    }
}

TEST_CASE("Kimi-K3 configs it cannot trace exactly are coded errors naming the field, its text model alone stays refused") {
  const json c = golden_file("kimi-k3.json").at("config");
  json bad = c;
  bad["text_config"]["linear_attn_config"]["kda_layers"].push_back(4);  // layer 4 listed twice
  CHECK(path_of(bad) == "$.text_config.linear_attn_config.kda_layers");
  bad = c;
  bad["text_config"]["linear_attn_config"]["full_attn_layers"].push_back(94);
  CHECK(path_of(bad) == "$.text_config.linear_attn_config.full_attn_layers");
  bad = c;
  bad["text_config"]["linear_attn_config"]["use_full_rank_gate"] = false;
  CHECK(path_of(bad) == "$.text_config.linear_attn_config.use_full_rank_gate");
  bad = c;
  bad["vision_config"]["mm_projector_type"] = "patchmerger";
  CHECK(path_of(bad) == "$.vision_config.mm_projector_type");
  bad = c;
  bad["text_config"]["tie_word_embeddings"] = true;
  CHECK(path_of(bad) == "$.text_config.tie_word_embeddings");
  bad = c;
  bad.erase("vision_config");
  CHECK(refusal(bad).code == ErrorCode::field_missing);
  // Flattened (no text_config): refused, never planned as a dense decoder.
  json flat = c["text_config"];
  flat["model_type"] = "kimi_k3";
  CHECK(path_of(flat) == "$.text_config");
  // The text model alone (model_type kimi_linear) has no family: its experts and linear-attention
  // layers are named in the refusal.
  const Error text = refusal(c["text_config"]);
  CHECK(text.code == ErrorCode::model_type_unknown);
  const std::string why = text.what();
  CHECK(why.find("num_experts") != std::string::npos);
  CHECK(why.find("linear_attn_config") != std::string::npos);
}
}  // namespace arch_kimi_k3_test

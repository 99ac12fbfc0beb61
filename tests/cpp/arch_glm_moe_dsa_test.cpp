// GLM-5 (modeling_glm_moe_dsa.py GlmMoeDsaForCausalLM; issue 10 Tier 2): latent attention with DeepSeek
// Sparse Attention's lightning indexer over GLM-4.5's MoE. The total by hand; the serving cache per
// sequence by hand (latent + the indexer's keys); the indexer's FLOPs, working set and its no_grad
// training; indexer_types; the MTP layer reconciled to 0; errors naming their key.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/cost.hpp"
#include "plan/graph_costs.hpp"
#include "plan/memory.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"

namespace arch_glm_moe_dsa_test {

using namespace cardfit;
using nlohmann::json;

namespace {
constexpr int64_t V = 154880, H = 6144, L = 78, NH = 64, E = 256, MI = 2048, I = 12288;
constexpr int64_t QL = 2048, KVL = 512, NOPE = 192, ROPE = 64, VD = 256, IH = 32, ID = 128;
// GlmMoeDsaAttention: q_a_proj, q_a_layernorm, q_b_proj (nope + rope per head), kv_a_proj_with_mqa
// (latent + shared rotary key), kv_a_layernorm, kv_b_proj (k_nope + v per head), o_proj; no biases.
constexpr int64_t mla = H * QL + QL + QL * NH * (NOPE + ROPE) + H * (KVL + ROPE) + KVL + KVL * NH * (NOPE + VD) + NH * VD * H;
// GlmMoeDsaIndexer: wq_b [IH * ID, QL], wk [ID, H], k_norm (nn.LayerNorm: weight and bias), weights_proj [IH, H].
constexpr int64_t indexer_linears = QL * IH * ID + H * ID + H * IH;
constexpr int64_t indexer = indexer_linears + 2 * ID;
constexpr int64_t dense = 3 * H * I;                           // GlmMoeDsaMLP(intermediate_size)
constexpr int64_t moe = E * H + E * 3 * H * MI + 3 * H * MI;   // router, routed experts, one shared expert
constexpr int64_t layer_common = mla + indexer + 2 * H;        // + input / post-attention RMSNorms
constexpr int64_t total = 2 * V * H + L * layer_common + 3 * dense + 75 * moe + H;
// The MTP layer model.layers.78: a copy of layer 77 (a MoE layer, its router bias included), enorm,
// hnorm, eh_proj [H, 2H], shared_head.norm; no embedding or head of its own.
constexpr int64_t mtp = layer_common + moe + E + 3 * H + H * 2 * H;
static_assert(mla == 165022208);
static_assert(indexer == 9371904);
static_assert(total == 743911199232);
static_assert(total + 75 * E + mtp == 753864139008);

// The GLM-5.2-style schedule: three full layers, then one full layer in four.
json shared_schedule() {
  json types = json::array();
  for (int i = 0; i < L; ++i) types.push_back(i < 3 || (i >= 3 && (i - 3) % 4 == 3 && i < 75) ? "full" : "shared");
  return types;
}
int64_t full_layers(const json& types) {
  int64_t n = 0;
  for (const auto& t : types) n += t == "full";
  return n;
}
}  // namespace

TEST_CASE("GLM-5: exact total by hand, three dense layers, the indexer's tensors") {
  const Model m = trace_golden("glm-5.json");
  CHECK(m.parameter_count() == total);
  CHECK(m.buffer_count() == 75 * E);
  CHECK_FALSE(m.approximate);
  CHECK(find(m, "model.layers.3.mlp.gate_proj.weight") == nullptr);
  CHECK(find(m, "model.layers.2.mlp.experts.0.gate_proj.weight") == nullptr);
  CHECK(find(m, "model.layers.3.mlp.experts.0.gate_proj.weight")->shape == Shape{MI, H});
  CHECK(find(m, "model.layers.5.self_attn.indexer.k_norm.weight")->shape == Shape{ID});
  CHECK(under(m, "model.layers.0.self_attn.indexer.") == indexer);
  CHECK(under(m, "model.layers.0.") == layer_common + dense);
  CHECK(m.dims.experts == E);
  CHECK(m.dims.experts_per_token == 8);
}

TEST_CASE("GLM-5: the serving cache per sequence is the latent and the indexer's keys, by hand") {
  const Model m = trace_golden("glm-5.json");
  // Per token and layer: kv_lora_rank + qk_rope_head_dim = 576 latent elements, plus index_head_dim = 128
  // indexer keys (GlmMoeDsaIndexer._cached_keys), in bf16.
  const MemoryPlan p = plan_memory(m, Options{}, Mode::serve, 1, 4096, {});
  CHECK(component(p, "kv_cache") == L * 4096 * (576 + 128) * 2);
  // "shared" layers reuse the previous top-k: their indexer never runs and caches nothing.
  json c = golden_file("glm-5.json").at("config");
  c["indexer_types"] = shared_schedule();
  const int64_t full = full_layers(c["indexer_types"]);
  REQUIRE(full == 21);
  const Model s = trace_json(c);
  CHECK(s.parameter_count() == total);  // the weights exist either way
  const MemoryPlan ps = plan_memory(s, Options{}, Mode::serve, 1, 4096, {});
  CHECK(component(ps, "kv_cache") == (L * 576 + full * 128) * 4096 * 2);
  // index_topk_pattern is the same schedule spelled F / S.
  std::string pattern;
  for (const auto& t : c["indexer_types"]) pattern += t == "full" ? 'F' : 'S';
  json pc = golden_file("glm-5.json").at("config");
  pc["index_topk_pattern"] = pattern;
  CHECK(component(plan_memory(trace_json(pc), Options{}, Mode::serve, 1, 4096, {}), "kv_cache") ==
        component(ps, "kv_cache"));
}

TEST_CASE("GLM-5: the indexer's FLOPs per token, by hand") {
  const Model all = trace_golden("glm-5.json");
  json c = golden_file("glm-5.json").at("config");
  c["indexer_types"] = shared_schedule();
  const Model some = trace_json(c);
  const int64_t idle = L - full_layers(c["indexer_types"]);
  // A running indexer: its three projections (2 FLOPs per weight) and, per key of the causal span
  // ((seq + 1) / 2 on average, as attention is counted), q·k in 32 heads of 128 plus the heads' weighting.
  for (int64_t seq : {1024, 8192}) {
    const double per_layer = 2.0 * indexer_linears + 2.0 * IH * (ID + 1) * double(seq + 1) / 2;
    CHECK(forward_flops_per_token(all, seq) - forward_flops_per_token(some, seq) ==
          Approx(double(idle) * per_layer).epsilon(1e-12));
  }
}

TEST_CASE("GLM-5: training keeps nothing of the indexer and gives its weights no gradient") {
  const Model m = trace_golden("glm-5.json");
  const Options opt;
  // Full fine-tune: the indexer runs under torch.no_grad(), so AdamW never sees its weights.
  const MemoryPlan p = plan_memory(m, opt, Mode::full, 1, 1024, {});
  CHECK(p.trainable_params == total);  // they still require grad
  // AdamW's two fp32 states for every parameter that gets a gradient: all but the indexers'.
  CHECK(component(p, "optimizer_states") == 8 * (total - L * indexer));
  // None of the indexer's nodes saves anything for backward.
  const StepSetup s = make_setup(m, opt, Mode::full);
  size_t layer0 = 0;
  while (m.blocks[layer0].name != "model.layers.0") ++layer0;
  const BlockCost bc = block_cost(m, layer0, s, 1024, 1024);
  int indexer_nodes = 0;
  for (size_t i = 0; i < m.blocks[layer0].nodes.size(); ++i)
    if (m.blocks[layer0].nodes[i].name.find(".indexer.") != std::string::npos) {
      ++indexer_nodes;
      CHECK(bc.node_saved[i] == 0);
    }
  CHECK(indexer_nodes == 5);  // wq_b, wk, k_norm, weights_proj, topk
  // Its fp32 scores [32 heads, seq, seq] and relu's copy are the forward's extra working set.
  json c = golden_file("glm-5.json").at("config");
  c["indexer_types"] = shared_schedule();
  const Model sh = trace_json(c);
  auto block_of = [&](const std::string& name) {
    size_t i = 0;
    while (sh.blocks[i].name != name) ++i;
    return i;
  };
  const StepSetup ss = make_setup(sh, opt, Mode::full);
  const int64_t with = block_cost(sh, block_of("model.layers.6"), ss, 1024, 1024).forward;      // MoE, full
  const int64_t without = block_cost(sh, block_of("model.layers.5"), ss, 1024, 1024).forward;   // MoE, shared
  CHECK(with - without == IH * 1024 * 1024 * 8);
  CHECK(block_cost(sh, block_of("model.layers.4"), ss, 1024, 1024).forward == without);
}

TEST_CASE("GLM-5: the checkpoint reconciliation explains parameters, buffers and the MTP layer to 0") {
  const json c = golden_file("glm-5.json").at("config");
  const Model m = trace_json(c);
  int64_t extras = 0;
  for (const auto& e : m.stored_extras) extras += e.tensor.count();
  CHECK(extras == mtp);
  auto extra = [&](const std::string& name) {
    return std::any_of(m.stored_extras.begin(), m.stored_extras.end(),
                       [&](const StoredExtra& e) { return e.tensor.name == name; });
  };
  CHECK(extra("model.layers.78.eh_proj.weight"));
  CHECK(extra("model.layers.78.self_attn.indexer.wq_b.weight"));
  CHECK_FALSE(extra("model.layers.78.embed_tokens.weight"));
  CHECK_FALSE(extra("model.layers.78.shared_head.head.weight"));
  const json r = plan(c.dump(), {{"checkpoint_total", total + 75 * E + mtp}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["checkpoint"]["unexplained"] == 0);
  json none = c;
  none.erase("num_nextn_predict_layers");
  CHECK(trace_json(none).stored_extras.empty());
}

TEST_CASE("GLM-5: mlp_layer_types and first_k_dense_replace pick the dense layers, errors name the key") {
  json c = golden_file("glm-5.json").at("config");
  json one = c;
  one["first_k_dense_replace"] = 1;
  CHECK(trace_json(one).parameter_count() == total - 2 * dense + 2 * moe);
  json types = c;
  types["mlp_layer_types"] = json::array();
  for (int i = 0; i < L; ++i) types["mlp_layer_types"].push_back(i < 1 ? "dense" : "sparse");
  CHECK(trace_json(types).parameter_count() == total - 2 * dense + 2 * moe);
  json bad = c;
  bad["mlp_layer_types"] = {"dense"};
  CHECK(path_of(bad) == "$.mlp_layer_types");
  json bad_index = c;
  bad_index["indexer_types"] = json::array({"full"});
  CHECK(path_of(bad_index) == "$.indexer_types");
  json no_latent = c;
  no_latent["q_lora_rank"] = nullptr;
  CHECK(path_of(no_latent) == "$.q_lora_rank");
  json gqa = c;
  gqa["num_key_value_heads"] = 8;
  CHECK(path_of(gqa) == "$.num_key_value_heads");
  const json r = plan(c.dump(), {{"mode", "qlora"}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["params"]["total"] == total);
}

TEST_CASE("GLM-5 FP8: the indexer's weights_proj keeps BF16 with no scale, its other projections are FP8") {
  json c = golden_file("glm-5.json").at("config");
  c["quantization_config"] = {{"activation_scheme", "dynamic"}, {"fmt", "e4m3"}, {"quant_method", "fp8"},
                              {"weight_block_size", {128, 128}}};
  const Model m = trace_json(c);
  auto scale = [&](const std::string& name) -> const StoredExtra* {
    for (const auto& e : m.stored_extras)
      if (e.tensor.name == name) return &e;
    return nullptr;
  };
  REQUIRE(scale("model.layers.0.self_attn.indexer.wq_b.weight_scale_inv") != nullptr);
  CHECK(scale("model.layers.0.self_attn.indexer.wq_b.weight_scale_inv")->tensor.shape == Shape{4096 / 128, 2048 / 128});
  CHECK(scale("model.layers.0.self_attn.indexer.wk.weight_scale_inv")->tensor.shape == Shape{1, 6144 / 128});
  CHECK(scale("model.layers.0.self_attn.indexer.weights_proj.weight_scale_inv") == nullptr);
  CHECK(scale("model.layers.78.self_attn.indexer.weights_proj.weight_scale_inv") == nullptr);
  CHECK(scale("model.layers.78.eh_proj.weight_scale_inv") == nullptr);
}

TEST_CASE("GLM-5-FP8: one hub-total audit's 753,910,024,032 is the BF16 total plus the 128 x 128 block scales") {
  // zai-org/GLM-5-FP8's safetensors.total as a single public audit of hub totals quotes it (glm-5.json's
  // total_source). Its config.json was not found: the fp8 quantization_config is DeepSeek-V3's. The scales
  // by hand, ceil(out / 128) x ceil(in / 128) per FP8 linear, on the 78 layers and the MTP layer 78:
  constexpr int64_t mla_scales = 16 * 48 + 128 * 16 + 5 * 48 + 224 * 4 + 48 * 128;  // q_a, q_b, kv_a, kv_b, o
  constexpr int64_t indexer_scales = 32 * 16 + 1 * 48;  // wq_b, wk; weights_proj stays BF16
  constexpr int64_t expert_scales = 3 * 16 * 48;        // gate, up [2048, 6144] and down [6144, 2048]
  constexpr int64_t scales = (L + 1) * (mla_scales + indexer_scales) + 3 * 3 * 96 * 48 + 76 * (E + 1) * expert_scales;
  static_assert(scales == 45885024);
  static_assert(total + 75 * E + mtp + scales == 753910024032);
  json c = golden_file("glm-5.json").at("config");
  c["quantization_config"] = {{"activation_scheme", "dynamic"}, {"fmt", "e4m3"}, {"quant_method", "fp8"},
                              {"weight_block_size", {128, 128}}};
  const json r = plan(c.dump(), {{"checkpoint_total", 753910024032}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["checkpoint"]["unexplained"] == 0);
  int64_t listed = 0;
  for (const auto& e : r["checkpoint"]["extras"])
    if (e["role"] == "quant_scale") listed += e["scalars"].get<int64_t>();
  CHECK(listed == scales);
}

TEST_CASE("GLM-5.1: the published checkpoint's 59,870 tensors and 753,864,139,008 scalars, as derived for GLM-5") {
  // A public listing of zai-org/GLM-5.1's 282 files (tests/golden/models/glm-5.1.json); its config.json is
  // GLM-5's but for transformers_version, so the hand derivation above is the one checked.
  const json r = plan(golden_file("glm-5.1.json").at("config").dump(), {{"checkpoint_total", 753864139008}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["checkpoint"]["unexplained"] == 0);
  const Model m = trace_golden("glm-5.1.json");
  CHECK(m.parameter_count() == total);
  const size_t tensors = expand_copies(m.tensors).size() + expand_copies(m.buffers).size() + expand_copies(m.stored_extras).size();
  CHECK(tensors == 59870);
}
}  // namespace arch_glm_moe_dsa_test

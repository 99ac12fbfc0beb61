// MoE experts stacked in the Model (Tensor::copies, issue 9 point 2): every plan number and the
// checkpoint reconciliation must be what the same model listed one tensor per expert gives. The
// snapshot guard covers the golden models under its option sets; this covers the per-tensor rules
// those sets never reach (FSDP2 dim-0 chunks, ZeRO-3 partitions and persistence, GGUF block
// rounding, tensor-parallel serving shards, the load phase, a safetensors header), on both
// representations of one model.
#include <catch2/catch.hpp>

#include <map>

#include "plan/cards.hpp"
#include "plan/checkpoint.hpp"
#include "plan/options.hpp"
#include "plan/plan.hpp"
#include "report/report.hpp"
#include "plan_test_util.hpp"

namespace stacked_experts_test {

using namespace cardfit;
using nlohmann::json;

namespace {
// The model as it was traced before stacking: each stack one tensor per expert, each extra pointing
// at its own expert's tensor.
Model unstacked(const Model& m) {
  Model e = m;
  e.tensors = expand_copies(m.tensors);
  e.stored_extras = expand_copies(m.stored_extras);
  std::map<std::string, int32_t> index;
  for (size_t i = 0; i < e.tensors.size(); ++i) index[e.tensors[i].name] = int32_t(i);
  for (auto& x : e.stored_extras) {
    if (x.of_tensor < 0) continue;
    const Tensor& of = m.tensors[size_t(x.of_tensor)];
    const int64_t copy = of.copies > 1 ? expert_index(x.tensor.name).index : 0;
    x.of_tensor = index.at(copy_name(of.name, copy));
  }
  return e;
}

// A safetensors header listing every tensor the model class loads and every stored extra.
std::string header_of(const Model& m) {
  json h = json::object();
  for (const auto& t : expand_copies(m.tensors))
    if (t.tied_to.empty()) h[t.name] = {{"dtype", "BF16"}, {"shape", t.shape}};
  for (const auto& x : expand_copies(m.stored_extras)) h[x.tensor.name] = {{"dtype", "F32"}, {"shape", x.tensor.shape}};
  return h.dump();
}

std::string report(const Model& m, const std::string& options) {
  const Options opt = parse_options(options);
  static const Catalog catalog = load_catalog();  // the plan keeps pointers into it
  const Plan p = make_plan(m, opt, catalog);
  const std::optional<Reconciliation> ck = reconcile(m, opt);
  const std::vector<Finding> none;
  return core_report({m, p, ck, none, none, none}) + tensors_report(m, true);
}
}  // namespace

TEST_CASE("stacked experts plan exactly as the same model listed one tensor per expert") {
  const std::vector<std::string> option_sets = {
      R"({"mode":"full","parallel":"fsdp2","gpus":4})",
      R"({"mode":"full","parallel":"zero3","gpus":8})",
      R"({"mode":"lora","parallel":"fsdp2","gpus":2})",
      R"({"mode":"serve","engine":"llamacpp","gguf":"q4_k_m"})",
      R"({"mode":"serve","engine":"llamacpp","gguf":"iq3_m"})",
      R"({"mode":"serve","serve_parallel":"tp","serve_devices":4})",
      R"({"mode":"serve","serve_dtype":"nf4"})",
      R"({"mode":"qlora","load_phase":true})",
      R"({"mode":"full","checkpoint_dtype":"fp32","load_phase":true})",
  };
  // Routed experts by moe_block (qwen3_moe, deepseek_v2), with FP8 scales (DeepSeek-V3's nextn layer
  // copied with its experts), and the Qwen MTP layer's experts split from fused tensors.
  for (const char* golden : {"qwen3-30b-a3b.json", "deepseek-v2-lite.json", "deepseek-v3.json", "qwen3.5-35b-a3b-text.json"}) {
    INFO(golden);
    const Model stacked = trace_golden(golden);
    const Model listed = unstacked(stacked);
    // The golden model has stacks to test (Qwen3.5's are its MTP layer's, split from fused experts).
    REQUIRE(listed.tensors.size() + listed.stored_extras.size() > stacked.tensors.size() + stacked.stored_extras.size());
    CHECK(listed.parameter_count() == stacked.parameter_count());
    for (const auto& o : option_sets) {
      INFO(o);
      CHECK(report(stacked, o) == report(listed, o));
    }
    json with_header = json::object();
    with_header["safetensors_header"] = header_of(stacked);
    const std::string h = with_header.dump();
    const std::optional<Reconciliation> ck = reconcile(stacked, parse_options(h));
    REQUIRE(ck);
    CHECK(ck->missing.empty());
    CHECK(ck->extra.empty());
    CHECK(ck->unexplained == 0);
    CHECK(report(stacked, h) == report(listed, h));
  }
}

TEST_CASE("a name rule that picks some experts of a stack and not others is refused, not planned") {
  json cfg = golden_file("qwen3-30b-a3b.json").at("config");
  cfg["quantization_config"] = {{"quant_method", "fp8"}, {"weight_block_size", {128, 128}},
                                {"modules_to_not_convert", {"model.layers.0.mlp.experts.1."}}};
  const Error e = refusal(cfg);
  CHECK(e.code == ErrorCode::field_inconsistent);
  CHECK(e.path == "quantization_config.modules_to_not_convert");
  CHECK(e.message.find("model.layers.0.mlp.experts.0.gate_proj.weight") != std::string::npos);
  // Naming every expert of a layer (or none) is planned: layer 0's experts stay 16-bit.
  cfg["quantization_config"]["modules_to_not_convert"] = {"model.layers.0.mlp.experts"};
  const Model m = trace_json(cfg);
  CHECK(find_extra(m, "model.layers.0.mlp.experts.5.up_proj.weight_scale_inv") == nullptr);
  CHECK(find_extra(m, "model.layers.1.mlp.experts.5.up_proj.weight_scale_inv") != nullptr);
}

TEST_CASE("the Model holds a layer's experts as one entry per projection") {
  const Model m = trace_golden("deepseek-v3.json");
  // 58 MoE layers × 3 projections stacked over 256 experts (and the nextn layer's scales alike).
  int64_t stacks = 0;
  for (const auto& t : m.tensors)
    if (t.copies > 1) {
      ++stacks;
      CHECK(t.copies == 256);
      CHECK(expert_index(t.name).index == 0);
    }
  CHECK(stacks == 58 * 3);
  CHECK(expanded_size(m.tensors) == 45395);  // the checkpoint's listing (docs/performance.md)
  CHECK(m.tensors.size() == size_t(45395 - 58 * 3 * 255));
  const std::vector<Tensor> listed = expand_copies(m.tensors);
  // Copy-major within a layer: expert 0's gate, up, down, then expert 1's.
  size_t at = 0;
  while (listed[at].name != "model.layers.3.mlp.experts.0.gate_proj.weight") ++at;
  CHECK(listed[at + 1].name == "model.layers.3.mlp.experts.0.up_proj.weight");
  CHECK(listed[at + 2].name == "model.layers.3.mlp.experts.0.down_proj.weight");
  CHECK(listed[at + 3].name == "model.layers.3.mlp.experts.1.gate_proj.weight");
  CHECK(listed[at + 3 * 256].name == "model.layers.3.mlp.shared_experts.gate_proj.weight");
}
}  // namespace stacked_experts_test

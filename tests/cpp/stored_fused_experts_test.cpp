// Quantized checkpoints of models whose class fuses the routed experts into one parameter per
// projection (experts.gate_up_proj [E, 2I, H], experts.down_proj [E, H, I]): the quantizers work on
// nn.Linear modules, so the checkpoint stores every expert's gate, up and down weight by itself,
// quantized (core/arch/expert_parts.hpp). Before this, the fused stacks were skipped and served at
// 16 bits: Qwen3.5-35B-A3B-FP8 came out at 67.9 GB of weights instead of 35.7.
// Published counts for Qwen/Qwen3.6-35B-A3B-FP8 (same architecture and config as Qwen3.5-35B-A3B,
// tests/golden/models/qwen3.5-35b-a3b-text.json), read 2026-12-04:
// - ml-explore/mlx-lm PR 1224: 30,720 per-expert weight tensors, 30,720 per-expert weight_scale_inv,
//   250 non-expert weight_scale_inv; vllm-project/vllm-metal PR 312: 30,970 language-model scales,
//   "one tensor per expert per projection" where the bf16 repo is pre-stacked.
// - 0xBakeer/inference-atlas PR 145: 64,196 tensors, 1,560 of them MTP and 333 the vision tower's.
// - what stays bf16 (a repack stating the official on-disk format, and MaxText's
//   qwen3.5-35b-a3b-fp8.yml "matching official Hugging Face quantization configs"): lm_head,
//   embed_tokens, the norms, mlp.gate, shared_expert_gate and linear_attn's A_log, conv1d, dt_bias,
//   in_proj_a, in_proj_b, norm. The repo's 648-entry modules_to_not_convert list itself was not
//   found, so the list below states those modules by kind.
#include <catch2/catch.hpp>

#include <tuple>

#include "cardfit/planner.hpp"
#include "test_util.hpp"

namespace stored_fused_experts_test {

using nlohmann::json;
using cardfit::ExtraRole;
using cardfit::Shape;
using cardfit::StoredDtype;
using cardfit::stored_dtype_name;

namespace {
// Qwen3.5-35B-A3B's text model: 40 layers (every 4th full attention), 256 experts of gate / up
// [512, 2048] and down [2048, 512].
constexpr int64_t L = 40, E = 256, H = 2048, I = 512;
constexpr int64_t expert_params = L * E * 3 * I * H;
constexpr int64_t expert_scales = L * E * 3 * (I / 128) * (H / 128);  // [4, 16] and [16, 4] a projection

json qwen35(const json& quant) {
  json cfg = golden_file("qwen3.5-35b-a3b-text.json").at("config");
  if (!quant.is_null()) cfg["quantization_config"] = quant;
  return cfg;
}
json fp8(const json& not_convert) {
  return {{"quant_method", "fp8"}, {"fmt", "e4m3"}, {"activation_scheme", "dynamic"}, {"weight_block_size", {128, 128}},
          {"modules_to_not_convert", not_convert}};
}
const json qwen_not_converted = {"lm_head", "embed_tokens", "input_layernorm", "post_attention_layernorm", "q_norm", "k_norm",
                                 "mlp.gate", "shared_expert_gate", "linear_attn.A_log", "linear_attn.conv1d",
                                 "linear_attn.dt_bias", "linear_attn.in_proj_a", "linear_attn.in_proj_b", "linear_attn.norm"};

int64_t serve_weights(const json& cfg) {
  const json r = plan(cfg.dump(), {{"mode", "serve"}});
  REQUIRE(r["ok"] == true);
  return r["plan"]["components"]["weights"].get<int64_t>();
}
bool notes_mention(const cardfit::Model& m, const std::string& text) {
  for (const auto& n : m.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("Qwen3.5-MoE FP8: the checkpoint's tensor counts as published, experts one by one") {
  const cardfit::Model m = trace_json(qwen35(fp8(qwen_not_converted)));
  int64_t expert_weights = 0, expert_scale_tensors = 0, other_scales = 0, mtp = 0, main = 0;
  for (const auto& x : cardfit::expand_copies(m.stored_extras)) {
    if (x.role == ExtraRole::mtp || x.of_mtp) {
      ++mtp;
      continue;
    }
    const bool expert = x.tensor.name.find(".mlp.experts.") != std::string::npos;
    if (x.role == ExtraRole::quant_blocks) {
      REQUIRE(expert);
      CHECK(x.dtype == StoredDtype::f8_e4m3);
      ++expert_weights;
    } else if (x.role == ExtraRole::quant_scale) {
      ++(expert ? expert_scale_tensors : other_scales);
    }
  }
  CHECK(expert_weights == 30720);
  CHECK(expert_scale_tensors == 30720);
  CHECK(other_scales == 250);
  // The language model's stored tensors: its own but the 80 fused stacks, plus what stands for them.
  for (const auto& t : cardfit::expand_copies(m.tensors)) main += t.expert_axes == cardfit::ExpertAxes::none;
  CHECK(main + expert_weights + expert_scale_tensors + other_scales == 64196 - 1560 - 333);
  CHECK(mtp == 1560);
  // Per-expert names and shapes, the fused parameter named as what each replaces.
  const cardfit::StoredExtra* down = find_extra(m, "model.layers.7.mlp.experts.255.down_proj.weight");
  REQUIRE(down);
  CHECK(down->tensor.shape == Shape{H, I});
  CHECK(down->replaces == "model.layers.7.mlp.experts.down_proj");
  const cardfit::StoredExtra* scale = find_extra(m, "model.layers.7.mlp.experts.3.up_proj.weight_scale_inv");
  REQUIRE(scale);
  CHECK(scale->tensor.shape == Shape{I / 128, H / 128});
}

TEST_CASE("FP8 block scales: Qwen's checkpoints store them in bfloat16, DeepSeek's in float32, vLLM holds float32") {
  const cardfit::Model qwen = trace_json(qwen35(fp8(qwen_not_converted)));
  json v3 = golden_file("deepseek-v3.json").at("config");
  REQUIRE(v3.contains("quantization_config"));
  const cardfit::Model deepseek = trace_json(v3);
  int64_t qwen_scales = 0, deepseek_scales = 0;
  for (const auto& [m, count, stored] : {std::tuple{&qwen, &qwen_scales, StoredDtype::bf16},
                                         std::tuple{&deepseek, &deepseek_scales, StoredDtype::f32}})
    for (const auto& x : m->stored_extras)
      if (x.role == ExtraRole::quant_scale && x.tensor.name.find("weight_scale_inv") != std::string::npos) {
        CHECK(x.dtype == stored);
        CHECK(x.served_dtype == StoredDtype::f32);
        ++*count;
      }
  CHECK(qwen_scales > 0);
  CHECK(deepseek_scales > 0);
  // The checkpoint's bytes count each Qwen scale at two bytes: the scalars (and the served bytes,
  // checked above at four bytes a scale) do not move.
  const json r = plan(qwen35(fp8(qwen_not_converted)).dump(), {{"checkpoint_total", 40000000000}});  // a total lists the extras
  REQUIRE(r["ok"] == true);
  bool bf16_listed = false;
  for (const auto& e : r["checkpoint"]["extras"])
    if (e["role"] == "quant_scale") bf16_listed = e["dtypes"] == json::array({"BF16"});
  CHECK(bf16_listed);
}

TEST_CASE("Qwen3.5-MoE FP8 serves its experts at one byte plus a float32 scale per 128 x 128 block") {
  // The same checkpoint with the experts left unconverted differs by the experts alone.
  json keep = qwen_not_converted;
  keep.push_back("mlp.experts");
  const int64_t fp8_experts = serve_weights(qwen35(fp8(qwen_not_converted)));
  const int64_t bf16_experts = serve_weights(qwen35(fp8(keep)));
  CHECK(bf16_experts - fp8_experts == expert_params * 2 - (expert_params + expert_scales * 4));
  CHECK(fp8_experts < 36'000'000'000);  // the published repo is 37.49 GB with its MTP layer and tower
}

TEST_CASE("Qwen3.5-MoE FP8: a header in the per-expert layout matches every name, nothing unexplained") {
  // Four layers and four experts keep the header small; every name as the per-expert checkpoint has it.
  json cfg = qwen35(fp8(qwen_not_converted));
  cfg["num_hidden_layers"] = 4;
  cfg["num_experts"] = 4;
  cfg["num_experts_per_tok"] = 2;
  cfg["mtp_num_hidden_layers"] = 0;
  const cardfit::Model m = trace_json(cfg);
  json header = json::object();
  for (const auto& t : cardfit::expand_copies(m.tensors)) {
    if (t.expert_axes != cardfit::ExpertAxes::none) continue;  // stored one expert at a time
    header[t.name] = {{"dtype", "BF16"}, {"shape", t.shape}, {"data_offsets", {0, 1}}};
  }
  for (const auto& x : cardfit::expand_copies(m.stored_extras))  // the attention's and shared expert's scales
    if (x.tensor.name.find(".mlp.experts.") == std::string::npos)
      header[x.tensor.name] = {{"dtype", stored_dtype_name(x.dtype)}, {"shape", x.tensor.shape}, {"data_offsets", {0, 1}}};
  int64_t scalars = 0;
  for (int l = 0; l < 4; ++l)
    for (int e = 0; e < 4; ++e)
      for (const char* p : {"gate_proj", "up_proj", "down_proj"}) {
        const std::string stem = "model.layers." + std::to_string(l) + ".mlp.experts." + std::to_string(e) + "." + p;
        const bool down = std::string(p) == "down_proj";
        header[stem + ".weight"] = {{"dtype", "F8_E4M3"}, {"shape", down ? Shape{H, I} : Shape{I, H}}, {"data_offsets", {0, 1}}};
        header[stem + ".weight_scale_inv"] = {{"dtype", "BF16"}, {"shape", down ? Shape{16, 4} : Shape{4, 16}}, {"data_offsets", {0, 1}}};
        scalars += I * H + 64;
      }
  const json r = plan(cfg.dump(), {{"safetensors_header", header.dump()}});
  REQUIRE(r["ok"] == true);
  const json& c = r["checkpoint"];
  CHECK(c["missing"].empty());
  CHECK(c["extra"].empty());
  CHECK(c["shape_mismatches"].empty());
  CHECK(c["unexplained"] == 0);
  CHECK(scalars == 4 * 4 * 3 * (I * H + 64));
}

TEST_CASE("Qwen3-VL-MoE FP8: input-major stacks split into [out, in] per-expert weights") {
  // tests/golden/models/qwen3-vl-30b-a3b-text.json: gate_up_proj [128, 2048, 1536], down_proj [128, 768, 2048].
  json cfg = golden_file("qwen3-vl-30b-a3b-text.json").at("config");
  cfg["quantization_config"] = fp8({"lm_head", "mlp.gate"});
  const cardfit::Model m = trace_json(cfg);
  const cardfit::StoredExtra* gate = find_extra(m, "model.layers.0.mlp.experts.127.gate_proj.weight");
  const cardfit::StoredExtra* down = find_extra(m, "model.layers.47.mlp.experts.0.down_proj.weight");
  REQUIRE(gate);
  REQUIRE(down);
  CHECK(gate->tensor.shape == Shape{768, 2048});
  CHECK(down->tensor.shape == Shape{2048, 768});
  CHECK(find_extra(m, "model.layers.0.mlp.experts.0.gate_proj.weight_scale_inv")->tensor.shape == Shape{6, 16});
  CHECK(find_extra(m, "model.layers.0.mlp.experts.0.down_proj.weight_scale_inv")->tensor.shape == Shape{16, 6});
}

TEST_CASE("GPTQ and compressed-tensors pack a fused model's experts one by one") {
  const int64_t bf16 = serve_weights(qwen35(nullptr));
  // GPTQ 4-bit, group 128, the experts only (everything else named as not converted).
  const json gptq = {{"quant_method", "gptq"}, {"bits", 4}, {"group_size", 128},
                     {"modules_to_not_convert", {"self_attn", "linear_attn", "shared_expert"}}};
  const cardfit::Model g = trace_json(qwen35(gptq));
  const cardfit::StoredExtra* qw = find_extra(g, "model.layers.0.mlp.experts.9.down_proj.qweight");
  REQUIRE(qw);
  CHECK(qw->tensor.shape == Shape{I * 4 / 32, H});
  CHECK(qw->replaces == "model.layers.0.mlp.experts.down_proj");
  // Per expert and projection [out, in]: qweight in·out/8 int32, qzeros ceil(in/128) × out/8 int32,
  // scales ceil(in/128) × out F16, g_idx in int32.
  auto gptq_bytes = [](int64_t out, int64_t in) {
    return in * out / 8 * 4 + (in / 128) * (out / 8) * 4 + (in / 128) * out * 2 + in * 4;
  };
  const int64_t experts = L * E * (2 * gptq_bytes(I, H) + gptq_bytes(H, I));
  CHECK(serve_weights(qwen35(gptq)) == bf16 - expert_params * 2 + experts);

  // compressed-tensors FP8, a BF16 channel scale per output row, the experts only.
  const json ct = {{"quant_method", "compressed-tensors"}, {"format", "float-quantized"},
                   {"config_groups", {{"group_0", {{"targets", {"re:.*mlp\\.experts.*"}},
                                                   {"weights", {{"num_bits", 8}, {"type", "float"}, {"strategy", "channel"},
                                                                {"symmetric", true}, {"dynamic", false}}}}}}}};
  const cardfit::Model c = trace_json(qwen35(ct));
  const cardfit::StoredExtra* w = find_extra(c, "model.layers.5.mlp.experts.0.gate_proj.weight");
  REQUIRE(w);
  CHECK(w->dtype == StoredDtype::f8_e4m3);
  CHECK(find_extra(c, "model.layers.5.mlp.experts.0.gate_proj.weight_scale")->tensor.shape == Shape{I, 1});
  CHECK(serve_weights(qwen35(ct)) == bf16 - expert_params * 2 + expert_params + L * E * (2 * I + H) * 2);
}

TEST_CASE("a rule that quantizes part of a fused stack is refused, unnamed fused experts are said to be 16-bit") {
  // "gate_proj" spares every expert's gate but not its up: both are one parameter in the model class.
  const json r = plan(qwen35(fp8({"lm_head", "gate_proj"})).dump());
  REQUIRE(r["ok"] == false);
  CHECK(r["error"]["code"] == "config.field_inconsistent");
  CHECK(r["error"]["path"] == "quantization_config.modules_to_not_convert");

  // GraniteMoE's input_linear / output_linear: no per-expert checkpoint names are known.
  json granite = golden_file("granite-3.0-1b-a400m-base.json").at("config");
  granite["quantization_config"] = fp8({"lm_head"});
  const cardfit::Model m = trace_json(granite);
  CHECK(notes_mention(m, "fused experts model.layers.0.block_sparse_moe.input_linear.weight and counts them at 16 bits"));
}

TEST_CASE("serve_dtype quantizes fused experts where the engine does: fp8 and GPTQ everywhere, bitsandbytes in vLLM") {
  // Before, serve_dtype quantized nn.Linear weights only: Qwen3.5-35B-A3B at fp8 came out at 67.9 GB.
  const json cfg = qwen35(nullptr);
  auto weights = [&](const json& options) {
    const json r = plan(cfg.dump(), options);
    REQUIRE(r["ok"] == true);
    return r["plan"]["components"]["weights"].get<int64_t>();
  };
  int64_t linears = 0;  // the nn.Linear weights serve_dtype quantized before (the head excluded)
  for (const auto& t : trace_json(cfg).tensors)
    if (t.linear && t.role != cardfit::Role::head && t.tied_to.empty()) linears += t.count();
  const int64_t bf16 = weights({{"mode", "serve"}});
  CHECK(bf16 - weights({{"mode", "serve"}, {"serve_dtype", "fp8"}}) == linears + expert_params);  // one byte each
  // LLM.int8 rows: one fp32 scale per output row, gate and up I rows, down H rows an expert.
  const int64_t hf = weights({{"mode", "serve"}, {"serve_dtype", "int8"}});
  const int64_t vllm = weights({{"mode", "serve"}, {"serve_dtype", "int8"}, {"engine", "vllm"}});
  CHECK(hf - vllm == expert_params * 2 - (expert_params + L * E * (2 * I + H) * 4));
}

TEST_CASE("a finding says when bitsandbytes leaves bare-parameter experts at 16 bits, and only then") {
  auto finding = [](const json& cfg, const json& options) -> std::string {
    const json r = plan(cfg.dump(), options);
    REQUIRE(r["ok"] == true);
    for (const auto& c : r["checks"])
      if (c["id"] == "experts-not-quantized") return c["message"].get<std::string>();
    return "";
  };
  const json q = qwen35(nullptr);
  const std::string qlora = finding(q, {{"mode", "qlora"}});
  CHECK(qlora.find("The routed experts (" + std::to_string(expert_params) + " of ") != std::string::npos);
  CHECK(qlora.find("QLoRA's 4-bit quantization") != std::string::npos);
  CHECK_FALSE(finding(q, {{"mode", "serve"}, {"serve_dtype", "nf4"}}).empty());
  CHECK(finding(q, {{"mode", "serve"}, {"serve_dtype", "nf4"}, {"engine", "vllm"}}).empty());  // FusedMoE quantizes them
  CHECK(finding(q, {{"mode", "serve"}, {"serve_dtype", "fp8"}}).empty());
  CHECK(finding(q, {{"mode", "lora"}}).empty());
  // Mixtral's experts are nn.Linear modules: bitsandbytes quantizes them.
  CHECK(finding(golden_file("mixtral-8x7b-v0.1.json").at("config"), {{"mode", "qlora"}}).empty());
}
}  // namespace stored_fused_experts_test

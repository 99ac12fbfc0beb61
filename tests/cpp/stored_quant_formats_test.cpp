// compressed-tensors and bitsandbytes checkpoints as published: the tensors each converted linear
// stores, the reconciled totals and the served bytes, derived here by hand from the libraries' code
// (compressed-tensors initialize.py and compressors/, bitsandbytes Linear4bit / Linear8bitLt
// _save_to_state_dict and QuantState.as_dict; see core/arch/stored_compressed_tensors.cpp and
// stored_bitsandbytes.cpp) over Llama-3-8B (tests/golden/models/meta-llama-3-8b.json).
// The quantization_configs are the ones llm-compressor writes for compressed-tensors' preset schemes
// (quantization/quant_scheme.py FP8, FP8_DYNAMIC, NVFP4, W4A16, read 2026-12-01) and the one
// transformers' BitsAndBytesConfig writes for unsloth's bnb-4bit repos (nf4, double quantization,
// bfloat16). No hub total for these repos was found in the searchable sources, so every total here
// is derived by hand, not quoted.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <set>

#include "arch/stored_bitsandbytes.hpp"
#include "cardfit/planner.hpp"
#include "plan_test_util.hpp"

namespace stored_quant_formats_test {

using nlohmann::json;
using cardfit::StoredDtype;
using cardfit::stored_dtype_name;

namespace {
// Llama-3-8B: 32 layers of q [4096, 4096], k and v [1024, 4096], o [4096, 4096], gate and up
// [14336, 4096], down [4096, 14336]; the rest (embeddings, untied head, norms) stays BF16.
constexpr int64_t L = 32, H = 4096, KV = 1024, I = 14336;
constexpr int64_t total = 8030261248;  // the golden's expected total
constexpr int64_t linear_per_layer = 2 * H * H + 2 * KV * H + 3 * I * H;
constexpr int64_t linears = L * linear_per_layer;
constexpr int64_t rest = total - linears;
constexpr int64_t outs_per_layer = H + KV + KV + H + I + I + H;  // one channel scale per output row
constexpr int64_t modules = 7 * L;

json with_quant(const json& q) {
  json cfg = golden_file("meta-llama-3-8b.json").at("config");
  cfg["quantization_config"] = q;
  return cfg;
}
json ct(const json& group, const json& extra = json::object()) {
  json q = {{"quant_method", "compressed-tensors"}, {"config_groups", {{"group_0", group}}}, {"ignore", {"lm_head"}},
            {"quantization_status", "compressed"}};
  q.update(extra);
  return q;
}
const json fp8_dynamic = {{"targets", {"Linear"}},
                          {"weights", {{"num_bits", 8}, {"type", "float"}, {"strategy", "channel"}, {"symmetric", true}, {"dynamic", false}}},
                          {"input_activations", {{"num_bits", 8}, {"type", "float"}, {"strategy", "token"}, {"symmetric", true}, {"dynamic", true}}}};
const json fp8_static = {{"targets", {"Linear"}},
                         {"weights", {{"num_bits", 8}, {"type", "float"}, {"strategy", "tensor"}, {"symmetric", true}, {"dynamic", false}}},
                         {"input_activations", {{"num_bits", 8}, {"type", "float"}, {"strategy", "tensor"}, {"symmetric", true}, {"dynamic", false}}}};
const json nvfp4 = {{"targets", {"Linear"}},
                    {"weights", {{"num_bits", 4}, {"type", "float"}, {"strategy", "tensor_group"}, {"group_size", 16}, {"symmetric", true},
                                 {"dynamic", false}, {"scale_dtype", "torch.float8_e4m3fn"}}},
                    {"input_activations", {{"num_bits", 4}, {"type", "float"}, {"strategy", "tensor_group"}, {"group_size", 16},
                                           {"symmetric", true}, {"dynamic", "local"}}}};
const json w4a16 = {{"targets", {"Linear"}},
                    {"weights", {{"num_bits", 4}, {"type", "int"}, {"strategy", "group"}, {"group_size", 128}, {"symmetric", true}, {"dynamic", false}}}};
const json bnb_nf4 = {{"quant_method", "bitsandbytes"}, {"_load_in_4bit", true}, {"_load_in_8bit", false}, {"load_in_4bit", true},
                      {"load_in_8bit", false}, {"bnb_4bit_compute_dtype", "bfloat16"}, {"bnb_4bit_quant_storage", "uint8"},
                      {"bnb_4bit_quant_type", "nf4"}, {"bnb_4bit_use_double_quant", true}, {"llm_int8_skip_modules", nullptr},
                      {"llm_int8_threshold", 6.0}, {"llm_int8_has_fp16_weight", false}, {"llm_int8_enable_fp32_cpu_offload", false}};

const cardfit::StoredExtra* extra(const cardfit::Model& m, const std::string& name) { return find_extra(m, name); }
json plan_with(const json& cfg, const json& options) { return plan(cfg.dump(), options); }
}  // namespace

TEST_CASE("Llama-3-8B's linears are what the golden says (the counts below build on them)") {
  REQUIRE(linear_per_layer == 218103808);
  REQUIRE(rest == 2 * 128256 * H + (2 * L + 1) * H);  // embed, head, two norms a layer and the final one
}

TEST_CASE("compressed-tensors FP8_DYNAMIC: FP8 weights as themselves, a BF16 channel scale each, no input scale") {
  const cardfit::Model m = trace_json(with_quant(ct(fp8_dynamic, {{"format", "float-quantized"}})));
  const auto* s = extra(m, "model.layers.0.mlp.down_proj.weight_scale");
  REQUIRE(s);
  CHECK(s->tensor.shape == cardfit::Shape{H, 1});
  CHECK(s->dtype == StoredDtype::bf16);  // the weight's dtype (torch_dtype bfloat16)
  CHECK(s->of_tensor_dtype == StoredDtype::f8_e4m3);
  CHECK_FALSE(extra(m, "model.layers.0.mlp.down_proj.input_scale"));  // dynamic: nothing stored
  CHECK_FALSE(extra(m, "lm_head.weight_scale"));                      // ignored
  CHECK(m.stored_extras.size() == size_t(modules));
  // The file: every parameter plus one scale per output row.
  const int64_t stored = total + L * outs_per_layer;
  REQUIRE(stored == 8031637504);
  const json r = plan_with(with_quant(ct(fp8_dynamic)), {{"checkpoint_total", stored}});
  REQUIRE(r["ok"] == true);
  CHECK(r["checkpoint"]["unexplained"] == 0);
  // Served as stored: one byte a linear weight, two a scale and every other parameter.
  const json s2 = plan_with(with_quant(ct(fp8_dynamic)), {{"mode", "serve"}});
  CHECK(s2["plan"]["components"]["weights"] == linears + 2 * L * outs_per_layer + 2 * rest);
  CHECK(s2["plan"]["component_labels"]["weights"].get<std::string>().find("as stored") != std::string::npos);
}

TEST_CASE("compressed-tensors FP8 static: a [1] weight_scale and a [1] input_scale per linear") {
  const cardfit::Model m = trace_json(with_quant(ct(fp8_static)));
  const auto* w = extra(m, "model.layers.5.self_attn.k_proj.weight_scale");
  const auto* in = extra(m, "model.layers.5.self_attn.k_proj.input_scale");
  REQUIRE(w);
  REQUIRE(in);
  CHECK(w->tensor.shape == cardfit::Shape{1});
  CHECK(in->tensor.shape == cardfit::Shape{1});
  const json r = plan_with(with_quant(ct(fp8_static)), {{"checkpoint_total", total + 2 * modules}});
  CHECK(r["checkpoint"]["unexplained"] == 0);
}

TEST_CASE("compressed-tensors NVFP4: U8 weight_packed two values a byte, F8 scales per 16, two F32 global scales") {
  const cardfit::Model m = trace_json(with_quant(ct(nvfp4, {{"format", "nvfp4-pack-quantized"}})));
  const std::string p = "model.layers.3.mlp.gate_proj.";
  REQUIRE(extra(m, p + "weight_packed"));
  CHECK(extra(m, p + "weight_packed")->tensor.shape == cardfit::Shape{I, H / 2});
  CHECK(extra(m, p + "weight_packed")->dtype == StoredDtype::u8);
  CHECK(extra(m, p + "weight_packed")->replaces == p + "weight");
  CHECK(extra(m, p + "weight_scale")->tensor.shape == cardfit::Shape{I, H / 16});
  CHECK(extra(m, p + "weight_scale")->dtype == StoredDtype::f8_e4m3);
  CHECK(extra(m, p + "weight_global_scale")->tensor.shape == cardfit::Shape{1});
  CHECK(extra(m, p + "input_global_scale")->dtype == StoredDtype::f32);
  CHECK_FALSE(extra(m, p + "input_scale"));  // dynamic "local": only the global scale is static
  // Header counting: the packed bytes stand in for the weights.
  const int64_t stored = rest + linears / 2 + linears / 16 + 2 * modules;
  REQUIRE(stored == 4976808384);
  const json r = plan_with(with_quant(ct(nvfp4)), {{"checkpoint_total", stored}});
  REQUIRE(r["ok"] == true);
  CHECK(r["checkpoint"]["unexplained"] == 0);
  CHECK(r["checkpoint"]["packed_counting"] == "stored");
  CHECK(r["checkpoint"]["packed_replaced"] == linears);
  // A count of the FP4 values instead (two a byte) reconciles as well.
  const json v = plan_with(with_quant(ct(nvfp4)), {{"checkpoint_total", stored + linears / 2}});
  CHECK(v["checkpoint"]["unexplained"] == 0);
  CHECK(v["checkpoint"]["packed_counting"] == "values");
  const json s = plan_with(with_quant(ct(nvfp4)), {{"mode", "serve"}});
  CHECK(s["plan"]["components"]["weights"] == linears / 2 + linears / 16 + 4 * 2 * modules + 2 * rest);
}

TEST_CASE("compressed-tensors W4A16: I32 weight_packed eight values a word, BF16 group scales, I64 weight_shape") {
  const cardfit::Model m = trace_json(with_quant(ct(w4a16, {{"format", "pack-quantized"}})));
  const std::string p = "model.layers.31.mlp.down_proj.";
  REQUIRE(extra(m, p + "weight_packed"));
  CHECK(extra(m, p + "weight_packed")->tensor.shape == cardfit::Shape{H, I * 4 / 32});
  CHECK(extra(m, p + "weight_packed")->dtype == StoredDtype::i32);
  CHECK(extra(m, p + "weight_scale")->tensor.shape == cardfit::Shape{H, I / 128});
  CHECK(extra(m, p + "weight_shape")->tensor.shape == cardfit::Shape{2});
  CHECK(extra(m, p + "weight_shape")->dtype == StoredDtype::i64);
  CHECK_FALSE(extra(m, p + "weight_zero_point"));  // symmetric: dropped on compression
  const int64_t stored = rest + linears / 8 + linears / 128 + 2 * modules;
  const json r = plan_with(with_quant(ct(w4a16)), {{"checkpoint_total", stored}});
  CHECK(r["checkpoint"]["unexplained"] == 0);
  const json s = plan_with(with_quant(ct(w4a16)), {{"mode", "serve"}});
  CHECK(s["plan"]["components"]["weights"] == 4 * (linears / 8) + 2 * (linears / 128) + 8 * 2 * modules + 2 * rest);
}

TEST_CASE("compressed-tensors asymmetric W4A16: the zero point packed along the output rows") {
  json g = w4a16;
  g["weights"]["symmetric"] = false;
  const cardfit::Model m = trace_json(with_quant(ct(g)));
  const auto* zp = extra(m, "model.layers.0.self_attn.k_proj.weight_zero_point");
  REQUIRE(zp);
  CHECK(zp->tensor.shape == cardfit::Shape{KV * 4 / 32, H / 128});
  CHECK(zp->dtype == StoredDtype::i32);
}

TEST_CASE("compressed-tensors targets rank as the library does: names, then regexes, then classes, and ignore wins") {
  json q = {{"quant_method", "compressed-tensors"},
            {"config_groups", {{"group_0", fp8_dynamic}, {"group_1", w4a16}}},
            {"ignore", {"lm_head", "re:model\\.layers\\.0\\."}}};
  q["config_groups"]["group_1"]["targets"] = {"re:.*mlp\\..*_proj$"};
  q["config_groups"]["group_0"]["format"] = "float-quantized";
  q["config_groups"]["group_1"]["format"] = "pack-quantized";
  const cardfit::Model m = trace_json(with_quant(q));
  CHECK(extra(m, "model.layers.1.mlp.up_proj.weight_packed"));        // the regex beats the class
  CHECK(extra(m, "model.layers.1.self_attn.q_proj.weight_scale"));     // only "Linear" matches attention
  CHECK_FALSE(extra(m, "model.layers.1.self_attn.q_proj.weight_packed"));
  CHECK_FALSE(extra(m, "model.layers.0.mlp.up_proj.weight_packed"));   // ignored
  CHECK_FALSE(extra(m, "model.layers.0.self_attn.q_proj.weight_scale"));
  // re.match anchors at the start only: "mlp" alone does not match a full name.
  json q2 = ct(w4a16);
  q2["config_groups"]["group_0"]["targets"] = {"re:mlp"};
  CHECK(trace_json(with_quant(q2)).stored_extras.empty());
}

TEST_CASE("compressed-tensors kv_cache_scheme: k_scale and v_scale on every attention module") {
  const cardfit::Model m = trace_json(with_quant(ct(fp8_dynamic, {{"kv_cache_scheme",
      {{"num_bits", 8}, {"type", "float"}, {"strategy", "tensor"}, {"symmetric", true}, {"dynamic", false}}}})));
  CHECK(extra(m, "model.layers.7.self_attn.k_scale"));
  CHECK(extra(m, "model.layers.7.self_attn.v_scale"));
  CHECK(m.stored_extras.size() == size_t(modules + 2 * L));
}

TEST_CASE("compressed-tensors: a bad regex is a coded error naming the field, an unsized format lists nothing") {
  json q = ct(w4a16);
  q["ignore"] = {"re:("};
  const json r = plan_with(with_quant(q), json::object());
  REQUIRE(r["ok"] == false);
  CHECK(r["error"]["code"] == "config.field_range");
  CHECK(r["error"]["path"] == "$.quantization_config.ignore");
  const cardfit::Model m = trace_json(with_quant(ct(w4a16, {{"format", "marlin-24"}})));
  CHECK(m.stored_extras.empty());
  CHECK_FALSE(m.stored_weights);
  bool said = false;
  for (const auto& n : m.notes) said = said || n.find("marlin-24") != std::string::npos;
  CHECK(said);
}

TEST_CASE("bitsandbytes nf4 with double quantization: the tensors Linear4bit saves, the JSON measured by hand") {
  const cardfit::Model m = trace_json(with_quant(bnb_nf4));
  const std::string w = "model.layers.0.self_attn.q_proj.weight";
  const int64_t n = H * H, blocks = n / 64;
  REQUIRE(extra(m, w));
  CHECK(extra(m, w)->tensor.shape == cardfit::Shape{n / 2, 1});
  CHECK(extra(m, w)->dtype == StoredDtype::u8);
  CHECK(extra(m, w + ".absmax")->tensor.shape == cardfit::Shape{blocks});
  CHECK(extra(m, w + ".absmax")->dtype == StoredDtype::u8);  // double quantized
  CHECK(extra(m, w + ".quant_map")->tensor.shape == cardfit::Shape{16});
  CHECK(extra(m, w + ".nested_absmax")->tensor.shape == cardfit::Shape{(blocks + 255) / 256});
  CHECK(extra(m, w + ".nested_quant_map")->tensor.shape == cardfit::Shape{256});
  // json.dumps of the packed dict, written out by hand; "0.0" is the shortest nested_offset.
  const char* text = "{\"quant_type\": \"nf4\", \"blocksize\": 64, \"dtype\": \"bfloat16\", \"shape\": [4096, 4096], "
                     "\"nested_blocksize\": 256, \"nested_dtype\": \"float32\", \"nested_offset\": 0.0}";
  const auto* js = extra(m, w + ".quant_state.bitsandbytes__nf4");
  REQUIRE(js);
  CHECK(js->tensor.shape == cardfit::Shape{int64_t(std::strlen(text))});
  CHECK(js->variable_max == 19);  // up to 22 characters of offset
  CHECK(cardfit::bnb_quant_state_json("nf4", 64, "bfloat16", {4096, 4096}, true, "0.0") == text);
  CHECK_FALSE(extra(m, "lm_head.weight.absmax"));  // the head stays 16-bit
}

TEST_CASE("bitsandbytes nf4: totals reconcile, the offsets' digits a named, bounded remainder") {
  const cardfit::Model m = trace_json(with_quant(bnb_nf4));
  // Per linear [out, in], n = out × in: n / 2 bytes, n / 64 absmax bytes, 16 + 256 code floats,
  // ceil(n / 64 / 256) nested absmax, and the JSON (least length: the 3-character offset).
  const int64_t shapes[7][2] = {{H, H}, {KV, H}, {KV, H}, {H, H}, {I, H}, {I, H}, {H, I}};
  int64_t stored = rest, json_least = 0;
  for (const auto& s : shapes) {
    const int64_t n = s[0] * s[1];
    const std::string digits = std::to_string(s[0]) + std::to_string(s[1]);
    // The shape's digits are all that varies in the text: 148 characters besides them at "0.0".
    const int64_t js = 148 + int64_t(digits.size());
    stored += L * (n / 2 + n / 64 + 16 + 256 + (n / 64 + 255) / 256 + js);
    json_least += L * js;
  }
  // The q_proj text of the test above, whose shape has 8 digits.
  REQUIRE(int64_t(std::strlen("{\"quant_type\": \"nf4\", \"blocksize\": 64, \"dtype\": \"bfloat16\", \"shape\": [4096, 4096], "
                              "\"nested_blocksize\": 256, \"nested_dtype\": \"float32\", \"nested_offset\": 0.0}")) == 148 + 8);
  REQUIRE(json_least > 0);
  REQUIRE(stored == 4650174176);
  const json exact = plan_with(with_quant(bnb_nf4), {{"checkpoint_total", stored}});
  REQUIRE(exact["ok"] == true);
  CHECK(exact["checkpoint"]["unexplained"] == 0);
  CHECK(exact["checkpoint"]["variable_tensors"] == modules);
  CHECK(exact["checkpoint"]["variable_max"] == 19 * modules);
  CHECK(exact["checkpoint"]["variable_assigned"] == 0);
  // Offsets written with more digits: explained up to the bound, named; past it, unexplained.
  const json more = plan_with(with_quant(bnb_nf4), {{"checkpoint_total", stored + 15 * modules}});
  CHECK(more["checkpoint"]["unexplained"] == 0);
  CHECK(more["checkpoint"]["variable_assigned"] == 15 * modules);
  const json past = plan_with(with_quant(bnb_nf4), {{"checkpoint_total", stored + 19 * modules + 5}});
  CHECK(past["checkpoint"]["unexplained"] == 5);
  (void)m;
}

TEST_CASE("bitsandbytes nf4: a header in the saved layout matches by name, the JSON length read from it") {
  const cardfit::Model m = trace_json(with_quant(bnb_nf4));
  json header = {{"__metadata__", {{"format", "pt"}}}};
  for (const auto& t : m.tensors) header[t.name] = {{"dtype", "BF16"}, {"shape", t.shape}, {"data_offsets", {0, 1}}};
  int64_t scalars = 0;
  for (const auto& x : m.stored_extras) {
    cardfit::Shape s = x.tensor.shape;
    if (x.variable_max > 0) s[0] += 9;  // an offset of 12 characters, "0.0123456789"
    header[x.tensor.name] = {{"dtype", stored_dtype_name(x.dtype)}, {"shape", s}, {"data_offsets", {0, 1}}};
  }
  for (const auto& [name, v] : header.items())
    if (name != "__metadata__") scalars += cardfit::numel(v["shape"].get<cardfit::Shape>());
  const json r = plan_with(with_quant(bnb_nf4), {{"safetensors_header", header.dump()}});
  REQUIRE(r["ok"] == true);
  CHECK(r["checkpoint"]["scalars"] == scalars);
  CHECK(r["checkpoint"]["unexplained"] == 0);
  CHECK(r["checkpoint"]["shape_mismatches"].empty());
  CHECK(r["checkpoint"]["missing"].empty());
  CHECK(r["checkpoint"]["extra"].empty());
  CHECK_FALSE(r["checkpoint"].contains("variable_tensors"));  // the header states every length
  REQUIRE(group(r["checkpoint"], "quant_state"));
  CHECK((*group(r["checkpoint"], "quant_state"))["tensors"] == modules);
}

TEST_CASE("bitsandbytes nf4 serves as vLLM holds it: packed bytes, absmax dequantized to F32, the codes") {
  const json s = plan_with(with_quant(bnb_nf4), {{"mode", "serve"}});
  REQUIRE(s["ok"] == true);
  // Per linear: n / 2 bytes + 4 × n / 64 (absmax as float32) + 4 × 16 (quant_map); nested tensors and
  // the JSON are not held.
  CHECK(s["plan"]["components"]["weights"] == linears / 2 + 4 * (linears / 64) + 64 * modules + 2 * rest);
  // Without double quantization the absmax is stored as F32 already: the same bytes served.
  json single = bnb_nf4;
  single["bnb_4bit_use_double_quant"] = false;
  const json s1 = plan_with(with_quant(single), {{"mode", "serve"}});
  CHECK(s1["plan"]["components"]["weights"] == s["plan"]["components"]["weights"]);
  const cardfit::Model m = trace_json(with_quant(single));
  CHECK(extra(m, "model.layers.0.mlp.up_proj.weight.absmax")->dtype == StoredDtype::f32);
  CHECK(extra(m, "model.layers.0.mlp.up_proj.weight.quant_state.bitsandbytes__nf4")->variable_max == 0);
}

TEST_CASE("bitsandbytes 8-bit: int8 weights as themselves, an F32 SCB per row, a weight_format byte") {
  json q = bnb_nf4;
  q["load_in_4bit"] = false;
  q["_load_in_4bit"] = false;
  q["load_in_8bit"] = true;
  q["_load_in_8bit"] = true;
  q["llm_int8_skip_modules"] = {"mlp.down_proj"};
  const cardfit::Model m = trace_json(with_quant(q));
  const auto* scb = extra(m, "model.layers.2.self_attn.o_proj.SCB");
  REQUIRE(scb);
  CHECK(scb->tensor.shape == cardfit::Shape{H});
  CHECK(scb->of_tensor_dtype == StoredDtype::i8);
  CHECK(extra(m, "model.layers.2.self_attn.o_proj.weight_format")->tensor.count() == 1);
  CHECK_FALSE(extra(m, "model.layers.2.mlp.down_proj.SCB"));  // skipped
  const int64_t down = L * H * I;
  const json r = plan_with(with_quant(q), {{"checkpoint_total", total + L * (outs_per_layer - H) + (modules - L)}});
  CHECK(r["checkpoint"]["unexplained"] == 0);
  const json s = plan_with(with_quant(q), {{"mode", "serve"}});
  CHECK(s["plan"]["components"]["weights"] == (linears - down) + 4 * L * (outs_per_layer - H) + 2 * (rest + down));
}

TEST_CASE("training a compressed-tensors or bitsandbytes checkpoint says what the base becomes") {
  for (const auto& [q, word] : {std::pair<json, std::string>{ct(nvfp4), "run_compressed=False"},
                                std::pair<json, std::string>{bnb_nf4, "Linear4bit"}}) {
    const json r = plan_with(with_quant(q), {{"mode", "lora"}});
    REQUIRE(r["ok"] == true);
    const json* a = nullptr;
    for (const auto& x : r["assumptions"])
      if (x["id"] == "stored_format") a = &x;
    REQUIRE(a);
    CHECK((*a)["text"].get<std::string>().find(word) != std::string::npos);
    CHECK((*a)["text"].get<std::string>().find("holds them as stored") != std::string::npos);
  }
}

TEST_CASE("compressed-tensors NVFP4: a header in the saved layout matches every name, the packed weights not missing") {
  const json cfg = with_quant(ct(nvfp4));
  const cardfit::Model m = trace_json(cfg);
  json header = {{"__metadata__", {{"format", "pt"}}}};
  std::set<std::string> packed;
  for (const auto& x : m.stored_extras) {
    header[x.tensor.name] = {{"dtype", stored_dtype_name(x.dtype)}, {"shape", x.tensor.shape}, {"data_offsets", {0, 1}}};
    if (!x.replaces.empty()) packed.insert(x.replaces);
  }
  CHECK(packed.size() == size_t(modules));
  for (const auto& t : m.tensors)
    if (!packed.count(t.name)) header[t.name] = {{"dtype", "BF16"}, {"shape", t.shape}, {"data_offsets", {0, 1}}};
  const json r = plan_with(cfg, {{"safetensors_header", header.dump()}});
  REQUIRE(r["ok"] == true);
  CHECK(r["checkpoint"]["scalars"] == rest + linears / 2 + linears / 16 + 2 * modules);
  CHECK(r["checkpoint"]["unexplained"] == 0);
  CHECK(r["checkpoint"]["missing"].empty());
  CHECK(r["checkpoint"]["extra"].empty());
  CHECK(r["checkpoint"]["shape_mismatches"].empty());
  CHECK(r["checkpoint"]["dtypes"] == json::array({"BF16", "F32", "F8_E4M3", "U8"}));
}

TEST_CASE("bitsandbytes fp4 without double quantization: the JSON is fixed, named after the quant type") {
  json q = bnb_nf4;
  q["bnb_4bit_quant_type"] = "fp4";
  q["bnb_4bit_use_double_quant"] = false;
  const cardfit::Model m = trace_json(with_quant(q));
  const auto* js = extra(m, "model.layers.0.mlp.gate_proj.weight.quant_state.bitsandbytes__fp4");
  REQUIRE(js);
  const char* text = "{\"quant_type\": \"fp4\", \"blocksize\": 64, \"dtype\": \"bfloat16\", \"shape\": [14336, 4096]}";
  CHECK(js->tensor.shape == cardfit::Shape{int64_t(std::strlen(text))});
  CHECK(js->variable_max == 0);
  CHECK_FALSE(extra(m, "model.layers.0.mlp.gate_proj.weight.nested_absmax"));
  // Any total the reconciliation accepts (1 was refused as below a sixteenth of the parameters, so
  // this read a missing "checkpoint" and checked nothing: an ASan build's assertion found it).
  const json r = plan_with(with_quant(q), {{"checkpoint_total", 5000000000}});
  REQUIRE(r.at("ok") == true);
  CHECK_FALSE(r.at("checkpoint").contains("variable_tensors"));
}

TEST_CASE("the Markdown report names the quant_state JSON remainder with its bound") {
  // 4,650,174,176: the least total of the bnb test above (its hand sum), 100 more here.
  cardfit::Planner planner;
  const json r = json::parse(planner.markdown(with_quant(bnb_nf4).dump(), json{{"checkpoint_total", 4650174176 + 100}}.dump()));
  const std::string md = r["markdown"].get<std::string>();
  CHECK(md.find("+ 0 unexplained") != std::string::npos);
  CHECK(md.find("quantization-state scalars") != std::string::npos);
  CHECK(md.find("100 of up to 4,256 scalars of data-dependent length (224 quant_state JSON tensors") != std::string::npos);
}

TEST_CASE("compressed-tensors: a config as llm-compressor serializes it (nulls for unset fields) reads the same") {
  // The shape of the quantization_config RedHatAI's FP8-dynamic repos publish: every QuantizationArgs
  // field written out, null where unset, plus the bookkeeping keys.
  const json args_null = {{"actorder", nullptr}, {"block_structure", nullptr}, {"group_size", nullptr},
                          {"observer_kwargs", json::object()}, {"scale_dtype", nullptr}, {"zp_dtype", nullptr}};
  json w = args_null, in = args_null;
  w.update({{"dynamic", false}, {"num_bits", 8}, {"observer", "minmax"}, {"strategy", "channel"}, {"symmetric", true}, {"type", "float"}});
  in.update({{"dynamic", true}, {"num_bits", 8}, {"observer", nullptr}, {"strategy", "token"}, {"symmetric", true}, {"type", "float"}});
  const json q = {{"config_groups", {{"group_0", {{"input_activations", in}, {"output_activations", nullptr}, {"targets", {"Linear"}}, {"weights", w}}}}},
                  {"format", "float-quantized"}, {"global_compression_ratio", 1.46}, {"ignore", {"lm_head"}}, {"kv_cache_scheme", nullptr},
                  {"quant_method", "compressed-tensors"}, {"quantization_status", "compressed"}, {"sparsity_config", json::object()}};
  const cardfit::Model a = trace_json(with_quant(q));
  const cardfit::Model b = trace_json(with_quant(ct(fp8_dynamic, {{"format", "float-quantized"}})));
  REQUIRE(a.stored_extras.size() == b.stored_extras.size());
  for (size_t i = 0; i < a.stored_extras.size(); ++i) {
    CHECK(a.stored_extras[i].tensor.name == b.stored_extras[i].tensor.name);
    CHECK(a.stored_extras[i].tensor.shape == b.stored_extras[i].tensor.shape);
    CHECK(a.stored_extras[i].dtype == b.stored_extras[i].dtype);
  }
  CHECK(a.stored_weights->bytes == b.stored_weights->bytes);
}

TEST_CASE("compressed-tensors NVFP4 on Qwen3-30B-A3B: every expert packed, the routers ignored by regex") {
  // tests/golden/models/qwen3-30b-a3b.json: 48 layers, 128 experts of gate/up [768, 2048] and down
  // [2048, 768], attention q [4096, 2048], k and v [512, 2048], o [2048, 4096]. The ignore list is the
  // one llm-compressor's MoE examples use: lm_head and re:.*mlp.gate$.
  json cfg = golden_file("qwen3-30b-a3b.json").at("config");
  cfg["quantization_config"] = ct(nvfp4, {{"ignore", {"lm_head", "re:.*mlp.gate$"}}});
  const cardfit::Model m = trace_json(cfg);
  constexpr int64_t layers = 48, experts = 128, h = 2048, mi = 768;
  int64_t packed = 0, packed_values = 0;
  for (const auto& x : m.stored_extras)
    if (x.role == cardfit::ExtraRole::quant_blocks) {
      packed += x.tensor.copies;  // one stored tensor per expert
      packed_values += 2 * x.tensor.count();
    }
  CHECK(packed == layers * (4 + 3 * experts));
  CHECK(packed_values == layers * (2 * 4096 * h + 2 * 512 * h + 3 * experts * mi * h));
  CHECK_FALSE(extra(m, "model.layers.0.mlp.gate.weight_packed"));
  CHECK(extra(m, "model.layers.0.mlp.experts.127.down_proj.weight_scale")->tensor.shape == cardfit::Shape{h, mi / 16});
}

TEST_CASE("compressed-tensors on Qwen3-30B-A3B: a rule picking some experts of a stack is refused, by length or by digit") {
  // Digit-blind rules are asked one expert per index length (0, 10, 100 of 128): a rule on the
  // index's length must still be caught, as one on a digit (asked of every expert).
  json cfg = golden_file("qwen3-30b-a3b.json").at("config");
  for (const char* rule : {"re:.*experts\\.\\d\\.down_proj", "re:.*experts\\.\\d{3}\\.", "re:.*experts\\.12[0-7]\\."}) {
    INFO(rule);
    cfg["quantization_config"] = ct(nvfp4, {{"ignore", {"lm_head", rule}}});
    const cardfit::Error e = refusal(cfg);
    CHECK(e.code == cardfit::ErrorCode::field_inconsistent);
    CHECK(std::string(e.what()).find("quantization_config.ignore") != std::string::npos);
  }
  cfg["quantization_config"] = ct(nvfp4, {{"ignore", {"lm_head", "re:.*experts\\.\\d+\\.down_proj"}}});  // every expert's down
  const cardfit::Model m = trace_json(cfg);
  CHECK_FALSE(extra(m, "model.layers.0.mlp.experts.127.down_proj.weight_packed"));
  CHECK(extra(m, "model.layers.0.mlp.experts.127.up_proj.weight_packed"));
}

TEST_CASE("compressed-tensors: answers kept by digit-zeroed name are the answers asked weight by weight") {
  // With every rule digit-blind the rules' answers are kept per module kind (name with its digits
  // zeroed, and class); one rule naming a digit turns that off, and every weight is asked again.
  // Two groups (a regex target ranks before the class one) and three ignore rules over
  // Qwen3-30B-A3B's 48 layers and 128 experts: both ways must list the same checkpoint.
  json q = ct(nvfp4, {{"ignore", {"lm_head", "re:.*mlp.gate$", "re:.*self_attn.o_proj"}}});
  json by_name = w4a16;
  by_name["targets"] = {"re:.*self_attn\\.(q|k|v)_proj"};
  q["config_groups"]["group_1"] = by_name;
  json cfg = golden_file("qwen3-30b-a3b.json").at("config");
  cfg["quantization_config"] = q;
  const cardfit::Model kept = trace_json(cfg);
  cfg["quantization_config"]["ignore"].push_back("re:^nothing7$");  // names a digit, matches no module
  const cardfit::Model asked = trace_json(cfg);
  REQUIRE(kept.stored_extras.size() == asked.stored_extras.size());
  for (size_t i = 0; i < kept.stored_extras.size(); ++i) {
    const cardfit::StoredExtra &a = kept.stored_extras[i], &b = asked.stored_extras[i];
    INFO(a.tensor.name);
    CHECK(a.tensor.name == b.tensor.name);
    CHECK(a.tensor.shape == b.tensor.shape);
    CHECK(a.tensor.copies == b.tensor.copies);
    CHECK(a.dtype == b.dtype);
    CHECK(a.replaces == b.replaces);
    CHECK(a.of_tensor == b.of_tensor);
  }
  CHECK(kept.stored_weights->bytes == asked.stored_weights->bytes);
  // And what both say: q/k/v by the regex group (W4A16: I32 words), experts by the class group
  // (NVFP4: U8), o_proj and the routers ignored.
  CHECK(extra(kept, "model.layers.47.self_attn.k_proj.weight_packed")->dtype == StoredDtype::i32);
  CHECK(extra(kept, "model.layers.47.mlp.experts.127.up_proj.weight_packed")->dtype == StoredDtype::u8);
  CHECK_FALSE(extra(kept, "model.layers.47.self_attn.o_proj.weight_packed"));
  CHECK_FALSE(extra(kept, "model.layers.0.mlp.gate.weight_packed"));
}

TEST_CASE("every block-scaled FP8 weight of a golden checkpoint is packed or says its own stored dtype") {
  // A scale whose weight is neither packed nor given its own dtype would serve that weight at 16 bit
  // (DeepSeek-V4-Flash lost its FP8 attention weights' byte that way in a merge: 5.86 GB too many).
  int checked = 0;
  for (const auto& e : std::filesystem::directory_iterator(CARDFIT_GOLDEN_DIR)) {
    const cardfit::Model m = trace_golden(e.path().filename().string());
    if (m.stored_format != "fp8") continue;
    INFO(e.path().filename().string());
    std::vector<char> packed(m.tensors.size(), 0);
    for (const auto& x : m.stored_extras)
      if (!x.replaces.empty() && x.of_tensor >= 0) packed[size_t(x.of_tensor)] = 1;
    for (const auto& x : m.stored_extras) {
      if (x.role != cardfit::ExtraRole::quant_scale || x.of_tensor < 0 || x.of_mtp) continue;
      CHECK((packed[size_t(x.of_tensor)] || x.of_tensor_dtype == StoredDtype::f8_e4m3));
      checked += int(x.tensor.copies);  // a stack's scales: one stored per expert
    }
  }
  CHECK(checked > 40000);  // DeepSeek-V3's 41,540 scales among them
}
}  // namespace stored_quant_formats_test

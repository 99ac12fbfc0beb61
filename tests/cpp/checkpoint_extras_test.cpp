// Checkpoint extras: what published files store beyond the model class (MTP layers, FP8 block
// scales, MXFP4 blocks and scales), reconciled as exact scalar counts. Every expected count is
// derived here from the golden config's numbers, not read back from the code under test.
#include <catch2/catch.hpp>

#include "arch/stored_extras.hpp"
#include "cardfit/planner.hpp"
#include "test_util.hpp"

namespace checkpoint_extras_test {

using nlohmann::json;

namespace {
json plan_golden(const std::string& file, const json& options) {
  return plan(golden_file(file).at("config").dump(), options);
}
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// gpt-oss-20b (tests/golden/models/gpt-oss-20b.json): 24 layers, 32 experts, hidden 2880,
// intermediate 2880; gate_up_proj [32, 2880, 5760] and down_proj [32, 2880, 2880] are MXFP4.
constexpr int64_t L = 24, E = 32, H = 2880, I = 2880;
constexpr int64_t expert_values = L * (E * H * 2 * I + E * I * H);               // the parameters packed
constexpr int64_t blocks_bytes = expert_values / 2;                                 // two FP4 values a byte
constexpr int64_t scales = L * (E * (2 * I) * (H / 32) + E * H * (I / 32));        // one per 32 values
}  // namespace

TEST_CASE("gpt-oss-20b: the hub's safetensors total is the parameters plus the MXFP4 scales, 0 unexplained") {
  const int64_t params = golden_file("gpt-oss-20b.json")["expected"]["total"].get<int64_t>();
  REQUIRE(params == 20914757184);
  // 21,511,953,984: the hub's safetensors total for the MXFP4 gpt-oss-20b checkpoints, quoted exactly
  // for openai/gpt-oss-safeguard-20b (same architecture and storage) by a public model catalogue and
  // as "21.51B total" for openai/gpt-oss-20b by another (both read 2026-12-01). The hub counts each
  // _blocks byte as the two FP4 values it holds, so only the scales are added to the parameters.
  REQUIRE(scales == 597196800);
  const int64_t hub = params + scales;
  REQUIRE(hub == 21511953984);
  const json r = plan_golden("gpt-oss-20b.json", {{"checkpoint_total", hub}});
  REQUIRE(r["ok"] == true);
  const json& c = r["checkpoint"];
  CHECK(c["unexplained"] == 0);
  CHECK(c["packed_counting"] == "values");
  CHECK(c["packed_replaced"] == expert_values);
  REQUIRE(group(c, "quant_scale"));
  CHECK((*group(c, "quant_scale"))["scalars"] == scales);
  CHECK((*group(c, "quant_scale"))["tensors"] == 2 * L);
  REQUIRE(group(c, "quant_blocks"));
  CHECK((*group(c, "quant_blocks"))["scalars"] == expert_values);
  CHECK((*group(c, "quant_blocks"))["dtypes"] == json::array({"U8"}));
}

TEST_CASE("gpt-oss-20b: the same files counted element by element (bytes for the blocks) also leave 0") {
  const int64_t params = golden_file("gpt-oss-20b.json")["expected"]["total"].get<int64_t>();
  const int64_t stored = params - expert_values + blocks_bytes + scales;
  REQUIRE(stored == 11956805184);  // the golden file's total_source states the same count
  const json r = plan_golden("gpt-oss-20b.json", {{"checkpoint_total", stored}});
  REQUIRE(r["ok"] == true);
  CHECK(r["checkpoint"]["unexplained"] == 0);
  CHECK(r["checkpoint"]["packed_counting"] == "stored");
  CHECK((*group(r["checkpoint"], "quant_blocks"))["scalars"] == blocks_bytes);
  // A total that matches neither counting reads as itself against the header's counting.
  const json off = plan_golden("gpt-oss-20b.json", {{"checkpoint_total", stored + 7}});
  CHECK(off["checkpoint"]["unexplained"] == 7);
}

TEST_CASE("gpt-oss-20b: a safetensors header in the published layout is matched by name, blocks for the experts") {
  const cardfit::Model m = trace_golden("gpt-oss-20b.json");
  json header = {{"__metadata__", {{"format", "pt"}}}};
  auto put = [&](const std::string& name, const json& shape, const char* dtype) {
    header[name] = {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {0, 1}}};
  };
  int64_t experts_seen = 0;
  for (const auto& t : m.tensors) {
    const bool packed = t.shape.size() == 3 && t.role == cardfit::Role::expert;
    if (!packed) {
      put(t.name, t.shape, "BF16");
      continue;
    }
    // W [E, in, out] -> W_blocks [E, out, in/32, 16], W_scales [E, out, in/32] (transformers mxfp4.py).
    ++experts_seen;
    put(t.name + "_blocks", {t.shape[0], t.shape[2], t.shape[1] / 32, 16}, "U8");
    put(t.name + "_scales", {t.shape[0], t.shape[2], t.shape[1] / 32}, "U8");
  }
  REQUIRE(experts_seen == 2 * L);
  const json r = plan_golden("gpt-oss-20b.json", {{"safetensors_header", header.dump()}});
  REQUIRE(r["ok"] == true);
  const json& c = r["checkpoint"];
  CHECK(c["missing"].empty());
  CHECK(c["extra"].empty());
  CHECK(c["shape_mismatches"].empty());
  CHECK(c["scalars"] == 11956805184);
  CHECK(c["unexplained"] == 0);
  CHECK(c["packed_counting"] == "stored");
  CHECK(c["dtypes"] == json::array({"BF16", "U8"}));
}

TEST_CASE("DeepSeek-V3: the index total is the main model + the MTP layer 61 + the FP8 block scales") {
  const json g = golden_file("deepseek-v3.json");
  const json& cfg = g["config"];
  const int64_t params = g["expected"]["total"].get<int64_t>();
  const int64_t V = cfg["vocab_size"], Hd = cfg["hidden_size"], heads = cfg["num_attention_heads"];
  const int64_t qr = cfg["q_lora_rank"], kvr = cfg["kv_lora_rank"], nope = cfg["qk_nope_head_dim"];
  const int64_t rope = cfg["qk_rope_head_dim"], vd = cfg["v_head_dim"], inter = cfg["intermediate_size"];
  const int64_t moe = cfg["moe_intermediate_size"], routed = cfg["n_routed_experts"];
  const int64_t shared = cfg["n_shared_experts"], layers = cfg["num_hidden_layers"];
  const int64_t dense = cfg["first_k_dense_replace"];
  REQUIRE(cfg["num_nextn_predict_layers"] == 1);
  REQUIRE(cfg["quantization_config"]["weight_block_size"] == json::array({128, 128}));

  // The MLA attention's linears [out, in] and its two norms.
  const std::vector<std::pair<int64_t, int64_t>> attn = {{qr, Hd},
                                                        {heads * (nope + rope), qr},
                                                        {kvr + rope, Hd},
                                                        {heads * (nope + vd), kvr},
                                                        {Hd, heads * vd}};
  int64_t attn_params = qr + kvr;
  for (auto [o, i] : attn) attn_params += o * i;
  const int64_t moe_layer = attn_params + 2 * Hd + routed * Hd + routed + (routed + shared) * 3 * moe * Hd;
  // Layer 61: its own embed_tokens and shared_head.head, enorm/hnorm/shared_head.norm, eh_proj [H, 2H].
  const int64_t mtp = 2 * V * Hd + 3 * Hd + Hd * 2 * Hd + moe_layer;
  REQUIRE(mtp == 13463426304);  // the golden file's total_source

  // weight_scale_inv: one float32 per 128 x 128 block of every FP8 linear in layers 0-61.
  auto blocks = [](int64_t o, int64_t i) { return ceil_div(o, 128) * ceil_div(i, 128); };
  int64_t attn_scales = 0;
  for (auto [o, i] : attn) attn_scales += blocks(o, i);
  const int64_t dense_scales = attn_scales + 2 * blocks(inter, Hd) + blocks(Hd, inter);
  const int64_t moe_scales = attn_scales + (routed + shared) * (2 * blocks(moe, Hd) + blocks(Hd, moe));
  const int64_t scales_total = dense * dense_scales + (layers - dense + 1) * moe_scales;
  REQUIRE(scales_total == 41540496);  // the golden file's total_source

  // 684,531,386,000: the published checkpoint's scalars (model.safetensors.index.json total_size
  // and the hub's "685B", as the golden file's total_source records them).
  const int64_t hub = params + mtp + scales_total;
  REQUIRE(hub == 684531386000);
  const json r = plan_golden("deepseek-v3.json", {{"checkpoint_total", hub}});
  REQUIRE(r["ok"] == true);
  const json& c = r["checkpoint"];
  CHECK(c["unexplained"] == 0);
  REQUIRE(group(c, "mtp"));
  CHECK((*group(c, "mtp"))["scalars"] == mtp);
  CHECK((*group(c, "mtp"))["example"] == "model.layers.61.embed_tokens.weight");
  REQUIRE(group(c, "quant_scale"));
  CHECK((*group(c, "quant_scale"))["scalars"] == scales_total);
  CHECK((*group(c, "quant_scale"))["dtypes"] == json::array({"F32"}));
  CHECK(c["packed_counting"] == "");  // FP8 stores one value per element: nothing packed
  // The Markdown report names each stored extra.
  cardfit::Planner planner;
  const json md = json::parse(planner.markdown(golden_file("deepseek-v3.json")["config"].dump(),
                                               json{{"checkpoint_total", hub}}.dump()));
  const std::string text = md["markdown"].get<std::string>();
  CHECK(text.find("+ 13,463,426,304 multi-token-prediction layer scalars") != std::string::npos);
  CHECK(text.find("+ 41,540,496 quantization scales") != std::string::npos);
  CHECK(text.find("+ 0 unexplained") != std::string::npos);
}

TEST_CASE("Qwen3.5-35B-A3B: the MTP layer mtp.* is a full-attention layer with 256 experts stored one by one") {
  const cardfit::Model m = trace_golden("qwen3.5-35b-a3b-text.json");
  const json cfg = golden_file("qwen3.5-35b-a3b-text.json")["config"];
  const int64_t Hd = cfg["hidden_size"], experts = cfg["num_experts"], moe = cfg["moe_intermediate_size"];
  int64_t mtp = 0, per_expert = 0;
  bool fc = false;
  for (const auto& x : cardfit::expand_copies(m.stored_extras)) {  // as the checkpoint lists them
    REQUIRE(x.role == cardfit::ExtraRole::mtp);
    REQUIRE(x.tensor.name.rfind("mtp.", 0) == 0);
    mtp += x.tensor.count();
    if (x.tensor.name.find(".mlp.experts.") != std::string::npos) ++per_expert;
    if (x.tensor.name == "mtp.fc.weight") fc = x.tensor.shape == cardfit::Shape{Hd, 2 * Hd};
  }
  CHECK(fc);
  CHECK(per_expert == 3 * experts);
  // fc + 3 norms + the first full-attention layer (layer 3 under the default every-4th rule) copied.
  int64_t layer3 = 0;
  for (const auto& t : m.tensors)
    if (t.name.rfind("model.layers.3.", 0) == 0) layer3 += t.count();
  CHECK(mtp == Hd * 2 * Hd + 3 * Hd + layer3);
  // The routed experts' share of that layer, stored one by one: 256 x 3 x moe x H.
  CHECK(per_expert * moe * Hd == experts * 3 * moe * Hd);
}

TEST_CASE("modules_to_not_convert: globs cover module paths, plain entries are substrings") {
  using cardfit::not_converted;
  CHECK(not_converted("model.layers.*.self_attn", "model.layers.3.self_attn.q_proj.weight"));
  CHECK_FALSE(not_converted("model.layers.*.self_attn", "model.layers.3.mlp.experts.gate_up_proj"));
  CHECK(not_converted("lm_head", "lm_head.weight"));
  CHECK(not_converted("mlp.gate", "model.layers.0.mlp.gate.weight"));
  CHECK_FALSE(not_converted("model.embed_tokens", "model.norm.weight"));
}

TEST_CASE("an FP8 config with modules_to_not_convert gets no scales for those modules") {
  json cfg = golden_file("qwen3-8b.json")["config"];
  const cardfit::Model plain = trace_json(cfg);
  CHECK(plain.stored_extras.empty());
  cfg["quantization_config"] = {{"quant_method", "fp8"}, {"weight_block_size", {128, 128}},
                                {"modules_to_not_convert", {"lm_head", "model.layers.0."}}};
  const cardfit::Model fp8 = trace_json(cfg);
  CHECK(fp8.stored_format == "fp8");
  const int64_t layers = cfg["num_hidden_layers"];
  // 7 linears a layer (q, k, v, o, gate, up, down), none in layer 0.
  CHECK(int64_t(fp8.stored_extras.size()) == 7 * (layers - 1));
  for (const auto& x : fp8.stored_extras) {
    CHECK(x.tensor.name.rfind("model.layers.0.", 0) != 0);
    CHECK(x.tensor.name.size() > 16);
  }
  const cardfit::Tensor* q = find(fp8, "model.layers.1.self_attn.q_proj.weight");
  REQUIRE(q);
  bool found = false;
  for (const auto& x : fp8.stored_extras)
    if (x.tensor.name == "model.layers.1.self_attn.q_proj.weight_scale_inv") {
      found = true;
      CHECK(x.tensor.shape == cardfit::Shape{ceil_div(q->shape[0], 128), ceil_div(q->shape[1], 128)});
    }
  CHECK(found);
}

TEST_CASE("gpt-oss-20b serves as stored: MXFP4 experts (blocks + scales), everything else BF16") {
  const int64_t params = golden_file("gpt-oss-20b.json")["expected"]["total"].get<int64_t>();
  const int64_t expected = (params - expert_values) * 2 + blocks_bytes + scales;  // U8 blocks and scales
  REQUIRE(expected == 13761264768);
  const json r = plan_golden("gpt-oss-20b.json", {{"mode", "serve"}});
  REQUIRE(r["ok"] == true);
  CHECK(r["plan"]["components"]["weights"] == expected);
  CHECK(r["plan"]["component_labels"]["weights"].get<std::string>().find("as stored") != std::string::npos);
  // serve_dtype given, even bf16, replaces the stored format.
  const json bf16 = plan_golden("gpt-oss-20b.json", {{"mode", "serve"}, {"serve_dtype", "bf16"}});
  CHECK(bf16["plan"]["components"]["weights"] == params * 2);
}

TEST_CASE("DeepSeek-V3 serves as stored: FP8 linears with float32 block scales, the MTP layer not loaded") {
  const json g = golden_file("deepseek-v3.json");
  const json& cfg = g["config"];
  const int64_t params = g["expected"]["total"].get<int64_t>();
  const int64_t V = cfg["vocab_size"], Hd = cfg["hidden_size"], layers = cfg["num_hidden_layers"];
  const int64_t qr = cfg["q_lora_rank"], kvr = cfg["kv_lora_rank"], routed = cfg["n_routed_experts"];
  const int64_t dense = cfg["first_k_dense_replace"];
  // BF16: embeddings, head, norms (input, post-attention, q_a and kv_a layernorms a layer, the final
  // one) and the MoE routers (weight + correction bias); everything else is an FP8 linear.
  const int64_t bf16 = 2 * V * Hd + layers * (2 * Hd + qr + kvr) + Hd + (layers - dense) * (routed * Hd + routed);
  const int64_t fp8 = params - bf16;
  const int64_t main_scales = 41540496 - 702264;  // all block scales but the MTP layer's (one MoE layer)
  const int64_t expected = bf16 * 2 + fp8 + main_scales * 4;
  const json r = plan_golden("deepseek-v3.json", {{"mode", "serve"}});
  REQUIRE(r["ok"] == true);
  CHECK(r["plan"]["components"]["weights"] == expected);
  const json bf16_plan = plan_golden("deepseek-v3.json", {{"mode", "serve"}, {"serve_dtype", "bf16"}});
  CHECK(bf16_plan["plan"]["components"]["weights"] == params * 2);
}

TEST_CASE("training a quantized checkpoint states what the base is dequantized to") {
  const json r = plan_golden("gpt-oss-20b.json", {{"mode", "lora"}});
  REQUIRE(r["ok"] == true);
  const json* a = nullptr;
  for (const auto& x : r["assumptions"])
    if (x["id"] == "stored_format") a = &x;
  REQUIRE(a);
  CHECK((*a)["text"].get<std::string>().find("mxfp4") != std::string::npos);
  CHECK((*a)["text"].get<std::string>().find("dequantized to the training precision (bf16-mixed") != std::string::npos);
  // A plain checkpoint has no such assumption.
  const json plain = plan(example("gpt2.json"));
  for (const auto& x : plain["assumptions"]) CHECK(x["id"] != "stored_format");
}

TEST_CASE("a GPTQ config lists qweight, qzeros, scales and g_idx per linear and reconciles its stored total") {
  json cfg = golden_file("qwen3-8b.json")["config"];
  cfg["quantization_config"] = {{"quant_method", "gptq"}, {"bits", 4}, {"group_size", 128}};
  const cardfit::Model m = trace_json(cfg);
  const cardfit::Tensor* q = find(m, "model.layers.0.self_attn.q_proj.weight");
  REQUIRE(q);
  const int64_t out = q->shape[0], in = q->shape[1];
  int64_t seen = 0;
  for (const auto& x : m.stored_extras) {
    if (x.tensor.name == "model.layers.0.self_attn.q_proj.qweight") {
      ++seen;
      CHECK(x.tensor.shape == cardfit::Shape{in / 8, out});
      CHECK(x.replaces == q->name);
    }
    if (x.tensor.name == "model.layers.0.self_attn.q_proj.qzeros") {
      ++seen;
      CHECK(x.tensor.shape == cardfit::Shape{in / 128, out / 8});
    }
    if (x.tensor.name == "model.layers.0.self_attn.q_proj.g_idx") {
      ++seen;
      CHECK(x.role == cardfit::ExtraRole::lookup_table);
    }
  }
  CHECK(seen == 3);
  // Stored elements: every packed weight is replaced by its int32 words (8 values each) plus groups.
  int64_t stored = m.parameter_count(), quantized = 0, extras = 0;
  for (const auto& x : m.stored_extras) {
    extras += x.tensor.count();
    if (!x.replaces.empty()) quantized += find(m, x.replaces)->count();
  }
  stored = stored - quantized + extras;
  const json r = plan(cfg.dump(), {{"checkpoint_total", stored}});
  REQUIRE(r["ok"] == true);
  CHECK(r["checkpoint"]["unexplained"] == 0);
  CHECK(r["checkpoint"]["packed_counting"] == "stored");
  REQUIRE(group(r["checkpoint"], "lookup_table"));
  CHECK((*group(r["checkpoint"], "lookup_table"))["dtypes"] == json::array({"I32"}));
}
}  // namespace checkpoint_extras_test

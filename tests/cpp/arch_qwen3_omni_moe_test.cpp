// Qwen3-Omni-MoE (modular_qwen3_omni_moe.py, Qwen3OmniMoeForConditionalGeneration; Qwen3-Omni-30B-A3B,
// issue 10). The thinker's language model alone is traced as qwen3_omni_moe_text; the whole checkpoint
// (qwen3_omni_moe) is traced too: thinker.audio_tower, thinker.visual, the language model, the talker,
// its code predictor and code2wav. Every part is derived here by hand from the modules, and they add up
// to the 35,259,818,545 parameters of the published safetensors (the golden files' config_note); the
// trace reproduces each part exactly.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/checks.hpp"
#include "test_util.hpp"

namespace arch_qwen3_omni_moe_test {

using namespace cardfit;
using nlohmann::json;

namespace {
constexpr int64_t lin(int64_t in, int64_t out, bool bias = true) { return in * out + (bias ? out : 0); }

// Thinker language model (Qwen3OmniMoeThinkerTextModel + lm_head): 48 Qwen3-MoE layers.
constexpr int64_t H = 2048, V = 152064, E = 128, MI = 768, L = 48;
constexpr int64_t attn = H * 32 * 128 + 2 * H * 4 * 128 + 32 * 128 * H + 2 * 128;  // q, k, v, o, q_norm, k_norm
constexpr int64_t moe = E * H + E * 3 * H * MI;   // mlp.gate; experts.{e}.gate/up [768, 2048], down [2048, 768]
constexpr int64_t layer = attn + moe + 2 * H;      // + input / post_attention RMSNorms
constexpr int64_t text_total = 2 * V * H + L * layer + H;  // untied embed_tokens and lm_head, final norm
static_assert(layer == 623120640);
static_assert(text_total == 30532122624 + (V - 151936) * H * 2);  // Qwen3-30B-A3B plus 128 vocabulary rows

// thinker.audio_tower (Qwen3OmniMoeAudioEncoder): 32 Whisper-style layers of d_model 1280 (q/k/v/out
// with bias, fc1/fc2 5120, two LayerNorms), ln_post, three Conv2d 3x3 stride 2 of 480 channels (1 -> 480
// -> 480 -> 480), conv_out [1280, 480 * 16] without bias, proj1 1280 -> 1280, proj2 1280 -> output_dim
// 2048; the sinusoidal positional_embedding is a buffer the checkpoint does not store.
constexpr int64_t D = 1280;
constexpr int64_t audio_layer = 4 * lin(D, D) + 2 * 2 * D + lin(D, 5120) + lin(5120, D);
constexpr int64_t audio = 32 * audio_layer + 2 * D + (480 * 9 + 480) + 2 * (480 * 480 * 9 + 480) +
                          lin(480 * 16, D, false) + lin(D, D) + lin(D, H);
static_assert(audio == 647927168);

// thinker.visual (Qwen3OmniMoeVisionEncoder = Qwen3-VL-MoE's tower): 27 blocks of 1152, patch_embed
// Conv3d (2, 16, 16), pos_embed 2304, merger (ln_q 1152) and merger_list x 3 (ln_q 4608), 4608 -> 2048.
constexpr int64_t VH = 1152, M = 4 * VH;
constexpr int64_t vblock = 2 * 2 * VH + lin(VH, 3 * VH) + lin(VH, VH) + lin(VH, 4304) + lin(4304, VH);
constexpr int64_t vision = (VH * 3 * 2 * 16 * 16 + VH) + 2304 * VH + 27 * vblock + (2 * VH + lin(M, M) + lin(M, H)) +
                           3 * (2 * M + lin(M, M) + lin(M, H));
static_assert(vision == 538631408);

// talker: 20 MoE layers of 1024 (16 heads, 2 kv heads, head_dim 128, q/k norms; router [128, 1024],
// 128 experts of 384, shared_expert 768 and shared_expert_gate [1, 1024]), norm, codec_embedding
// [3072, 1024]; text_projection and hidden_projection (ResizeMLP 2048 -> 2048 -> 1024, biases); codec_head.
constexpr int64_t T = 1024;
constexpr int64_t talker_layer = (T * 2048 + 2 * T * 256 + 2048 * T + 2 * 128) + (128 * T + 128 * 3 * T * 384) +
                                 3 * T * 768 + T + 2 * T;
constexpr int64_t talker = 20 * talker_layer + T + 3072 * T + 2 * (lin(2048, 2048) + lin(2048, T)) + T * 3072;
// talker.code_predictor: 5 dense Qwen3 layers (16 heads, 8 kv heads, head_dim 128, MLP 3072), norm,
// 15 codec_embedding [2048, 1024] and 15 lm_head [2048, 1024] (num_code_groups 16, minus the first).
constexpr int64_t cp_layer = (T * 2048 + 2 * T * T + 2048 * T + 2 * 128) + 3 * T * 3072 + 2 * T;
constexpr int64_t code_predictor = 5 * cp_layer + T + 15 * 2048 * T * 2;
static_assert(talker == 3183026176 && code_predictor == 141570304);

// code2wav: pre_transformer of 8 layers (q/k/v/o 1024, MLP 3072, two RMSNorms, two LayerScales), norm;
// code_embedding [16 x 2048, 1024]; upsample x 2 (ConvTranspose1d 1024 k2 + ConvNeXt block: depthwise
// k7, LayerNorm, pwconv 4096, gamma); decoder: Conv1d 1024 -> 1536 k7, four blocks (SnakeBeta, transposed
// conv k = 2 x rate, three residual units of SnakeBeta / k7 dilated conv / SnakeBeta / k1 conv) for rates
// 8, 5, 4, 3 halving 1536 -> 96, a final SnakeBeta and Conv1d 96 -> 1 k7.
constexpr int64_t c2w_unit(int64_t c) { return 2 * 2 * c + (c * c * 7 + c) + (c * c + c); }
constexpr int64_t c2w_block(int64_t in, int64_t out, int64_t rate) {
  return 2 * in + (in * out * 2 * rate + out) + 3 * c2w_unit(out);
}
constexpr int64_t code2wav = 8 * (4 * T * T + 3 * T * 3072 + 4 * T) + T + 16 * 2048 * T +
                             2 * ((T * T * 2 + T) + (T * 7 + T) + 2 * T + lin(T, 4096) + lin(4096, T) + T) +
                             (1536 * T * 7 + 1536) + c2w_block(1536, 768, 8) + c2w_block(768, 384, 5) +
                             c2w_block(384, 192, 4) + c2w_block(192, 96, 3) + 2 * 96 + (96 * 7 + 1);
static_assert(code2wav == 216016577);
constexpr int64_t checkpoint_total = 35259818545;  // the published safetensors' parameter count
// The hand derivation covers the whole checkpoint: nothing is left over for an unnamed part.
static_assert(text_total + audio + vision + talker + code_predictor + code2wav == checkpoint_total);

Error refusal(const json& config) {
  try {
    trace_json(config);
  } catch (const Error& e) {
    return e;
  }
  return Error(ErrorCode::internal, "traced");
}

int64_t count_under(const Model& m, const std::string& prefix) {
  int64_t n = 0;
  for (const auto& t : m.tensors)
    if (t.tied_to.empty() && t.name.rfind(prefix, 0) == 0) n += t.count();
  return n;
}
}  // namespace

TEST_CASE("Qwen3-Omni thinker language model: exact total by hand, per-expert tensors, the checkpoint's parts add up") {
  const Model m = trace_golden("qwen3-omni-30b-a3b-instruct-text.json");
  CHECK_FALSE(m.approximate);
  CHECK(m.parameter_count() == text_total);
  // With the parts derived above, the traced language model completes the published checkpoint total.
  CHECK(m.parameter_count() + audio + vision + talker + code_predictor + code2wav == checkpoint_total);
  CHECK(find(m, "model.layers.0.mlp.experts.0.gate_proj.weight")->shape == Shape{MI, H});
  CHECK(find(m, "model.layers.47.mlp.experts.127.down_proj.weight")->shape == Shape{H, MI});
  CHECK(find(m, "model.layers.0.mlp.experts.gate_up_proj") == nullptr);  // stored per expert, not fused
  CHECK(find(m, "model.layers.0.mlp.shared_expert.gate_proj.weight") == nullptr);  // size 0: none
  CHECK(find(m, "lm_head.weight")->tied_to.empty());
  CHECK(shape_errors(m).empty());
  // The same layers as Qwen3-30B-A3B: only the vocabulary differs.
  const Model q = trace_golden("qwen3-30b-a3b.json");
  CHECK(m.tensors.size() == q.tensors.size());
  CHECK(m.parameter_count() - q.parameter_count() == (V - 151936) * H * 2);
  // Router: top 8 of 128; every attention layer is full (Qwen3OmniMoeThinkerTextAttention drops the window).
  CHECK(m.dims.experts == E);
  CHECK(m.dims.experts_per_token == 8);
  const auto attns = attention_nodes(m);
  CHECK(attns.size() == size_t(L));
  for (const Node* a : attns) {
    CHECK(a->attn.window == 0);
    CHECK(a->attn.kv_heads == 4);
  }
}

TEST_CASE("Qwen3-Omni thinker language model: plans in every mode, dense mlp_only_layers, coded errors") {
  const json config = golden_file("qwen3-omni-30b-a3b-instruct-text.json").at("config");
  for (const char* mode : {"full", "lora", "qlora", "serve"}) {
    INFO(mode);
    const json r = plan(config.dump(), {{"mode", mode}});
    REQUIRE(r.at("ok") == true);
    CHECK(r["params"]["total"] == text_total);
  }
  json dense = config;
  dense["mlp_only_layers"] = {0, 47};
  const Model d = trace_json(dense);
  CHECK(d.parameter_count() == text_total - 2 * moe + 2 * 3 * H * 768);  // intermediate_size 768 here
  REQUIRE(find(d, "model.layers.0.mlp.gate_proj.weight"));
  CHECK(find(d, "model.layers.1.mlp.experts.0.gate_proj.weight"));
  json bad = config;
  bad["num_experts_per_tok"] = 129;
  const Error e = refusal(bad);
  CHECK(e.code == ErrorCode::field_inconsistent);
  CHECK(e.path == "$.num_experts_per_tok");
}

TEST_CASE("the whole Qwen3-Omni checkpoint: exact total, each part equal to its hand derivation, published names") {
  const Model m = trace_golden("qwen3-omni-30b-a3b-instruct.json");
  CHECK_FALSE(m.approximate);
  CHECK(m.family == "qwen3_omni_moe");
  CHECK(m.parameter_count() == checkpoint_total);
  CHECK(expanded_size(m.tensors) == 28010);  // the published listing's tensor count (experts one by one)
  CHECK(m.buffers.empty());          // the audio tower's sinusoidal positional_embedding is not stored
  CHECK(count_under(m, "thinker.model.") + count_under(m, "thinker.lm_head.") == text_total);
  CHECK(count_under(m, "thinker.audio_tower.") == audio);
  CHECK(count_under(m, "thinker.visual.") == vision);
  CHECK(count_under(m, "talker.") - count_under(m, "talker.code_predictor.") == talker);
  CHECK(count_under(m, "talker.code_predictor.") == code_predictor);
  CHECK(count_under(m, "code2wav.") == code2wav);
  // Names and shapes as the published safetensors listing has them.
  const std::vector<std::pair<const char*, Shape>> published = {
      {"thinker.audio_tower.conv2d2.weight", {480, 480, 3, 3}},
      {"thinker.audio_tower.layers.31.self_attn.k_proj.bias", {1280}},
      {"thinker.visual.merger.ln_q.weight", {1152}},
      {"thinker.visual.merger.mlp.0.weight", {4608, 4608}},
      {"thinker.visual.merger_list.0.mlp.2.weight", {2048, 4608}},
      {"thinker.visual.pos_embed.weight", {2304, 1152}},
      {"thinker.model.norm.weight", {2048}},
      {"talker.model.codec_embedding.weight", {3072, 1024}},
      {"talker.model.layers.0.self_attn.k_proj.weight", {256, 1024}},
      {"talker.model.layers.0.mlp.shared_expert.down_proj.weight", {1024, 768}},
      {"talker.hidden_projection.linear_fc2.bias", {1024}},
      {"talker.code_predictor.model.codec_embedding.0.weight", {2048, 1024}},
      {"talker.code_predictor.model.layers.0.self_attn.k_proj.weight", {1024, 1024}},
      {"code2wav.pre_transformer.layers.0.self_attn_layer_scale.scale", {1024}},
      {"code2wav.upsample.1.0.conv.weight", {1024, 1024, 2}},
      {"code2wav.upsample.1.1.gamma", {1024}},
      {"code2wav.decoder.0.conv.weight", {1536, 1024, 7}},
      {"code2wav.decoder.2.block.1.conv.weight", {768, 384, 10}},
      {"code2wav.decoder.3.block.3.act1.alpha", {192}},
      {"code2wav.decoder.5.beta", {96}},
      {"code2wav.decoder.6.conv.bias", {1}},
  };
  for (const auto& [name, shape] : published) {
    INFO(name);
    const Tensor* t = find(m, name);
    REQUIRE(t);
    CHECK(t->shape == shape);
  }
  CHECK(find(m, "thinker.visual.deepstack_merger_list.0.norm.weight") == nullptr);  // Qwen3-VL's names, not Omni's
  CHECK(shape_errors(m).empty());
  // The headline dimensions are the thinker's language model's.
  CHECK(m.dims.hidden == H);
  CHECK(m.dims.layers == L);
  CHECK(m.dims.vocab == V);
  CHECK(m.dims.experts == E);
}

TEST_CASE("Qwen3-Omni: the talker and code2wav hold weights in every mode but train in none") {
  const json config = golden_file("qwen3-omni-30b-a3b-instruct.json").at("config");
  const int64_t speech = talker + code_predictor + code2wav;
  const json serve = plan(config.dump(), {{"mode", "serve"}});
  REQUIRE(serve.at("ok") == true);
  CHECK(serve["params"]["total"] == checkpoint_total);
  // Serving plans text generation: the KV cache is the thinker's alone (the talker's layers cache nothing).
  const json text_serve = plan(golden_file("qwen3-omni-30b-a3b-instruct-text.json").at("config").dump(), {{"mode", "serve"}});
  REQUIRE(text_serve.at("ok") == true);
  CHECK(serve["plan"]["components"].at("kv_cache") == text_serve["plan"]["components"].at("kv_cache"));
  CHECK(int64_t(serve["plan"]["components"].at("weights")) > int64_t(text_serve["plan"]["components"].at("weights")));
  const json full = plan(config.dump(), {{"mode", "full"}});
  REQUIRE(full.at("ok") == true);
  CHECK(full["params"]["total"] == checkpoint_total);
  // The thinker's text, audio and vision towers train; the talker, code predictor and code2wav hold
  // their weights (fp32 masters here, as every weight) but get no gradient and no optimizer state.
  // (trainable_params still counts them: their parameters require grad, as a block that never runs does.)
  const json& c = full["plan"]["components"];
  const int64_t w = c.at("weights"), g = c.at("gradients"), st = c.at("optimizer_states");
  CHECK(w == 4 * checkpoint_total);
  CHECK(g == 4 * (checkpoint_total - speech));
  CHECK(st == 8 * (checkpoint_total - speech));  // AdamW's two fp32 moments
  for (const char* mode : {"lora", "qlora"}) {
    INFO(mode);
    const json r = plan(config.dump(), {{"mode", mode}});
    REQUIRE(r.at("ok") == true);
    CHECK(r["params"]["total"] == checkpoint_total);
  }
  // The text-only thinker plan is the same language model: the whole checkpoint plans more weight memory.
  const Model whole = trace_json(config);
  bool parked = true;
  for (const auto& b : whole.blocks)
    if (b.name.rfind("talker.", 0) == 0 || b.name.rfind("code2wav.", 0) == 0)
      parked = parked && b.tokens_per_image == 0 && b.domain != Domain::text;
  CHECK(parked);
}

TEST_CASE("Qwen3-Omni: a thinker whose towers disagree with its text width is refused with a coded error") {
  json config = golden_file("qwen3-omni-30b-a3b-instruct.json").at("config");
  config["thinker_config"]["audio_config"]["output_dim"] = 3584;
  const Error e = refusal(config);
  CHECK(e.code == ErrorCode::field_inconsistent);
  // An unknown wrapper type carrying an omni thinker gets the thinker hint from the generic refusal.
  json other = golden_file("qwen3-omni-30b-a3b-instruct.json").at("config");
  other["model_type"] = "mystery_omni";
  CHECK(std::string(refusal(other).what()).find("paste thinker_config.text_config alone") != std::string::npos);
  other["thinker_config"]["text_config"]["model_type"] = "qwen3_omni_text_unknown";
  CHECK(std::string(refusal(other).what()).find("paste thinker_config") == std::string::npos);
}
}  // namespace arch_qwen3_omni_moe_test

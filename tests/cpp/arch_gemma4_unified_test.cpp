// Gemma 4 unified (google/gemma-4-12B, modeling_gemma4_unified.py Gemma4UnifiedForConditionalGeneration,
// issue 10): encoder-free vision and audio embedders over Gemma 4's text stack without per-layer
// embeddings or MoE. The total derived by hand from the modules' __init__ and the names
// convert_gemma4_unified_weights.py writes; the text part = gemma4_text's trace of that text; the
// embedder's edges and FLOPs; plans at images 1 and 0 in every mode; class defaults; coded errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/checks.hpp"
#include "plan/graph_costs.hpp"
#include "plan/memory.hpp"
#include "test_util.hpp"

namespace arch_gemma4_unified_test {

using namespace cardfit;
using nlohmann::json;

namespace {
// Gemma4UnifiedTextModel of gemma-4-12B (hidden 3840, 48 layers, 5 sliding : 1 full, 16 heads):
constexpr int64_t H = 3840, V = 262144, I = 15360;
constexpr int64_t embed = V * H;  // embed_tokens; lm_head tied (_tied_weights_keys)
// Gemma4UnifiedTextAttention: sliding layers head_dim 256 over 8 kv heads (q/k/v/o_proj, q_norm and
// k_norm [256]; v_norm has no weight); full layers per_layer_config head_dim = global_head_dim 512 and,
// with attention_k_eq_v, num_global_key_value_heads 1 and no v_proj.
constexpr int64_t sliding_attn = H * 16 * 256 + 2 * H * 8 * 256 + 16 * 256 * H + 2 * 256;
constexpr int64_t full_attn = H * 16 * 512 + H * 1 * 512 + 16 * 512 * H + 2 * 512;
constexpr int64_t mlp = 3 * H * I;  // Gemma4UnifiedTextMLP gate/up/down_proj (num_kv_shared_layers 0: not double wide)
constexpr int64_t norms = 4 * H;    // input, post_attention, pre_feedforward, post_feedforward (Gemma 2's layer)
constexpr int64_t sliding_layer = sliding_attn + mlp + norms, full_layer = full_attn + mlp + norms;
constexpr int64_t text_total = embed + 40 * sliding_layer + 8 * full_layer + H;  // + model.norm
static_assert(sliding_layer == 224148992 && full_layer == 241844224 && text_total == 11907350272);
// Gemma4UnifiedVisionEmbedder: patch_dim = (16 · 3)² · 3 = 6912, mm_embed_dim 3840, mm_posemb_size 1120.
constexpr int64_t P = 6912;
constexpr int64_t vision_embedder = 2 * P + (P * H + H) + 2 * H + 1120 * 2 * H + 2 * H;  // ln1, dense, ln2, pos, pos_norm
constexpr int64_t embed_vision = H * H;   // embedding_projection [text hidden, output_proj_dims]; the norm has no weight
constexpr int64_t embed_audio = H * 640;  // [text hidden, audio_embed_dim]
constexpr int64_t total = text_total + vision_embedder + embed_vision + embed_audio;
static_assert(vision_embedder == 35176704 && total == 11959730176);  // the card's "11.95B"

Model text_of(const json& config) {  // the language model as the gemma4_text family traces it, PLE off
  json text = config.at("text_config");
  text["model_type"] = "gemma4_text";
  text["hidden_size_per_layer_input"] = 0;
  return trace_json(text);
}

void expect_error_at(const json& config, const std::string& path) {
  try {
    trace_json(config);
    FAIL("traced");
  } catch (const Error& e) {
    CHECK(e.path == path);
  }
}
}  // namespace

TEST_CASE("Gemma 4 12B unified: exact total by hand, checkpoint names, no PLE, tied head") {
  const json config = golden_file("gemma-4-12b.json").at("config");
  const Model m = trace_json(config);
  CHECK(m.parameter_count() == total);
  CHECK(m.buffer_count() == 48);  // layer_scalar
  // 40 sliding layers of 13 tensors, 8 full layers of 12, embed_tokens, norm, the tied lm_head
  // (listed, tied_to embed_tokens, not counted); 9 + 1 vision, 1 audio.
  CHECK(m.tensors.size() == size_t(40 * 13 + 8 * 12 + 3 + 10 + 1));
  int64_t non_layer = 0;
  for (const auto& t : m.tensors)
    if (t.name.find(".layers.") == std::string::npos && t.name != "lm_head.weight") ++non_layer;
  CHECK(non_layer == 13);  // what the published safetensors hold beside the layers
  CHECK(find(m, "model.language_model.layers.5.self_attn.v_proj.weight") == nullptr);
  CHECK(find(m, "model.language_model.layers.4.self_attn.v_proj.weight")->shape == Shape{8 * 256, H});
  CHECK(find(m, "model.language_model.layers.11.self_attn.q_norm.weight")->shape == Shape{512});
  CHECK(find(m, "model.language_model.embed_tokens_per_layer.weight") == nullptr);
  CHECK(find(m, "model.language_model.per_layer_model_projection.weight") == nullptr);
  CHECK(find(m, "model.language_model.layers.0.per_layer_input_gate.weight") == nullptr);
  CHECK(find(m, "model.vision_embedder.pos_embedding")->shape == Shape{1120, 2, H});
  CHECK(find(m, "model.vision_embedder.patch_dense.weight")->shape == Shape{H, P});
  CHECK(find(m, "model.embed_vision.embedding_projection.weight")->shape == Shape{H, H});
  CHECK(find(m, "model.embed_audio.embedding_projection.weight")->shape == Shape{H, 640});
  CHECK(find(m, "lm_head.weight")->tied_to == "model.language_model.embed_tokens.weight");
  CHECK(shape_errors(m).empty());
  CHECK_FALSE(m.approximate);
}

TEST_CASE("Gemma 4 12B unified: the language model is gemma4_text's trace of its text_config without PLE") {
  const json config = golden_file("gemma-4-12b.json").at("config");
  const Model m = trace_json(config);
  const Model lm = text_of(config);
  CHECK(lm.parameter_count() == text_total);
  for (const auto& t : lm.tensors) {
    if (t.name == "lm_head.weight") continue;
    const std::string name = "model.language_model." + t.name.substr(6);
    INFO(name);
    const Tensor* w = find(m, name);
    REQUIRE(w);
    CHECK(w->shape == t.shape);
  }
  // The KV cache per token is the text model's: the embedders hold no state.
  Options o;
  o.images = 0;
  const MemoryPlan a = MemoryModel(m, o, Mode::serve, 4096, {}).at(1);
  const MemoryPlan b = MemoryModel(lm, Options{}, Mode::serve, 4096, {}).at(1);
  CHECK(a.peak_bytes >= b.peak_bytes + (total - text_total) * 2);  // bf16 embedder weights on top
}

TEST_CASE("Gemma 4 12B unified vision embedder: LN, dense, LN, positions, LN, projection over 280 patches") {
  const Model m = trace_golden("gemma-4-12b.json");
  const std::string p = "model.vision_embedder.";
  const Node* ln1 = find_node(m, p + "patch_ln1");
  const Node* dense = find_node(m, p + "patch_dense");
  const Node* ln2 = find_node(m, p + "patch_ln2");
  const Node* pos = find_node(m, p + "pos_embedding");
  const Node* pos_norm = find_node(m, p + "pos_norm");
  const Node* pre = find_node(m, "model.embed_vision.embedding_pre_projection_norm");
  const Node* proj = find_node(m, "model.embed_vision.embedding_projection");
  for (const Node* n : {ln1, dense, ln2, pos, pos_norm, pre, proj}) REQUIRE(n);
  CHECK(ln1->inputs.empty());  // raw merged pixel patches
  CHECK(dense->inputs == std::vector<ValueId>{ln1->output});
  CHECK(ln2->inputs == std::vector<ValueId>{dense->output});
  CHECK(pos->inputs == std::vector<ValueId>{ln2->output});
  CHECK(pos_norm->inputs == std::vector<ValueId>{pos->output});
  CHECK(pre->inputs == std::vector<ValueId>{pos_norm->output});
  CHECK(proj->inputs == std::vector<ValueId>{pre->output});
  CHECK(ln1->params == 2 * P);
  CHECK(dense->params == P * H + H);
  CHECK(pre->params == 0);
  CHECK(forward_flops_per_token(*dense, 2048) == 2.0 * P * H);
  CHECK(forward_flops_per_token(*proj, 2048) == 2.0 * H * H);
  int vision_blocks = 0, audio_blocks = 0;
  for (const auto& b : m.blocks) {
    if (b.domain == Domain::vision) {
      ++vision_blocks;
      CHECK(b.tokens_per_image == 280);  // max_soft_tokens: every image is padded to it
    }
    if (b.domain == Domain::audio) {
      ++audio_blocks;
      CHECK(b.tokens_per_image == 750);  // the default 30 s clip in frames of 640 samples at 16 kHz
    }
  }
  CHECK(vision_blocks == 2);
  CHECK(audio_blocks == 1);
}

TEST_CASE("Gemma 4 12B unified plans at images 1 and 0 in every mode") {
  const json config = golden_file("gemma-4-12b.json").at("config");
  const Model m = trace_json(config);
  Options none, one;
  none.images = 0;
  one.images = 1;
  const MemoryPlan a = MemoryModel(m, none, Mode::full, 2048, {}).at(1);
  const MemoryPlan i1 = MemoryModel(m, one, Mode::full, 2048, {}).at(1);
  CHECK(i1.peak_bytes > a.peak_bytes);  // one image's 280 patches add activations in training
  for (const char* mode : {"full", "lora", "qlora", "serve"}) {
    INFO(mode);
    const json r = plan(config.dump(), {{"mode", mode}, {"images", 1}});
    REQUIRE(r.at("ok") == true);
    CHECK(r["params"]["total"] == total);
    CHECK(r["plan"]["images"] == 1);
  }
  const json serve = plan(config.dump(), {{"mode", "serve"}});
  CHECK(serve["plan"]["peak_bytes"].get<int64_t>() > 2 * total);  // bf16 weights and then some
}

TEST_CASE("Gemma 4 unified with no sub-configs is Gemma4UnifiedTextConfig's defaults, no embedders") {
  // hidden 2304, 30 layers (5 full: 5, 11, 17, 23, 29), 8 heads over 4 kv heads, intermediate 9216;
  // attention_k_eq_v False, so full layers keep 4 kv heads of global_head_dim 512 and their v_proj.
  constexpr int64_t h = 2304, i = 9216;
  constexpr int64_t sliding = h * 8 * 256 + 2 * h * 4 * 256 + 8 * 256 * h + 2 * 256 + 3 * h * i + 4 * h;
  constexpr int64_t full = h * 8 * 512 + 2 * h * 4 * 512 + 8 * 512 * h + 2 * 512 + 3 * h * i + 4 * h;
  constexpr int64_t defaults = V * h + 25 * sliding + 5 * full + h;
  static_assert(sliding == 77866496 && full == 92022784 && defaults == 3010758400);
  const Model m = trace_json(json{{"model_type", "gemma4_unified"}});
  CHECK(m.parameter_count() == defaults);
  CHECK(find(m, "model.language_model.layers.5.self_attn.v_proj.weight")->shape == Shape{4 * 512, h});
  CHECK(find(m, "model.vision_embedder.patch_dense.weight") == nullptr);
  CHECK(find(m, "model.embed_audio.embedding_projection.weight") == nullptr);
  // The sliding window is Gemma4UnifiedTextConfig's 1024, not Gemma4TextConfig's 512.
  for (const Node* n : attention_nodes(m))
    if (n->name.find("layers.0.") != std::string::npos) CHECK(n->attn.window == 1024);
}

TEST_CASE("Gemma 4 unified: what is not traced or inconsistent is a coded error naming the field") {
  const json config = golden_file("gemma-4-12b.json").at("config");
  json all = config;
  all["text_config"]["use_bidirectional_attention"] = "all";
  expect_error_at(all, "$.text_config.use_bidirectional_attention");
  json proj = config;
  proj["vision_config"]["output_proj_dims"] = 2048;
  expect_error_at(proj, "$.vision_config.output_proj_dims");
  json patch = config;
  patch["vision_config"]["model_patch_size"] = 32;
  expect_error_at(patch, "$.vision_config.model_patch_size");
  json audio = config;
  audio["audio_config"]["hidden_size"] = 512;
  expect_error_at(audio, "$.audio_config.hidden_size");
}
}  // namespace arch_gemma4_unified_test

// The multimodal wrapper configs people paste (issue 10): Qwen3.5 / Qwen3.6 (qwen3_5) and their MoE
// (qwen3_5_moe). Exact totals derived by hand from the modeling files; the wrapper's language model
// is the text family's trace of its text_config; the graph forward-passes; plans at images 1 and 0.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/checks.hpp"
#include "plan/memory.hpp"
#include "test_util.hpp"

namespace arch_wrappers_test {

using namespace cardfit;
using nlohmann::json;

namespace {
// text_config traced alone, as the wrapper's Config class builds it (Qwen3_5Config / Qwen3_5MoeConfig
// construct their text class whatever the sub-config's model_type; tie_word_embeddings from the top).
Model text_model(const json& config, const std::string& text_type) {
  json text = config.at("text_config");
  text["model_type"] = text_type;
  if (!text.contains("tie_word_embeddings")) text["tie_word_embeddings"] = config.value("tie_word_embeddings", false);
  return trace_json(text);
}
int64_t tower_params(const Model& m) {
  int64_t p = 0;
  for (const auto& b : m.blocks)
    if (b.domain == Domain::vision)
      for (const auto& n : b.nodes) p += n.params;
  return p;
}
const Tensor* tensor(const Model& m, const std::string& name) { return find(m, name); }

// The Qwen3.5 vision tower (modeling_qwen3_5.py Qwen3_5VisionModel = Qwen3-VL's without deepstack),
// by hand from Qwen3VLVisionModel's modules, for hidden 1152, 27 blocks, intermediate 4304, 16 px
// patches, temporal patch 2, 2304 position rows and a 2 x 2 merger to `out`:
//   patch_embed.proj Conv3d [1152, 3, 2, 16, 16] + bias      = 1,769,472 + 1,152     = 1,770,624
//   pos_embed [2304, 1152]                                                            = 2,654,208
//   per block: norm1 (LayerNorm w + b)  2,304
//              attn.qkv [3456, 1152] + 3456                  = 3,984,768
//              attn.proj [1152, 1152] + 1152                 = 1,328,256
//              norm2                                           2,304
//              mlp.linear_fc1 [4304, 1152] + 4304            = 4,962,512
//              mlp.linear_fc2 [1152, 4304] + 1152            = 4,959,360   → 15,239,504 × 27 = 411,466,608
//   merger: norm [1152] w + b 2,304; linear_fc1 [4608, 4608] + 4608 = 21,238,272;
//           linear_fc2 [out, 4608] + out
constexpr int64_t tower(int64_t out) {
  return 1770624 + 2654208 + 411466608 + 2304 + 21238272 + (4608 * out + out);
}
static_assert(tower(4096) == 456010480);  // = Qwen3-VL-8B's 576,388,336 less its 3 deepstack mergers (40,125,952 each)
}  // namespace

TEST_CASE("Qwen3.5-9B and Qwen3.5-35B-A3B wrappers: exact totals, text part = the text family's trace") {
  struct Case {
    const char* file;
    const char* text_type;
    int64_t text_total;  // the text goldens' independently computed totals (count_params.py)
    int64_t hidden;
  };
  for (const Case k : {Case{"qwen3.5-9b.json", "qwen3_5_text", 8953803264, 4096},
                       Case{"qwen3.5-35b-a3b.json", "qwen3_5_moe_text", 34660610688, 2048}}) {
    INFO(k.file);
    const json config = golden_file(k.file).at("config");
    const Model m = trace_json(config);
    // 9B: 8,953,803,264 + 456,010,480 = 9,409,813,744; 35B-A3B: 34,660,610,688 + 446,571,248 = 35,107,181,936.
    CHECK(m.parameter_count() == k.text_total + tower(k.hidden));
    CHECK(tower_params(m) == tower(k.hidden));
    CHECK(m.buffer_count() == 0);

    const Model lm = text_model(config, k.text_type);
    CHECK(lm.parameter_count() == k.text_total);
    CHECK(m.parameter_count() == lm.parameter_count() + tower_params(m));
    CHECK(m.tensors.size() == lm.tensors.size() + 333);  // 2 patch + 1 pos + 27 × 12 + 6 merger
    for (const auto& t : lm.tensors) {
      const std::string name = t.name.rfind("model.", 0) == 0 ? "model.language_model." + t.name.substr(6) : t.name;
      INFO(name);
      const Tensor* w = tensor(m, name);
      REQUIRE(w);
      CHECK(w->shape == t.shape);
    }
    CHECK(m.dims.hidden == lm.dims.hidden);
    CHECK(m.dims.layers == lm.dims.layers);
    CHECK(m.dims.experts == lm.dims.experts);
    // No deepstack mergers: Qwen3_5VisionModel deletes them.
    CHECK(tensor(m, "model.visual.deepstack_merger_list.0.norm.weight") == nullptr);
    CHECK(shape_errors(m).empty());  // the graph forward-passes
  }
}

TEST_CASE("Qwen3.5 wrapper: a listed deepstack index adds nothing, a mismatched tower is refused by field") {
  json c = golden_file("qwen3.5-9b.json").at("config");
  const int64_t total = trace_json(c).parameter_count();
  c["vision_config"]["deepstack_visual_indexes"] = {8, 16, 24};
  CHECK(trace_json(c).parameter_count() == total);
  c["vision_config"]["out_hidden_size"] = 2048;
  try {
    trace_json(c);
    FAIL("a tower of width 2048 into a 4096-wide text model was traced");
  } catch (const Error& e) {
    CHECK(e.path == "$.vision_config");
    CHECK(std::string(e.what()).find("out_hidden_size") != std::string::npos);
  }
  json t = golden_file("qwen3.5-9b.json").at("config");
  t["text_config"]["linear_num_value_heads"] = 31;  // not a multiple of linear_num_key_heads (16)
  try {
    trace_json(t);
    FAIL("traced");
  } catch (const Error& e) {
    CHECK(e.path == "$.text_config.linear_num_value_heads");
  }
}

TEST_CASE("Qwen3.5 wrappers plan at images 1 and 0: images 0 is the language model's plan plus the tower's weights") {
  for (const char* file : {"qwen3.5-9b.json", "qwen3.5-35b-a3b.json"}) {
    INFO(file);
    const json config = golden_file(file).at("config");
    const Model m = trace_json(config);
    const Model lm = text_model(config, config.at("model_type") == "qwen3_5" ? "qwen3_5_text" : "qwen3_5_moe_text");
    const int64_t tw = tower_params(m);
    Options none, one;
    none.images = 0;
    one.images = 1;
    for (Mode mode : {Mode::full, Mode::serve}) {
      INFO(mode_name(mode));
      const int64_t seq = 2048;
      const MemoryPlan a = MemoryModel(m, none, mode, seq, {}).at(1);
      const MemoryPlan b = MemoryModel(lm, Options{}, mode, seq, {}).at(1);
      CHECK(a.peak_bytes == b.peak_bytes + tw * (mode == Mode::full ? 4 : 2));  // fp32 master / bf16 weights
      // One image's patches run through the tower: in training their activations add to the peak;
      // in serving the tower's working set is below the text prefill's at this length.
      const MemoryPlan i1 = MemoryModel(m, one, mode, seq, {}).at(1);
      if (mode == Mode::full) CHECK(i1.peak_bytes > a.peak_bytes);
      else CHECK(i1.peak_bytes >= a.peak_bytes);
    }
    const json r0 = plan(config.dump(), {{"images", 0}});
    const json r1 = plan(config.dump(), {{"images", 1}, {"mode", "lora"}});
    REQUIRE(r0.at("ok") == true);
    REQUIRE(r1.at("ok") == true);
    CHECK(r1["params"]["total"] == m.parameter_count());
    CHECK(r1["plan"]["images"] == 1);
  }
}

// Gemma 4 E2B (modeling_gemma4.py Gemma4ForConditionalGeneration), by hand from its modules:
// model.vision_tower (Gemma4VisionModel; hidden 768, 16 layers, 12 heads of 64, intermediate 3072):
//   patch_embedder.input_proj [768, 3 * 16 * 16]                                      =    589,824
//   patch_embedder.position_embedding_table [2, 10240, 768]                           = 15,728,640
//   per layer: q/k/v/o_proj.linear 4 × 768 × 768 = 2,359,296; q_norm + k_norm 2 × 64 = 128;
//              mlp gate/up/down_proj.linear 3 × 768 × 3072 = 7,077,888; 4 RMSNorms 4 × 768 = 3,072
//              → 9,440,384 × 16                                                         = 151,046,144
//   → 167,364,608;  model.embed_vision.embedding_projection [1536, 768]               =  1,179,648
// model.audio_tower (Gemma4AudioModel; hidden 1024, 12 layers, 8 heads of 128, conv kernel 5):
//   subsample_conv_projection: layer0.conv [128, 1, 3, 3] 1,152 + norm 128; layer1.conv [32, 128, 3, 3]
//   36,864 + norm 32; input_proj_linear [1024, 128 / 4 * 32] 1,048,576                 =  1,086,752
//   per layer: feed_forward1/2 each ffw_layer_1 [4096, 1024] + ffw_layer_2 [1024, 4096] + 2 norms
//              = 8,390,656 (× 2); self_attn q/k/v_proj + post 4 × 1024² + relative_k_proj 1024² +
//              per_dim_scale 128 = 5,243,008; lconv1d linear_start [2048, 1024] + linear_end [1024, 1024] +
//              depthwise_conv1d [1024, 1, 5] + 2 norms = 3,152,896; norm_pre_attn/post_attn/out 3,072
//              → 25,180,288 × 12                                                        = 302,163,456
//   output_proj [1536, 1024] + bias                                                   =  1,574,400
//   → 304,824,608;  model.embed_audio.embedding_projection [1536, 1536]               =  2,359,296
// Buffers: every Gemma4ClippableLinear with use_clipped_linears stores 4 scalar bounds: 7 × 16 vision
// and 10 × 12 audio → 448 + 480 (noted, not listed), beside the text model's 35 layer_scalar.
TEST_CASE("Gemma 4 E2B wrapper: exact total, text part = gemma4_text's trace, towers by sub-config") {
  const json config = golden_file("gemma-4-e2b-it.json").at("config");
  const Model m = trace_json(config);
  const int64_t text = 4628569344, vision = 167364608 + 1179648, audio = 304824608 + 2359296;
  CHECK(m.parameter_count() == text + vision + audio);  // 5,104,297,504: the card's "5.1B with embeddings"
  CHECK(m.buffer_count() == 35);  // layer_scalar; the clip bounds are counted in the towers' notes
  auto noted = [&](const std::string& text) {
    for (const auto& n : m.notes)
      if (n.find(text) != std::string::npos) return true;
    return false;
  };
  CHECK(noted("vision tower's checkpoint also stores 448 scalar clip bounds"));
  CHECK(noted("audio tower's checkpoint also stores 480 scalar clip bounds"));
  CHECK(tower_params(m) == vision);

  const Model lm = text_model(config, "gemma4_text");
  CHECK(lm.parameter_count() == text);
  for (const auto& t : lm.tensors) {
    const std::string name = t.name.rfind("model.", 0) == 0 ? "model.language_model." + t.name.substr(6) : t.name;
    INFO(name);
    const Tensor* w = tensor(m, name);
    REQUIRE(w);
    CHECK(w->shape == t.shape);
    CHECK(w->tied_to.empty() == t.tied_to.empty());
  }
  CHECK(tensor(m, "lm_head.weight")->tied_to == "model.language_model.embed_tokens.weight");
  CHECK(shape_errors(m).empty());

  // No audio_config (the larger Gemma 4 checkpoints): no audio tower; no vision_config: no vision tower.
  json no_audio = config;
  no_audio.erase("audio_config");
  CHECK(trace_json(no_audio).parameter_count() == text + vision);
  json text_only = no_audio;
  text_only.erase("vision_config");
  CHECK(trace_json(text_only).parameter_count() == text);

  // Sub-config values that cannot be built are coded errors naming the field.
  json bad = config;
  bad["audio_config"]["subsampling_conv_channels"] = {128};
  try {
    trace_json(bad);
    FAIL("traced");
  } catch (const Error& e) {
    CHECK(e.path == "$.audio_config.subsampling_conv_channels");
  }
  bad = config;
  bad["vision_config"]["num_key_value_heads"] = 5;
  try {
    trace_json(bad);
    FAIL("traced");
  } catch (const Error& e) {
    CHECK(e.path == "$.vision_config.num_key_value_heads");
  }
}

TEST_CASE("Gemma 4 E2B plans at images 1 and 0: the audio tower's weights are counted, no audio is planned") {
  const json config = golden_file("gemma-4-e2b-it.json").at("config");
  const Model m = trace_json(config);
  const Model lm = text_model(config, "gemma4_text");
  const int64_t towers = m.parameter_count() - lm.parameter_count();
  Options none, one;
  none.images = 0;
  one.images = 1;
  for (Mode mode : {Mode::full, Mode::serve}) {
    INFO(mode_name(mode));
    const MemoryPlan a = MemoryModel(m, none, mode, 2048, {}).at(1);
    const MemoryPlan b = MemoryModel(lm, Options{}, mode, 2048, {}).at(1);
    CHECK(a.peak_bytes >= b.peak_bytes + towers * (mode == Mode::full ? 4 : 2));
    // One image's patches run through the tower: in training their activations add to the peak;
    // in serving the tower's working set is below the text prefill's at this length.
    const MemoryPlan i1 = MemoryModel(m, one, mode, 2048, {}).at(1);
    if (mode == Mode::full) CHECK(i1.peak_bytes > a.peak_bytes);
    else CHECK(i1.peak_bytes >= a.peak_bytes);
  }
  const json r0 = plan(config.dump(), {{"images", 0}});
  const json r1 = plan(config.dump(), {{"images", 1}, {"mode", "lora"}});
  REQUIRE(r0.at("ok") == true);
  REQUIRE(r1.at("ok") == true);
  CHECK(r1["params"]["total"] == m.parameter_count());
}

// Mistral Small 3.2 24B (modeling_mistral3.py Mistral3ForConditionalGeneration), by hand:
// vision_tower (PixtralVisionModel; hidden 1024, 24 layers, 16 heads, intermediate 4096, 14 px patches):
//   patch_conv [1024, 3, 14, 14] 602,112; ln_pre 1,024; per layer attention_norm + ffn_norm 2,048,
//   q/k/v/o_proj 4 × 1024² = 4,194,304, feed_forward gate/up/down 3 × 1024 × 4096 = 12,582,912
//   → 16,779,264 × 24 = 402,702,336                                               → 403,305,472
// multi_modal_projector: norm 1,024; patch_merger.merging_layer [1024, 4096] 4,194,304;
//   linear_1 [5120, 1024] 5,242,880; linear_2 [5120, 5120] 26,214,400 (no biases)  →  35,652,608
// language_model (MistralForCausalLM, untied): embed_tokens + lm_head 2 × 131072 × 5120 = 1,342,177,280;
//   per layer q/o 2 × 4096 × 5120 + k/v 2 × 1024 × 5120 = 52,428,800, MLP 3 × 5120 × 32768 = 503,316,480,
//   2 norms 10,240 → 555,755,520 × 40 = 22,230,220,800; norm 5,120                 → 23,572,403,200
TEST_CASE("Mistral Small 3.2 wrapper: exact total, text part = the mistral trace, plans at images 1 and 0") {
  const json config = golden_file("mistral-small-3.2-24b-instruct.json").at("config");
  const Model m = trace_json(config);
  const int64_t text = 23572403200, vision = 403305472 + 35652608;
  CHECK(m.parameter_count() == text + vision);  // 24,011,361,280: the model card's 24B
  CHECK(tower_params(m) == vision);
  const Model lm = trace_json(config.at("text_config"));
  CHECK(lm.parameter_count() == text);
  for (const auto& t : lm.tensors) {
    INFO(t.name);
    const Tensor* w = tensor(m, "language_model." + t.name);
    REQUIRE(w);
    CHECK(w->shape == t.shape);
  }
  CHECK(shape_errors(m).empty());
  Options none, one;
  none.images = 0;
  one.images = 1;
  const MemoryPlan a = MemoryModel(m, none, Mode::full, 4096, {}).at(1);
  CHECK(a.peak_bytes == MemoryModel(lm, Options{}, Mode::full, 4096, {}).at(1).peak_bytes + vision * 4);
  CHECK(MemoryModel(m, one, Mode::full, 4096, {}).at(1).peak_bytes > a.peak_bytes);  // 12,100 patches
  REQUIRE(plan(config.dump(), {{"images", 0}}).at("ok") == true);
  REQUIRE(plan(config.dump(), {{"images", 1}, {"mode", "qlora"}}).at("ok") == true);

  json bad = config;
  bad["vision_config"]["model_type"] = "siglip_vision_model";
  try {
    trace_json(bad);
    FAIL("traced");
  } catch (const Error& e) {
    CHECK(e.path == "$.vision_config.model_type");
  }
}
}  // namespace arch_wrappers_test

// Multimodal planning: a vision tower runs over its images' patch tokens, not over the text
// sequence (token domains, the `images` option, FLOPs per image, frozen towers), and the constant
// per-sequence state of Mamba layers in serving memory.
#include <catch2/catch.hpp>
#include <algorithm>

#include "arch/registry.hpp"
#include "config.hpp"
#include "plan/cost.hpp"
#include "plan/graph_costs.hpp"
#include "plan/memory.hpp"
#include "test_util.hpp"

namespace multimodal_plan_test {

using namespace cardfit;

namespace {
// The language model alone, traced from the multimodal config's text_config (LLaVA reads a Llama
// text_config as LlamaConfig fills it in).
Model language_model(const std::string& file) {
  auto text = golden_file(file).at("config").at("text_config");
  if (text.value("model_type", "") == "llama") {
    auto filled = nlohmann::json::parse(R"({"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
        "num_hidden_layers": 32, "num_attention_heads": 32, "max_position_embeddings": 2048})");
    filled.update(text);
    text = filled;
  }
  return trace_model(Config::parse(text.dump()));
}
int64_t component(const MemoryPlan& p, const std::string& id) {
  for (const auto& c : p.components)
    if (c.id == id) return c.bytes;
  return 0;
}
const Block* block(const Model& m, const std::string& name) {
  for (const auto& b : m.blocks)
    if (b.name == name) return &b;
  return nullptr;
}
const Node* node(const Model& m, const std::string& name) {
  for (const auto& b : m.blocks)
    for (const auto& n : b.nodes)
      if (n.name == name) return &n;
  return nullptr;
}
// Bytes each vision block keeps per sample (MemoryModel's per-block profile).
std::vector<int64_t> vision_acts(const Model& m, const MemoryModel& mm) {
  std::vector<int64_t> out;
  for (size_t bi = 0; bi < m.blocks.size(); ++bi)
    if (m.blocks[bi].domain == Domain::vision) out.push_back(mm.blocks()[bi].acts);
  return out;
}
int64_t sum(const std::vector<int64_t>& v) {
  int64_t s = 0;
  for (int64_t x : v) s += x;
  return s;
}
Options with_images(int64_t images) {
  Options o;
  o.images = images;
  return o;
}
// Parameters of the vision tower and projector (every block of the vision domain).
int64_t tower_params(const Model& m) {
  int64_t p = 0;
  for (const auto& b : m.blocks)
    if (b.domain == Domain::vision)
      for (const auto& n : b.nodes) p += n.params;
  return p;
}
const char* const kGemma = "gemma-3-4b-it.json";
const char* const kLlava = "llava-1.5-7b-hf.json";
}  // namespace

TEST_CASE("vision blocks run over each image's tokens, at the tower's width") {
  const Model g = trace_golden(kGemma);
  const Block* layer = block(g, "vision_tower.vision_model.encoder.layers.0");
  REQUIRE(layer);
  CHECK(layer->domain == Domain::vision);
  CHECK(layer->tokens_per_image == 4096);  // (896 / 14)^2 patches, no class token
  CHECK(layer->width == 1152);
  const Block* gproj = block(g, "multi_modal_projector");
  REQUIRE(gproj);
  CHECK(gproj->tokens_per_image == 256);    // mm_tokens_per_image after the 4×4 average pool
  CHECK(block(g, "language_model.model.layers.0")->domain == Domain::text);

  const Model l = trace_golden(kLlava);
  CHECK(block(l, "vision_tower.vision_model.encoder.layers.23")->tokens_per_image == 577);  // 576 + class token
  CHECK(node(l, "vision_tower.vision_model.embeddings.patch_embedding")->tokens_per_image == 576);
  CHECK(node(l, "vision_tower.vision_model.post_layernorm")->tokens_per_image == 1);  // the pooled class token
  CHECK(block(l, "multi_modal_projector")->tokens_per_image == 576);  // "default" strategy drops the class token
  auto cfg = golden_file(kLlava).at("config");
  cfg["vision_feature_select_strategy"] = "full";
  CHECK(block(trace_model(Config::parse(cfg.dump())), "multi_modal_projector")->tokens_per_image == 577);
}

TEST_CASE("vision activations scale with images, not with seq") {
  for (const char* file : {kGemma, kLlava}) {
    INFO(file);
    const Model m = trace_golden(file);
    for (Mode mode : {Mode::full, Mode::lora, Mode::qlora}) {
      INFO(mode_name(mode));
      const MemoryModel one(m, with_images(1), mode, 512, {});
      const MemoryModel one_long(m, with_images(1), mode, 4096, {});
      const MemoryModel three(m, with_images(3), mode, 512, {});
      const auto a1 = vision_acts(m, one), a1_long = vision_acts(m, one_long), a3 = vision_acts(m, three);
      CHECK(a1 == a1_long);
      REQUIRE(a1.size() == a3.size());
      for (size_t i = 0; i < a1.size(); ++i) CHECK(a3[i] == 3 * a1[i]);
      CHECK(sum(a1) > 0);
      // The text blocks do not see the images (their tokens are part of seq).
      for (size_t bi = 0; bi < m.blocks.size(); ++bi)
        if (m.blocks[bi].domain == Domain::text) CHECK(one.blocks()[bi].acts == three.blocks()[bi].acts);
    }
    // At the backward of the loss every block's activations are alive: two more images per
    // sample add exactly two images' worth per sample.
    const MemoryModel lora1(m, with_images(1), Mode::lora, 2048, {});
    const MemoryPlan p1 = MemoryModel(m, with_images(1), Mode::lora, 2048, {}).at(2);
    const MemoryPlan p3 = MemoryModel(m, with_images(3), Mode::lora, 2048, {}).at(2);
    REQUIRE(p1.peak_event == "backward of the loss (log_softmax)");
    REQUIRE(p3.peak_event == p1.peak_event);
    CHECK(component(p3, "activations") - component(p1, "activations") == 2 * 2 * sum(vision_acts(m, lora1)));
  }
}

TEST_CASE("a SigLIP layer keeps, per image, what its ops keep over 4096 patch tokens") {
  // LoRA (bf16 base, rank 16, dropout 0.05) on every linear of a Gemma 3 vision layer, SDPA, per
  // token: layer_norm1's fp32 input 1152×4; q/k/v adapters: mask, dropped-out input, A's output;
  // q, k, v, output, fp32 logsumexp; out_proj adapter; layer_norm2's fp32 input; fc1 adapter;
  // gelu_tanh's input 4304×2; fc2 adapter (4304 wide).
  const int64_t adapter1152 = 1152 + 1152 * 2 + 16 * 2, adapter4304 = 4304 + 4304 * 2 + 16 * 2;
  const int64_t per_token = 1152 * 4 + 3 * adapter1152 + (3 * 1152 * 2 + 1152 * 2 + 16 * 4) + adapter1152 +
                            1152 * 4 + adapter1152 + 4304 * 2 + adapter4304;
  const Model m = trace_golden(kGemma);
  size_t bi = 0;
  while (m.blocks[bi].name != "vision_tower.vision_model.encoder.layers.5") ++bi;
  const Options o = with_images(2);
  const StepSetup s = make_setup(m, o, Mode::lora);
  CHECK(block_cost(m, bi, s, 2048, 2048).saved == per_token * 4096 * 2);
}

TEST_CASE("a text-only plan (images 0) is the language model's plan plus the tower's weights") {
  for (const char* file : {kGemma, kLlava}) {
    INFO(file);
    const Model m = trace_golden(file), lm = language_model(file);
    const int64_t tower = tower_params(m);
    REQUIRE(lm.parameter_count() + tower == m.parameter_count());
    const Options o = with_images(0);
    // LoRA adapters PEFT's all-linear puts on the tower (fp32): created, never given a gradient.
    const int64_t tower_adapters = lora_parameter_count(m, o) - lora_parameter_count(lm, o);
    REQUIRE(tower_adapters > 0);
    for (Mode mode : all_modes) {
      INFO(mode_name(mode));
      const int64_t seq = mode == Mode::serve ? 4096 : 2048;
      const MemoryPlan a = MemoryModel(m, o, mode, seq, {}).at(2);
      const MemoryPlan b = MemoryModel(lm, Options{}, mode, seq, {}).at(2);
      int64_t extra = 0;
      switch (mode) {
        case Mode::full: extra = tower * 4; break;                        // fp32 master weights only
        case Mode::lora: extra = tower * 2 + tower_adapters * 4; break;  // bf16 base + fp32 adapters
        case Mode::serve: extra = tower * 2; break;                       // bf16
        case Mode::qlora: extra = (component(a, "weights") - component(b, "weights")) + tower_adapters * 4; break;
      }
      CHECK(a.peak_bytes == b.peak_bytes + extra);
      REQUIRE(a.phases.size() == b.phases.size());
      for (size_t i = 0; i < a.phases.size(); ++i) CHECK(a.phases[i].bytes == b.phases[i].bytes + extra);
      for (const auto& c : a.components)
        if (c.id != "weights" && c.id != "adapters") CHECK(c.bytes == component(b, c.id));
    }
    CHECK(forward_flops_per_token(m, 2048, 0, 0) == forward_flops_per_token(lm, 2048));
    CHECK(step_flops_per_token(m, o, Mode::lora, 2048) == step_flops_per_token(lm, Options{}, Mode::lora, 2048));
  }
}

TEST_CASE("vision FLOPs per image: 2 × linear weights × tokens + attention over one image") {
  // Products of integers below 2^53 are exact in double, and so are these sums (< 2^53): the
  // counts must match exactly.
  {
    // Gemma 3 4B: SigLIP 27 layers, width 1152, MLP 4304, 16 heads of 72, 4096 patches of 14×14×3;
    // the projector's 1152×2560 matrix on the 256 pooled tokens.
    const double T = 4096, layer_linear = 4.0 * 1152 * 1152 + 2.0 * 1152 * 4304;
    const double attention = 2.0 * 16 * (72 + 72) * T * T;  // QKᵀ and PV, bidirectional
    const double expected = 27 * (2 * layer_linear * T + attention) + 2.0 * 588 * 1152 * T + 2.0 * 1152 * 2560 * 256;
    CHECK(vision_flops_per_image(trace_golden(kGemma)) == expected);
  }
  {
    // LLaVA-1.5 7B: CLIP ViT-L/14-336, 24 layers of width 1024 over 577 tokens (class token), the
    // patch conv over 576 patches, the two-layer projector on the 576 image tokens.
    const double T = 577, layer_linear = 4.0 * 1024 * 1024 + 2.0 * 1024 * 4096;
    const double attention = 2.0 * 16 * (64 + 64) * T * T;
    const double expected = 24 * (2 * layer_linear * T + attention) + 2.0 * 588 * 1024 * 576 +
                            2.0 * (1024.0 * 4096 + 4096.0 * 4096) * 576;
    CHECK(vision_flops_per_image(trace_golden(kLlava)) == expected);
  }
  // A training step adds the tower's forward and backward (3×, full fine-tune) per image.
  for (const char* file : {kGemma, kLlava}) {
    const Model m = trace_golden(file);
    const double per_image = vision_flops_per_image(m);
    const double one = step_flops_per_token(m, with_images(1), Mode::full, 2048) * 2048;
    const double three = step_flops_per_token(m, with_images(3), Mode::full, 2048) * 2048;
    CHECK(three - one == Approx(2 * 3 * per_image).epsilon(1e-12));
    CHECK(forward_flops_per_token(m, 2048, 0, 2) * 2048 - forward_flops_per_token(m, 2048, 0, 1) * 2048 ==
          Approx(per_image).epsilon(1e-12));
  }
}

TEST_CASE("LoRA adapts the tower's linears as PEFT all-linear does, a frozen tower keeps nothing") {
  const Model m = trace_golden(kLlava);
  // all-linear: every nn.Linear but the output embeddings. CLIP's patch embedding is a Conv2d.
  CHECK(node(m, "vision_tower.vision_model.encoder.layers.0.self_attn.q_proj")->lora);
  CHECK(node(m, "vision_tower.vision_model.encoder.layers.0.mlp.fc2")->lora);
  CHECK(node(m, "multi_modal_projector.linear_1")->lora);
  CHECK_FALSE(node(m, "vision_tower.vision_model.embeddings.patch_embedding")->lora);
  CHECK_FALSE(node(trace_golden(kGemma), "multi_modal_projector.mm_input_projection_weight")->lora);

  // Adapters on the language model's MLP only: the tower has no parameter that requires grad and
  // pixel_values do not, so autograd records none of its ops; it still runs (working set, FLOPs).
  Options o;
  o.lora_targets = {"gate_proj", "up_proj", "down_proj"};
  const MemoryModel frozen(m, o, Mode::lora, 2048, {});
  CHECK(sum(vision_acts(m, frozen)) == 0);
  Options text_only = o;
  text_only.images = 0;
  const MemoryPlan a = frozen.at(1), b = MemoryModel(m, text_only, Mode::lora, 2048, {}).at(1);
  CHECK(component(a, "activations") == component(b, "activations"));
  CHECK(a.peak_bytes == b.peak_bytes);  // the tower's forward is not the peak
  // The frozen tower runs forward only (1×), not forward + input gradients (2×).
  const double frozen_step = step_flops_per_token(m, o, Mode::lora, 2048) * 2048;
  const double text_step = step_flops_per_token(m, text_only, Mode::lora, 2048) * 2048;
  CHECK(frozen_step - text_step == Approx(vision_flops_per_image(m)).epsilon(1e-12));
  // The projector trained alone: it keeps its input, the tower still nothing.
  o.lora_targets = {"linear_1"};
  const MemoryModel projector(m, o, Mode::lora, 2048, {});
  const auto acts = vision_acts(m, projector);
  CHECK(std::count_if(acts.begin(), acts.end(), [](int64_t x) { return x > 0; }) == 1);
  CHECK(acts.back() > 0);
}

TEST_CASE("gradient checkpointing wraps the vision tower's layers too") {
  const Model m = trace_golden(kGemma);
  Options o = with_images(1);
  o.grad_ckpt = true;
  const MemoryModel mm(m, o, Mode::full, 2048, {});
  size_t bi = 0;
  while (m.blocks[bi].name != "vision_tower.vision_model.encoder.layers.0") ++bi;
  CHECK(mm.blocks()[bi].acts == int64_t(1152) * 4096 * 4);  // the layer's fp32 input
}

TEST_CASE("serving prefill includes the vision tower's working set over batch × images") {
  const Model m = trace_golden(kGemma);
  const int64_t seq = 4096;
  auto prefill = [&](int64_t images) {
    return component(MemoryModel(m, with_images(images), Mode::serve, seq, {}).at(1), "prefill_working_set");
  };
  const Options one_image = with_images(1);  // named: the setup points at it
  const StepSetup s = make_setup(m, one_image, Mode::serve);
  int64_t text = 0, vision = 0;
  for (size_t bi = 0; bi < m.blocks.size(); ++bi) {
    const int64_t f = block_cost(m, bi, s, seq, seq).forward;
    (m.blocks[bi].domain == Domain::vision ? vision : text) = std::max(m.blocks[bi].domain == Domain::vision ? vision : text, f);
  }
  REQUIRE(vision > 0);
  CHECK(prefill(0) == text);
  for (int64_t k : {1, 2, 8})
    CHECK(prefill(k) == std::max(text, k * vision));
  CHECK(prefill(8) > prefill(0));
}

TEST_CASE("the report shows vision nodes over their own tokens, and the images option") {
  const std::string config = golden_file(kLlava).at("config").dump();
  const auto r = plan(config, {{"mode", "lora"}, {"batch", 2}, {"images", 3}});
  REQUIRE(r["ok"] == true);
  for (const auto& n : r["graph"]["nodes"]) {
    const std::string name = n["name"];
    if (name == "vision_tower.vision_model.encoder.layers.0.mlp.fc1")
      CHECK(n["out_shape"] == nlohmann::json::array({6, 577, 4096}));
    if (name == "vision_tower.vision_model.embeddings.patch_embedding")
      CHECK(n["out_shape"] == nlohmann::json::array({6, 576, 1024}));
    if (name == "multi_modal_projector.linear_2") CHECK(n["out_shape"] == nlohmann::json::array({6, 576, 4096}));
    if (name == "language_model.model.layers.0.mlp.up_proj")
      CHECK(n["out_shape"] == nlohmann::json::array({2, r["plan"]["seq"], 11008}));
  }
  CHECK(r["plan"]["images"] == 3);
  CHECK(r["cost"]["images"] == 3);
  CHECK(r["cost"]["flops_per_image_forward"].get<double>() == vision_flops_per_image(trace_golden(kLlava)));
  bool assumed = false;
  for (const auto& a : r["assumptions"]) assumed = assumed || (a["id"] == "images" && a["value"] == "3");
  CHECK(assumed);
  // Bad values are option errors; a short sequence for the images is a warning.
  CHECK(plan(config, {{"images", -1}})["error"]["code"] == "options.value");
  const auto short_seq = plan(config, {{"images", 2}, {"seq", 1024}});
  bool warned = false;
  for (const auto& c : short_seq["checks"]) warned = warned || c["id"] == "image-tokens-exceed-seq";
  CHECK(warned);
}

TEST_CASE("Mamba and Jamba serving hold conv + SSM state per Mamba layer, in the activation dtype") {
  // Mamba defaults: hidden 768, expand 2 (inner 1536), state 16, conv kernel 4.
  const Model mamba = trace_model(Config::parse(R"({"model_type": "mamba", "num_hidden_layers": 2, "use_bias": false})"));
  Options o;
  const int64_t state = int64_t(2) * 1536 * (16 + 4) * 2;  // layers × inner × (state + kernel) × bf16
  CHECK(component(plan_memory(mamba, o, Mode::serve, 1, 1024, {}), "ssm_state") == state);
  CHECK(component(plan_memory(mamba, o, Mode::serve, 3, 65536, {}), "ssm_state") == 3 * state);
  o.kv_dtype = WeightDtype::fp8;  // a KV-cache dtype: not the SSM state's
  o.kv_dtype_set = true;
  CHECK(component(plan_memory(mamba, o, Mode::serve, 1, 1024, {}), "ssm_state") == state);
  Options fp32;
  fp32.serve_dtype = WeightDtype::fp32;
  CHECK(component(plan_memory(mamba, fp32, Mode::serve, 1, 1024, {}), "ssm_state") == 2 * state);

  // Jamba, 16 layers: 14 Mamba layers (inner 2 × 4096, state 16, kernel 4) and 2 attention layers
  // (8 KV heads of 128) whose KV cache grows with the context while the state does not.
  const Model jamba = trace_model(Config::parse(R"({"model_type": "jamba", "num_hidden_layers": 16})"));
  const MemoryPlan a = plan_memory(jamba, Options{}, Mode::serve, 1, 1024, {});
  const MemoryPlan b = plan_memory(jamba, Options{}, Mode::serve, 1, 4096, {});
  CHECK(component(a, "ssm_state") == int64_t(14) * 8192 * (16 + 4) * 2);
  CHECK(component(b, "ssm_state") == component(a, "ssm_state"));
  CHECK(component(a, "kv_cache") == int64_t(2) * 8 * 128 * 2 * 2 * 1024);
  CHECK(component(b, "kv_cache") == 4 * component(a, "kv_cache"));
  CHECK(component(a, "ssm_state") + component(a, "kv_cache") <= a.peak_bytes);
}
}  // namespace multimodal_plan_test

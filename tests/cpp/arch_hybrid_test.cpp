// Structure the golden totals do not pin: per-layer attention windows, MLA's latent KV cache,
// SSM layers without a KV cache, multimodal grafting, and the errors of these families.
#include <catch2/catch.hpp>

#include <algorithm>

#include "arch/registry.hpp"
#include "config.hpp"
#include "error.hpp"
#include "test_util.hpp"

namespace arch_hybrid_test {

using namespace cardfit;

namespace {
Model trace(const std::string& text) { return trace_model(Config::parse(text)); }



ErrorCode error_of(const std::string& text, std::string* path = nullptr) {
  try {
    trace(text);
  } catch (const Error& e) {
    if (path) *path = e.path;
    return e.code;
  }
  FAIL("no error");
  return ErrorCode::internal;
}
}  // namespace

TEST_CASE("Gemma 2 alternates sliding-window and global layers, Gemma 3 slides five in six") {
  const Model g2 = trace(R"({"model_type": "gemma2", "num_hidden_layers": 4, "sliding_window": 4096})");
  auto a = attention_nodes(g2);
  REQUIRE(a.size() == 4);
  CHECK(a[0]->attn.window == 4096);
  CHECK(a[1]->attn.window == 0);
  CHECK(a[2]->attn.window == 4096);
  CHECK(a[3]->attn.window == 0);
  CHECK(find(g2, "model.layers.0.pre_feedforward_layernorm.weight"));

  const Model g3 = trace(R"({"model_type": "gemma3_text", "num_hidden_layers": 12, "sliding_window": 512})");
  a = attention_nodes(g3);
  for (size_t i = 0; i < a.size(); ++i) CHECK(a[i]->attn.window == ((i + 1) % 6 ? 512 : 0));
  CHECK(find(g3, "model.layers.0.self_attn.q_norm.weight")->shape == Shape{256});

  // An explicit layer_types list wins over the pattern, and must list every layer.
  const Model typed = trace(R"({"model_type": "gemma3_text", "num_hidden_layers": 2,
      "layer_types": ["full_attention", "sliding_attention"]})");
  a = attention_nodes(typed);
  CHECK(a[0]->attn.window == 0);
  CHECK(a[1]->attn.window == 4096);
  std::string path;
  CHECK(error_of(R"({"model_type": "gemma3_text", "num_hidden_layers": 3, "layer_types": ["full_attention"]})", &path) ==
        ErrorCode::field_inconsistent);
  CHECK(path == "$.layer_types");
}

TEST_CASE("MLA caches the latent plus the rotary key, not per-head keys and values") {
  const Model m = trace(R"({"model_type": "deepseek_v3", "num_hidden_layers": 4, "first_k_dense_replace": 1,
      "n_routed_experts": 8, "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1,
      "num_nextn_predict_layers": 1})");
  const auto a = attention_nodes(m);
  REQUIRE(a.size() == 4);
  CHECK(a[0]->attn.cache_dim == 512 + 64);
  CHECK(a[0]->attn.head_dim == 192);
  CHECK(a[0]->attn.v_head_dim == 128);
  CHECK(find(m, "model.layers.0.mlp.gate_proj.weight"));  // first_k_dense_replace
  CHECK(find(m, "model.layers.1.mlp.gate.e_score_correction_bias")->shape == Shape{8});
  CHECK(find(m, "model.layers.1.mlp.shared_experts.gate_proj.weight")->shape == Shape{2048, 7168});
  CHECK_FALSE(find(m, "model.layers.4.eh_proj.weight"));  // the MTP layer is not loaded...
  CHECK(std::any_of(m.notes.begin(), m.notes.end(),
                    [](const std::string& n) { return n.find("model.layers.4") != std::string::npos; }));  // ...but named

  // q_lora_rank: null means one q_proj (V2-Lite); an absent key is the class default (1536).
  const Model lite = trace(R"({"model_type": "deepseek_v2", "num_hidden_layers": 1, "q_lora_rank": null,
      "n_routed_experts": null})");
  CHECK(find(lite, "model.layers.0.self_attn.q_proj.weight"));
  CHECK_FALSE(find(lite, "model.layers.0.self_attn.q_a_proj.weight"));
  CHECK(find(lite, "model.layers.0.mlp.down_proj.weight"));
}

TEST_CASE("Mamba holds no KV cache, Jamba caches only its attention layers") {
  const Model mamba = trace(R"({"model_type": "mamba", "num_hidden_layers": 2, "use_bias": false})");
  CHECK(attention_nodes(mamba).empty());
  CHECK(mamba.dims.ssm_layers == 2);
  CHECK(mamba.dims.ssm_inner == 1536);
  CHECK(find(mamba, "backbone.layers.1.mixer.dt_proj.weight")->shape == Shape{1536, 48});
  CHECK(find(mamba, "lm_head.weight")->tied_to == "backbone.embeddings.weight");
  const auto r = plan(R"({"model_type": "mamba", "num_hidden_layers": 2, "use_bias": false})", {{"mode", "serve"}});
  REQUIRE(r["ok"] == true);
  CHECK(r["plan"]["components"]["kv_cache"] == 0);

  const Model jamba = trace(R"({"model_type": "jamba", "num_hidden_layers": 16})");
  const auto a = attention_nodes(jamba);
  REQUIRE(a.size() == 2);
  CHECK(a[0]->name == "model.layers.4.self_attn.attn");
  CHECK(a[1]->name == "model.layers.12.self_attn.attn");
  CHECK(jamba.dims.ssm_layers == 14);
  CHECK(find(jamba, "model.layers.1.feed_forward.experts.15.up_proj.weight"));
  CHECK(find(jamba, "model.layers.2.feed_forward.up_proj.weight"));
}

TEST_CASE("DBRX's fused expert parameters are not nn.Linear: no LoRA target, not quantized by QLoRA") {
  const Model m = trace(R"({"model_type": "dbrx", "n_layers": 1})");
  const Tensor* w1 = find(m, "transformer.blocks.0.ffn.experts.mlp.w1");
  REQUIRE(w1);
  CHECK(w1->shape == Shape{4 * 3584, 2048});
  CHECK_FALSE(w1->linear);
  CHECK(find(m, "transformer.blocks.0.norm_attn_norm.attn.Wqkv.weight")->linear);
}

TEST_CASE("LLaVA traces its text_config with that model's own family, under language_model.") {
  const Model m = trace(R"({"model_type": "llava", "text_config": {"model_type": "mistral", "vocab_size": 32768,
      "hidden_size": 1024, "intermediate_size": 2048, "num_hidden_layers": 2, "num_attention_heads": 8,
      "num_key_value_heads": 2, "sliding_window": 4096},
      "vision_config": {"model_type": "siglip_vision_model", "num_hidden_layers": 2, "vision_use_head": false},
      "vision_feature_layer": [-2, -1]})");
  CHECK(find(m, "language_model.model.layers.1.self_attn.k_proj.weight")->shape == Shape{256, 1024});
  CHECK(find(m, "multi_modal_projector.linear_1.weight")->shape == Shape{1024, 2 * 768});
  CHECK(find(m, "vision_tower.vision_model.embeddings.patch_embedding.bias"));
  CHECK_FALSE(find(m, "vision_tower.vision_model.head.probe"));
  CHECK(m.dims.hidden == 1024);
  const auto a = attention_nodes(m);
  CHECK_FALSE(a.front()->attn.causal);  // the vision tower
  CHECK(a.back()->attn.window == 4096);  // Mistral's sliding window, from the mistral family

  std::string path;
  CHECK(error_of(R"({"model_type": "llava", "vision_config": {"model_type": "pixtral"}})", &path) ==
        ErrorCode::field_range);
  CHECK(path == "$.vision_config.model_type");
}

TEST_CASE("Gemma 3 multimodal: SigLIP pooling head only when vision_use_head is not false") {
  const Model with_head = trace(R"({"model_type": "gemma3", "text_config": {"num_hidden_layers": 1},
      "vision_config": {"num_hidden_layers": 1}})");
  CHECK(find(with_head, "vision_tower.vision_model.head.attention.in_proj_weight")->shape == Shape{3 * 768, 768});
  CHECK(find(with_head, "multi_modal_projector.mm_input_projection_weight")->shape == Shape{768, 2304});
  CHECK(find(with_head, "language_model.lm_head.weight")->tied_to == "language_model.model.embed_tokens.weight");
  const auto r = plan(R"({"model_type": "gemma3", "text_config": {"num_hidden_layers": 1},
      "vision_config": {"num_hidden_layers": 1, "vision_use_head": false}})");
  REQUIRE(r["ok"] == true);
  for (const auto& c : r["checks"])
    if (c["id"] == "forward-pass") CHECK(c["severity"] == "info");
}
}  // namespace arch_hybrid_test

// Gemma 4 with enable_moe_block (gemma-4-26B-A4B, issue 10): every layer runs a dense MLP and 128
// routed experts side by side (modeling_gemma4.py Gemma4TextDecoderLayer, Gemma4TextRouter,
// Gemma4TextExperts). The total derived by hand from those modules; the edges the layer's forward
// takes; the wrapper's language model = gemma4_text's trace; plans in every mode; coded errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/checks.hpp"
#include "plan/graph_costs.hpp"
#include "test_util.hpp"

namespace arch_gemma4_moe_test {

using namespace cardfit;
using nlohmann::json;

namespace {
// gemma-4-26B-A4B's text_config, by hand from the modules' __init__:
constexpr int64_t H = 2816, V = 262144, E = 128, I = 2112, MI = 704;
constexpr int64_t embed = V * H;  // embed_tokens; lm_head tied (Gemma4TextConfig.tie_word_embeddings=True)
// Gemma4TextAttention: sliding layers 16 heads of 256 over 8 kv heads; full layers head_dim 512 and,
// with attention_k_eq_v, num_global_key_value_heads 2 and no v_proj; q_norm and k_norm [head_dim].
constexpr int64_t sliding_attn = H * 16 * 256 + 2 * H * 8 * 256 + 16 * 256 * H + 2 * 256;
constexpr int64_t full_attn = H * 16 * 512 + H * 2 * 512 + 16 * 512 * H + 2 * 512;
constexpr int64_t mlp = 3 * H * I;                        // Gemma4TextMLP gate/up/down_proj
constexpr int64_t router = E * H + H + E;                 // proj.weight, scale, per_expert_scale
constexpr int64_t experts = E * 2 * MI * H + E * H * MI;  // gate_up_proj [E, 2·MI, H], down_proj [E, H, MI]
constexpr int64_t norms = 7 * H;  // input, post_attention, pre/post_feedforward, post_feedforward_1/2, pre_feedforward_2
constexpr int64_t ffn = mlp + router + experts + norms;
constexpr int64_t text_total = embed + 25 * (sliding_attn + ffn) + 5 * (full_attn + ffn) + H;  // + model.norm
static_assert(sliding_attn == 34603520 && full_attn == 49021952 && ffn == 779491456);
static_assert(text_total == 25233141760);  // the card's "25.2B total parameters"
// Gemma4VisionModel (hidden 1152, 27 layers, 16 heads of 72, intermediate 4304, 16 px patches,
// use_clipped_linears false) and embed_vision:
constexpr int64_t VH = 1152;
constexpr int64_t vision_layer = 4 * VH * VH + 2 * 72 + 3 * VH * 4304 + 4 * VH;
constexpr int64_t vision = VH * 3 * 16 * 16 + 2 * 10240 * VH + 27 * vision_layer;
constexpr int64_t embed_vision = H * VH;
static_assert(vision == 569548080);

int64_t active_params(const Model& m) {  // what a token's forward multiplies by: experts count top_k times
  int64_t p = 0;
  for (const auto& b : m.blocks)
    for (const auto& n : b.nodes)
      if (n.experts > 1) p += n.params / n.experts * n.active;
      else if (!n.vocab_head) p += n.params;
  return p;
}
}  // namespace

TEST_CASE("Gemma 4 26B-A4B text: exact total by hand, stacked experts, router tensors") {
  const Model m = trace_golden("gemma-4-26b-a4b-text.json");
  CHECK(m.parameter_count() == text_total);
  CHECK(m.buffer_count() == 30);  // layer_scalar
  const Tensor* gate_up = find(m, "model.layers.7.experts.gate_up_proj");
  REQUIRE(gate_up);
  CHECK(gate_up->shape == Shape{E, 2 * MI, H});
  CHECK_FALSE(gate_up->linear);  // a bare nn.Parameter: PEFT's LoRA and bitsandbytes leave it alone
  CHECK(find(m, "model.layers.7.experts.down_proj")->shape == Shape{E, H, MI});
  CHECK(find(m, "model.layers.7.router.proj.weight")->shape == Shape{E, H});
  CHECK(find(m, "model.layers.7.router.scale")->shape == Shape{H});
  CHECK(find(m, "model.layers.7.router.per_expert_scale")->shape == Shape{E});
  CHECK(find(m, "model.layers.7.mlp.up_proj.weight")->shape == Shape{I, H});
  CHECK(find(m, "model.layers.5.self_attn.v_proj.weight") == nullptr);  // full layer, attention_k_eq_v
  CHECK(find(m, "model.layers.4.self_attn.v_proj.weight")->shape == Shape{8 * 256, H});
  CHECK(shape_errors(m).empty());
  // A token goes through the dense MLP and 8 of 128 experts: the card's "3.8B active" (with the
  // embedding it looks up; the tied head's matmul is not a parameter of its own).
  const int64_t active = active_params(m);
  CHECK(active == text_total - 30 * experts + 30 * experts / E * 8);
  CHECK(active > 3750000000);
  CHECK(active < 3850000000);
}

TEST_CASE("Gemma 4 MoE layer edges: the router and the experts' norm read the residual, the two branches meet") {
  const Model m = trace_golden("gemma-4-26b-a4b-text.json");
  const std::string p = "model.layers.3.";
  const Node* attn_res = find_node(m, p + "residual_attn");
  const Node* pre1 = find_node(m, p + "pre_feedforward_layernorm");
  const Node* rnorm = find_node(m, p + "router.norm");
  const Node* proj = find_node(m, p + "router.proj");
  const Node* pre2 = find_node(m, p + "pre_feedforward_layernorm_2");
  const Node* gate_up = find_node(m, p + "experts.gate_up_proj");
  const Node* down = find_node(m, p + "experts.down_proj");
  const Node* post1 = find_node(m, p + "post_feedforward_layernorm_1");
  const Node* post2 = find_node(m, p + "post_feedforward_layernorm_2");
  const Node* sum = find_node(m, p + "feed_forward_sum");
  const Node* post = find_node(m, p + "post_feedforward_layernorm");
  const Node* res = find_node(m, p + "residual_mlp");
  for (const Node* n : {attn_res, pre1, rnorm, proj, pre2, gate_up, down, post1, post2, sum, post, res}) REQUIRE(n);
  const ValueId r = attn_res->output;
  CHECK(pre1->inputs == std::vector<ValueId>{r});
  CHECK(rnorm->inputs == std::vector<ValueId>{r});  // "Take hidden states before MLP here"
  CHECK(proj->inputs == std::vector<ValueId>{rnorm->output});
  CHECK(pre2->inputs == std::vector<ValueId>{r});
  CHECK(gate_up->inputs == std::vector<ValueId>{pre2->output});
  CHECK(gate_up->experts == E);
  CHECK(gate_up->active == 8);
  CHECK(down->routed_output);
  CHECK(proj->op == Op::router);
  CHECK(proj->params == E * H + E);  // proj.weight + per_expert_scale
  CHECK(rnorm->params == H);         // router.scale
  CHECK(sum->inputs == std::vector<ValueId>{post1->output, post2->output});
  CHECK(post->inputs == std::vector<ValueId>{sum->output});
  CHECK(res->inputs == std::vector<ValueId>{r, post->output});
  // The expert FLOPs per token: top_k experts' gate_up and down, not all 128.
  CHECK(forward_flops_per_token(*gate_up, 2048) == 2.0 * H * 2 * MI * 8);
  CHECK(forward_flops_per_token(*down, 2048) == 2.0 * MI * H * 8);
}

TEST_CASE("Gemma 4 26B-A4B wrapper: exact total, text part = gemma4_text's trace, plans in every mode") {
  const json config = golden_file("gemma-4-26b-a4b-it.json").at("config");
  const Model m = trace_json(config);
  CHECK(m.parameter_count() == text_total + vision + embed_vision);
  CHECK(m.buffer_count() == 30 + 2 * VH);  // layer_scalar; std_bias / std_scale (standardize)
  json text = config.at("text_config");
  const Model lm = trace_json(text);
  CHECK(lm.parameter_count() == text_total);
  for (const auto& t : lm.tensors) {
    const std::string name = t.name.rfind("model.", 0) == 0 ? "model.language_model." + t.name.substr(6) : t.name;
    INFO(name);
    const Tensor* w = find(m, name);
    REQUIRE(w);
    CHECK(w->shape == t.shape);
  }
  CHECK(find(m, "lm_head.weight")->tied_to == "model.language_model.embed_tokens.weight");
  for (const char* mode : {"full", "lora", "qlora", "serve"}) {
    INFO(mode);
    const json r = plan(config.dump(), {{"mode", mode}});
    REQUIRE(r.at("ok") == true);
    CHECK(r["params"]["total"] == text_total + vision + embed_vision);
    CHECK(r["plan"]["peak_bytes"].get<int64_t>() > (text_total + vision) / 2);  // at least 4-bit weights
  }
  // Serving holds bf16 weights: more than the 2 bytes per parameter of the whole model.
  const json serve = plan(config.dump(), {{"mode", "serve"}});
  CHECK(serve["plan"]["peak_bytes"].get<int64_t>() > 2 * (text_total + vision + embed_vision));
}

TEST_CASE("Gemma 4 with enable_moe_block and no expert sizes is a coded error naming the field") {
  json text = golden_file("gemma-4-26b-a4b-text.json").at("config");
  for (const char* key : {"num_experts", "top_k_experts", "moe_intermediate_size"}) {
    INFO(key);
    json bad = text;
    bad.erase(key);
    try {
      trace_json(bad);
      FAIL("traced");
    } catch (const Error& e) {
      CHECK(e.path == std::string("$.") + key);
    }
  }
  json bad = text;
  bad["top_k_experts"] = 200;
  try {
    trace_json(bad);
    FAIL("traced");
  } catch (const Error& e) {
    CHECK(e.path == "$.top_k_experts");
  }
  // Without the MoE block the same config is the dense 30-layer model: no router, no experts.
  json dense = text;
  dense["enable_moe_block"] = false;
  const Model d = trace_json(dense);
  CHECK(d.parameter_count() == text_total - 30 * (router + experts + 3 * H));
  CHECK(find(d, "model.layers.0.router.proj.weight") == nullptr);
}
}  // namespace arch_gemma4_moe_test

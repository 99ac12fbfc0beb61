// Olmo 3 (modeling_olmo3.py Olmo3ForCausalLM): OLMo 2's post-norm layers with 3 sliding : 1 full
// layers. The total by hand; each layer's window from layer_types; what the sliding layers cache when
// serving; the defaults when layer_types or sliding_window are absent or null.
#include <catch2/catch.hpp>

#include "plan/memory.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"

namespace arch_olmo3_test {

using namespace cardfit;
using nlohmann::json;

namespace {
constexpr int64_t V = 100278, H = 4096, I = 11008, L = 32, KV = 32 * 128;
// q/k/v/o, q_norm [H] and k_norm [KV], gate/up/down, post_attention and post_feedforward norms
constexpr int64_t layer = 2 * H * H + 2 * H * KV + H + KV + 3 * H * I + 2 * H;
constexpr int64_t total = 2 * V * H + L * layer + H;  // untied lm_head, model.norm
static_assert(total == 7298011136);
}  // namespace

TEST_CASE("Olmo 3 7B: exact total by hand, the window of each layer from layer_types, no input norm") {
  const Model m = trace_golden("olmo-3-7b-instruct-sft.json");
  CHECK(m.parameter_count() == total);
  CHECK(find(m, "model.layers.0.input_layernorm.weight") == nullptr);
  CHECK(find(m, "lm_head.weight")->tied_to.empty());
  const auto a = attention_nodes(m);
  REQUIRE(a.size() == 32);
  for (size_t i = 0; i < a.size(); ++i) {
    INFO(i);
    CHECK(a[i]->attn.window == ((i + 1) % 4 == 0 ? 0 : 4096));
  }
  // A layer_types list that is not the default pattern is followed layer by layer.
  json c = golden_file("olmo-3-7b-instruct-sft.json").at("config");
  c["layer_types"][0] = "full_attention";
  c["layer_types"][3] = "sliding_attention";
  const Model listed = trace_json(c);
  const auto b = attention_nodes(listed);
  CHECK(b[0]->attn.window == 0);
  CHECK(b[3]->attn.window == 4096);
  CHECK(b[1]->attn.window == 4096);
}

TEST_CASE("Olmo 3 7B serving: the 24 sliding layers cache the 4096-token window, the 8 full layers every token") {
  const Model m = trace_golden("olmo-3-7b-instruct-sft.json");
  // bf16 k and v: 2 tensors x 32 KV heads x 128 x 2 bytes = 16,384 bytes per token per layer.
  constexpr int64_t per_token_layer = 2 * KV * 2;
  const MemoryPlan p = plan_memory(m, Options{}, Mode::serve, 1, 8192, {});
  CHECK(component(p, "kv_cache") == 8 * 8192 * per_token_layer + 24 * 4096 * per_token_layer);
  // Within the window every layer caches every token.
  const MemoryPlan short_ctx = plan_memory(m, Options{}, Mode::serve, 1, 2048, {});
  CHECK(component(short_ctx, "kv_cache") == 32 * 2048 * per_token_layer);
}

TEST_CASE("Olmo 3: without layer_types every 4th layer is full, a null sliding_window slides nowhere, errors name the key") {
  json c = golden_file("olmo-3-7b-instruct-sft.json").at("config");
  c.erase("layer_types");
  c.erase("sliding_window");  // Olmo3Config's default: 4096
  const Model pattern = trace_json(c);
  auto a = attention_nodes(pattern);
  for (size_t i = 0; i < a.size(); ++i) CHECK(a[i]->attn.window == ((i + 1) % 4 == 0 ? 0 : 4096));
  c["sliding_window"] = nullptr;  // Olmo3Attention: sliding_window None, so a plain causal mask
  const Model unwindowed = trace_json(c);
  for (const auto* n : attention_nodes(unwindowed)) CHECK(n->attn.window == 0);
  json bad = golden_file("olmo-3-7b-instruct-sft.json").at("config");
  bad["layer_types"][5] = "linear_attention";
  CHECK(path_of(bad) == "$.layer_types");
  bad = golden_file("olmo-3-7b-instruct-sft.json").at("config");
  bad["layer_types"].erase(0);
  CHECK(path_of(bad) == "$.layer_types");
}
}  // namespace arch_olmo3_test

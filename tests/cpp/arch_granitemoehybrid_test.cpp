// Granite 4.0-H (modeling_granitemoehybrid.py GraniteMoeHybridForCausalLM; issue 10 Tier 2): Mamba-2
// and attention layers by layer_types, every layer with shared_mlp and, with experts, block_sparse_moe.
// The totals by hand; the per-sequence Mamba-2 state by hand; the dense variant; coded errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/memory.hpp"
#include "plan/recurrent_state.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"

namespace arch_granitemoehybrid_test {

using namespace cardfit;
using nlohmann::json;

namespace {
// Granite-4.0-H-Tiny: hidden 1536, 40 layers (36 mamba, 4 attention), vocab 100352, tied.
constexpr int64_t V = 100352, H = 1536;
// GraniteMoeHybridMambaLayer: intermediate = mamba_expand * H = 3072 = 48 heads × 64;
// conv_dim = 3072 + 2 * n_groups(1) * d_state(128) = 3328; in_proj out = 3072 + 3328 + 48 = 6448.
constexpr int64_t inner = 2 * H, conv_dim = inner + 2 * 1 * 128, m_heads = 48;
constexpr int64_t mamba = H * (inner + conv_dim + m_heads)  // in_proj, no bias (mamba_proj_bias false)
                          + conv_dim * 4 + conv_dim           // conv1d [conv_dim, 1, 4] + bias
                          + 3 * m_heads                       // dt_bias, A_log, D
                          + inner                             // norm (RMSNormGated) [3072]
                          + inner * H;                        // out_proj
// GraniteMoeHybridAttention: 12 heads of 1536 / 12 = 128, 4 KV heads, attention_bias false.
constexpr int64_t attn = 2 * H * 12 * 128 + 2 * H * 4 * 128;
// block_sparse_moe: router.layer [64, H], input_linear [64, 2 * 512, H], output_linear [64, H, 512];
// shared_mlp: input_linear [2 * 1024, H], output_linear [H, 1024].
constexpr int64_t moe = 64 * H + 64 * 2 * 512 * H + 64 * H * 512;
constexpr int64_t shared = 2 * 1024 * H + H * 1024;
constexpr int64_t tiny = V * H + 36 * mamba + 4 * attn + 40 * (moe + shared + 2 * H) + H;
static_assert(tiny == 6'939'037'248);
// Granite-4.0-H-1B: the same mixers, num_local_experts 0, shared_intermediate_size 4096.
constexpr int64_t h1b = V * H + 36 * mamba + 4 * attn + 40 * (3 * 4096 * H + 2 * H) + H;
static_assert(h1b == 1'461'538'368);
}  // namespace

TEST_CASE("Granite-4.0-H-Tiny: exact total by hand, Mamba-2 and attention layers by layer_types") {
  const Model m = trace_golden("granite-4.0-h-tiny.json");
  CHECK(m.parameter_count() == tiny);
  CHECK(find(m, "lm_head.weight")->tied_to == "model.embed_tokens.weight");
  CHECK(attention_nodes(m).size() == 4);
  CHECK(find(m, "model.layers.5.self_attn.q_proj.weight"));
  CHECK_FALSE(find(m, "model.layers.5.mamba.in_proj.weight"));
  CHECK_FALSE(find(m, "model.layers.4.self_attn.q_proj.weight"));
  CHECK(find(m, "model.layers.4.mamba.in_proj.weight")->shape == Shape{6448, 1536});
  CHECK(find(m, "model.layers.4.mamba.D")->shape == Shape{48});
  CHECK(m.dims.experts == 64);
  CHECK(m.dims.experts_per_token == 6);
  // The routed experts and shared_mlp read the same normed stream.
  const Node* gate_up = find_node(m, "model.layers.0.block_sparse_moe.input_linear.weight");
  const Node* shared_in = find_node(m, "model.layers.0.shared_mlp.input_linear");
  REQUIRE(gate_up);
  REQUIRE(shared_in);
  CHECK(gate_up->inputs == shared_in->inputs);
  CHECK(gate_up->experts == 64);
  CHECK(gate_up->active == 6);
}

TEST_CASE("Granite-4.0-H-Tiny: per-sequence Mamba-2 state in the model dtype, by hand") {
  const Model m = trace_golden("granite-4.0-h-tiny.json");
  // HybridMambaAttentionDynamicCache(config, batch, dtype=model dtype): per Mamba layer
  //   conv_states [mamba_expand * H + 2 * n_groups * d_state, d_conv] = 3328 × 4 = 13,312 elements;
  //   ssm_states  [mamba_n_heads, mamba_d_head, d_state] = 48 × 64 × 128 = 393,216 elements;
  // both in the model's dtype: bf16 → 406,528 × 2 = 813,056 bytes; 36 layers = 29,270,016 bytes.
  CHECK(recurrent_state_bytes(m, 2) == int64_t(29'270'016));
  CHECK(recurrent_state_bytes(m, 4) == int64_t(2) * 29'270'016);  // both states follow the dtype
  const MemoryPlan a = plan_memory(m, Options{}, Mode::serve, 1, 4096, {});
  const MemoryPlan b = plan_memory(m, Options{}, Mode::serve, 3, 4096, {});
  CHECK(component(a, "ssm_state") == 29'270'016);
  CHECK(component(b, "ssm_state") == 3 * 29'270'016);
  // Only the 4 attention layers (4 KV heads of 128) cache K and V.
  CHECK(component(a, "kv_cache") == int64_t(4) * 4096 * 4 * 128 * 2 * 2);
}

TEST_CASE("Granite-4.0-H-1B: num_local_experts 0 is dense, shared_mlp only") {
  const Model m = trace_golden("granite-4.0-h-1b.json");
  CHECK(m.parameter_count() == h1b);
  CHECK_FALSE(find(m, "model.layers.0.block_sparse_moe.router.layer.weight"));
  CHECK(find(m, "model.layers.0.shared_mlp.input_linear.weight")->shape == Shape{8192, 1536});
  CHECK(m.dims.experts == 0);
}

TEST_CASE("granitemoehybrid: defaults, layers_block_type, untied head, coded errors") {
  const json c = golden_file("granite-4.0-h-tiny.json").at("config");
  // Absent layer_types: every layer is mamba (the config's layers_block_type property).
  json all_mamba = c;
  all_mamba.erase("layer_types");
  const Model only_mamba = trace_json(all_mamba);
  CHECK(attention_nodes(only_mamba).empty());
  CHECK(only_mamba.parameter_count() == tiny + 4 * (mamba - attn));
  json alias = c;
  alias["layers_block_type"] = alias["layer_types"];
  alias.erase("layer_types");
  CHECK(trace_json(alias).parameter_count() == tiny);
  json untied = c;
  untied["tie_word_embeddings"] = false;
  CHECK(trace_json(untied).parameter_count() == tiny + V * H);
  json auto_head = c;
  auto_head["mamba_d_head"] = "auto";  // 3072 / 48 = 64, as given
  CHECK(trace_json(auto_head).parameter_count() == tiny);
  json biased = c;
  biased["mamba_proj_bias"] = true;
  biased["attention_bias"] = true;
  CHECK(trace_json(biased).parameter_count() ==
        tiny + 36 * ((inner + conv_dim + m_heads) + H) + 4 * (12 * 128 + 2 * 4 * 128 + H));

  json bad = c;
  bad["layer_types"][3] = "linear_attention";
  CHECK(refusal(bad).path == "$.layer_types");
  bad = c;
  bad["layer_types"].erase(bad["layer_types"].begin());
  CHECK(refusal(bad).path == "$.layer_types");
  bad = c;
  bad["mamba_d_head"] = 32;
  CHECK(refusal(bad).path == "$.mamba_d_head");
  bad = c;
  bad["mamba_n_heads"] = 47;
  bad.erase("mamba_d_head");
  CHECK(refusal(bad).path == "$.mamba_n_heads");
  bad = c;
  bad["num_experts_per_tok"] = 65;
  CHECK(refusal(bad).path == "$.num_experts_per_tok");

  const json r = plan(c.dump(), {{"mode", "full"}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["params"]["total"] == tiny);
}
}  // namespace arch_granitemoehybrid_test

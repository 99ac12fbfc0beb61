// Falcon-H1 (modeling_falcon_h1.py FalconH1ForCausalLM; issue 10 Tier 2): a Mamba-2 mixer and
// attention side by side in every layer. The total by hand; the per-sequence state by hand; the µP
// multipliers store nothing; mamba_d_ssm / mamba_rms_norm / projectors_bias; coded errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/memory.hpp"
#include "plan/recurrent_state.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"

namespace arch_falcon_h1_test {

using namespace cardfit;
using nlohmann::json;

namespace {
// Falcon-H1-7B: hidden 3072, 44 layers, vocab 130049, untied.
constexpr int64_t V = 130049, H = 3072, L = 44;
// FalconH1Mixer: intermediate = mamba_d_ssm = 3072 = 24 heads × 128; conv_dim = 3072 + 2 * 1 * 256 = 3584;
// in_proj out = 3072 + 3584 + 24 = 6680 (mamba_proj_bias false); out_proj bias = projectors_bias (false).
constexpr int64_t inner = 3072, conv_dim = inner + 2 * 256, m_heads = 24;
constexpr int64_t mamba = H * (inner + conv_dim + m_heads) + conv_dim * 4 + conv_dim + 3 * m_heads
                          + inner  // FalconH1RMSNormGated [3072] (mamba_rms_norm true)
                          + inner * H;
// LlamaAttention with head_dim 128: q [12 * 128, H], k/v [2 * 128, H], o [H, 1536].
constexpr int64_t attn = 2 * H * 12 * 128 + 2 * H * 2 * 128;
constexpr int64_t mlp = 3 * H * 12288;
constexpr int64_t total = 2 * V * H + L * (mamba + attn + mlp + 2 * H) + H;
static_assert(total == 7'585'654'880);
}  // namespace

TEST_CASE("Falcon-H1-7B: exact total by hand, a Mamba-2 mixer and attention in every layer") {
  const Model m = trace_golden("falcon-h1-7b-instruct.json");
  CHECK(m.parameter_count() == total);
  CHECK(m.buffer_count() == 0);  // mup_vector is a non-persistent buffer
  CHECK(attention_nodes(m).size() == size_t(L));
  CHECK(find(m, "lm_head.weight")->tied_to.empty());
  CHECK(find(m, "model.layers.7.mamba.in_proj.weight")->shape == Shape{6680, 3072});
  CHECK(find(m, "model.layers.7.self_attn.q_proj.weight")->shape == Shape{1536, 3072});
  // Both branches read the one input_layernorm output; the attention's add reads the mixer's sum.
  const Node* norm = find_node(m, "model.layers.0.input_layernorm");
  const Node* in_proj = find_node(m, "model.layers.0.mamba.in_proj");
  const Node* q = find_node(m, "model.layers.0.self_attn.q_proj");
  REQUIRE(norm);
  REQUIRE(in_proj);
  REQUIRE(q);
  CHECK(in_proj->inputs == std::vector<ValueId>{norm->output});
  CHECK(q->inputs == std::vector<ValueId>{norm->output});
}

TEST_CASE("Falcon-H1-7B: every layer keeps K/V and a Mamba-2 state, by hand") {
  const Model m = trace_golden("falcon-h1-7b-instruct.json");
  // FalconHybridMambaAttentionDynamicCache(dtype = model dtype), every one of the 44 layers:
  //   conv_states [mamba_d_ssm + 2 * n_groups * d_state, d_conv] = 3584 × 4 = 14,336 elements;
  //   ssm_states  [mamba_n_heads, mamba_d_head, d_state] = 24 × 128 × 256 = 786,432 elements;
  // bf16: 800,768 × 2 = 1,601,536 bytes a layer, 70,467,584 bytes a sequence.
  CHECK(recurrent_state_bytes(m, 2) == int64_t(70'467'584));
  const MemoryPlan a = plan_memory(m, Options{}, Mode::serve, 1, 8192, {});
  const MemoryPlan b = plan_memory(m, Options{}, Mode::serve, 2, 8192, {});
  CHECK(component(a, "ssm_state") == 70'467'584);
  CHECK(component(b, "ssm_state") == 2 * 70'467'584);
  CHECK(component(a, "kv_cache") == L * 8192 * 2 * 128 * 2 * 2);
}

TEST_CASE("falcon_h1: mamba_d_ssm default and null, mamba_rms_norm, projectors_bias, coded errors") {
  const json c = golden_file("falcon-h1-7b-instruct.json").at("config");
  json plain = c;
  plain["mamba_rms_norm"] = false;  // y * silu(z): no norm weight
  CHECK(trace_json(plain).parameter_count() == total - L * inner);
  CHECK_FALSE(find(trace_json(plain), "model.layers.0.mamba.norm.weight"));
  json biased = c;
  biased["projectors_bias"] = true;  // out_proj only
  CHECK(trace_json(biased).parameter_count() == total + L * H);
  biased["mamba_proj_bias"] = true;  // and in_proj
  CHECK(trace_json(biased).parameter_count() == total + L * (H + inner + conv_dim + m_heads));
  json multipliers = c;
  multipliers.erase("ssm_multipliers");
  multipliers.erase("mlp_multipliers");
  multipliers["key_multiplier"] = 1.0;
  CHECK(trace_json(multipliers).parameter_count() == total);
  // mamba_d_ssm null: mamba_expand * hidden_size = 6144 (48 heads of 128).
  json expand = c;
  expand["mamba_d_ssm"] = nullptr;
  expand["mamba_n_heads"] = 48;
  const int64_t wide = 6144, wide_conv = wide + 512;
  const int64_t wide_mamba = H * (wide + wide_conv + 48) + wide_conv * 5 + 3 * 48 + wide + wide * H;
  CHECK(trace_json(expand).parameter_count() == total + L * (wide_mamba - mamba));

  json bad = c;
  bad.erase("mamba_d_ssm");  // the class default 1024 is not 24 heads of anything
  CHECK(refusal(bad).path == "$.mamba_n_heads");
  bad = c;
  bad["mamba_d_head"] = 64;  // 24 × 64 is not mamba_d_ssm
  CHECK(refusal(bad).path == "$.mamba_d_head");
  bad = c;
  bad["mamba_n_heads"] = 25;
  bad.erase("mamba_d_head");
  CHECK(refusal(bad).path == "$.mamba_n_heads");
  bad = c;
  bad["num_key_value_heads"] = 5;
  CHECK(refusal(bad).path == "$.num_key_value_heads");

  const json r = plan(c.dump(), {{"mode", "full"}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["params"]["total"] == total);
}
}  // namespace arch_falcon_h1_test

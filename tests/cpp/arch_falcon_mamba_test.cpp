// FalconMamba (modeling_falcon_mamba.py FalconMambaForCausalLM, tiiuae/falcon-mamba-7b): Mamba's
// parameters under FalconMambaConfig's defaults. The total by hand; the stored intermediate_size
// over expand; the class default that differs from Mamba's.
#include <catch2/catch.hpp>

#include "test_util.hpp"

namespace arch_falcon_mamba_test {

using namespace cardfit;
using nlohmann::json;

namespace {
constexpr int64_t V = 65024, H = 4096, inner = 8192, N = 16, R = 256, K = 4, L = 64;
constexpr int64_t mixer = 2 * inner * H + (inner * K + inner) + (R + 2 * N) * inner + (inner * R + inner) + inner * N +
                          inner + H * inner;  // in_proj, conv1d, x_proj, dt_proj, A_log, D, out_proj
constexpr int64_t total = 2 * V * H + L * (H + mixer) + H;
static_assert(total == 7272665088);  // the model card's 7.27B
}  // namespace

TEST_CASE("falcon-mamba-7b (falcon_mamba): exact total by hand, Mamba's mixer, no projection biases") {
  const Model m = trace_golden("falcon-mamba-7b.json");
  CHECK(m.parameter_count() == total);
  CHECK(m.family == "mamba");
  // expand is 16 in the file, but intermediate_size 8192 is stored and the checkpoint follows it.
  CHECK(find(m, "backbone.layers.0.mixer.in_proj.weight")->shape == Shape{2 * inner, H});
  CHECK(find(m, "backbone.layers.0.mixer.in_proj.bias") == nullptr);
  CHECK(find(m, "lm_head.weight")->tied_to.empty());

  // FalconMambaConfig's use_bias is False (MambaConfig's True): absent, no in_proj / out_proj bias.
  json c = golden_file("falcon-mamba-7b.json").at("config");
  c.erase("use_bias");
  CHECK(trace_json(c).parameter_count() == total);
  c["model_type"] = "mamba";
  CHECK(trace_json(c).parameter_count() == total + L * (2 * inner + H));
  const json r = plan(golden_file("falcon-mamba-7b.json").at("config").dump(), {{"mode", "serve"}});
  REQUIRE(r.at("ok") == true);
  CHECK(r["params"]["total"] == total);
}
}  // namespace arch_falcon_mamba_test

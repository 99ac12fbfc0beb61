// GPT-Neo (modeling_gpt_neo.py GPTNeoForCausalLM, EleutherAI/gpt-neo-125m): the total by hand, the
// stored buffers, attention_types read as GPTNeoConfig expands them, eager attention by default
// (the class has no SDPA path), and the fp32 q and k its eager scores keep without autocast.
#include <catch2/catch.hpp>

#include <algorithm>

#include "plan/memory.hpp"
#include "plan/options.hpp"
#include "test_util.hpp"

namespace arch_gpt_neo_test {

using namespace cardfit;
using nlohmann::json;

namespace {
constexpr int64_t V = 50257, H = 768, P = 2048, I = 4 * H, L = 12;
constexpr int64_t layer = 2 * H + 3 * H * H + (H * H + H) + 2 * H + (I * H + I) + (H * I + H);
constexpr int64_t total = V * H + P * H + L * layer + 2 * H;  // lm_head tied to wte
static_assert(total == 125198592);  // the model card's 125M

json config() { return golden_file("gpt-neo-125m.json").at("config"); }

// The largest activations per sample over the step's moments.
int64_t peak_activations(const Model& m, const std::string& options) {
  const MemoryModel mm(m, parse_options(options), Mode::full, 2048, Overheads{805306368, 0.05});
  int64_t most = 0;
  for (const auto& e : mm.events()) most = std::max(most, e.per_sample[size_t(MemoryModel::kActsC)]);
  return most;
}
}  // namespace

TEST_CASE("gpt-neo-125m (gpt_neo): exact total by hand, separate q/k/v without bias, the stored masks") {
  const Model m = trace_golden("gpt-neo-125m.json");
  CHECK(m.parameter_count() == total);
  CHECK(find(m, "transformer.h.0.attn.attention.q_proj.weight")->shape == Shape{H, H});
  CHECK(find(m, "transformer.h.0.attn.attention.q_proj.bias") == nullptr);
  CHECK(find(m, "transformer.h.0.attn.attention.out_proj.bias")->shape == Shape{H});
  CHECK(find(m, "lm_head.weight")->tied_to == "transformer.wte.weight");
  CHECK(m.buffer_count() == L * (P * P + 1));  // attn.attention.bias [1, 1, P, P] and masked_bias []

  json c = config();
  c["tie_word_embeddings"] = false;
  CHECK(trace_json(c).parameter_count() == total + V * H);
  c = config();
  c["intermediate_size"] = 1000;
  CHECK(trace_json(c).parameter_count() == total + L * (1000 - I) * (2 * H + 1));  // c_fc and its bias, c_proj
}

TEST_CASE("gpt_neo: attention_types expands as GPTNeoConfig does, errors name the key") {
  auto error_of = [](const json& c) { return plan(c.dump()).at("error"); };
  json c = config();
  c["attention_types"] = json::parse(R"([[["global", "local"], 5]])");
  json e = error_of(c);
  CHECK(e["code"] == "config.field_inconsistent");
  CHECK(e["path"] == "$.attention_types");
  CHECK(e["message"] == "$.attention_types expands to fewer layer types than num_layers.");
  c["attention_types"] = json::parse(R"([[["global"], 1000000000000000000]])");  // counted, not expanded
  CHECK(error_of(c)["code"] == "config.field_inconsistent");
  c["attention_types"] = json::parse(R"([[["global"], -1]])");
  CHECK(error_of(c)["code"] == "config.field_type");
  c["attention_types"] = json::parse(R"([[["global", "sparse"], 6]])");
  CHECK(error_of(c)["code"] == "config.field_range");
  c["attention_types"] = json::parse(R"([[[], 6]])");
  CHECK(error_of(c)["code"] == "config.field_type");
  c["attention_types"] = json::parse(R"([[["global"], 6], [["local"], 6]])");
  CHECK(trace_json(c).parameter_count() == total);
  c.erase("attention_types");  // the class default: 24 layers
  CHECK(error_of(c)["path"] == "$.num_layers");
  c["num_layers"] = 24;
  CHECK(trace_json(c).parameter_count() == total + 12 * layer);
}

TEST_CASE("gpt_neo: eager attention unless asked, its fp32 q and k kept without autocast") {
  const json r = plan(config().dump());
  REQUIRE(r.at("ok") == true);
  CHECK(r["plan"]["attention"] == "eager");
  const auto a = std::find_if(r["assumptions"].begin(), r["assumptions"].end(), [](const json& x) { return x["id"] == "attention"; });
  REQUIRE(a != r["assumptions"].end());
  CHECK((*a)["text"].get<std::string>().find("no SDPA path") != std::string::npos);
  CHECK(plan(config().dump(), {{"attention", "sdpa"}})["plan"]["attention"] == "sdpa");
  CHECK(plan(config().dump(), {{"mode", "serve"}})["plan"]["attention"] == "eager");  // generate runs it too

  // The same model with the flag cleared: only q and k of each layer's scores change dtype.
  const Model neo = trace_golden("gpt-neo-125m.json");
  Model plain = neo;
  for (auto& b : plain.blocks)
    for (auto& n : b.nodes) n.attn.fp32_qk = false;
  const std::string pure = R"({"precision": "bf16", "autocast": false})";
  CHECK(peak_activations(neo, pure) - peak_activations(plain, pure) == L * 2 * 2048 * H * (4 - 2));
  CHECK(peak_activations(neo, "{}") == peak_activations(plain, "{}"));  // autocast's matmul is 16-bit
  CHECK(peak_activations(neo, R"({"attention": "flash"})") == peak_activations(plain, R"({"attention": "flash"})"));
}
}  // namespace arch_gpt_neo_test

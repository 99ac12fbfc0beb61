// The entry point: report fields of the contract, coded errors, and options.
#include <catch2/catch.hpp>

#include "test_util.hpp"

namespace handle_test {

using nlohmann::json;

TEST_CASE("gpt2 report carries the contract fields") {
  const json r = plan(example("gpt2.json"));
  REQUIRE(r["ok"] == true);
  CHECK(r["schema"] == "cardfit.report/2");
  CHECK(r["model"]["model_type"] == "gpt2");
  CHECK(r["params"]["total"] == 124439808);
  const json& t0 = r["params"]["tensors"][0];
  CHECK(t0["name"] == "transformer.wte.weight");
  CHECK(t0["shape"] == json::array({50257, 768}));
  CHECK(r["params"]["buffers_total"] == 12582912);
  CHECK(r["graph"]["nodes"].size() > 100);
  CHECK(r["plan"]["peak_bytes"].get<int64_t>() > 0);
  CHECK(r["plan"]["reserved_bytes"].get<int64_t>() > r["plan"]["peak_bytes"].get<int64_t>());
  CHECK(r["cards"].size() >= 10);
  CHECK(r["headline"].get<std::string>().find("gpt2") != std::string::npos);
  CHECK(r["markdown"].get<std::string>().find("124,439,808") != std::string::npos);
  // The folded structure: 12 identical layers shown once.
  bool folded = false;
  for (const auto& b : r["graph"]["blocks"]) folded = folded || b["repeat"] == 12;
  CHECK(folded);
}

TEST_CASE("the four foundation models give their exact totals") {
  CHECK(plan(example("Meta-Llama-3-8B.json"))["params"]["total"] == 8030261248LL);
  CHECK(plan(example("Mistral-7B-v0.1.json"))["params"]["total"] == 7241732096LL);
  CHECK(plan(example("Qwen2.5-7B.json"))["params"]["total"] == 7615616512LL);
  CHECK(plan(example("Qwen2.5-3B.json"))["params"]["total"] == 3085938688LL);
}

TEST_CASE("errors are coded data with a path") {
  json r = plan("{\"model_type\": \"gpt2\",");
  CHECK(r["ok"] == false);
  CHECK(r["error"]["code"] == "config.json_syntax");
  CHECK(r["error"]["line"] == 1);

  r = plan(R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "n_positions": 1024})");
  CHECK(r["error"]["code"] == "config.field_missing");
  CHECK(r["error"]["path"] == "$.vocab_size");

  r = plan(R"({"model_type": "llama", "vocab_size": 100, "hidden_size": 100, "num_hidden_layers": 2,
              "num_attention_heads": 3, "intermediate_size": 10})");
  CHECK(r["error"]["code"] == "config.field_inconsistent");
  CHECK(r["error"]["path"] == "$.num_attention_heads");

  r = plan(R"({"model_type": "no-such-model", "hidden_size": 64})");
  CHECK(r["error"]["code"] == "config.model_type_unknown");
  CHECK(r["error"]["message"].get<std::string>().find("vocab_size") != std::string::npos);

  r = plan(example("gpt2.json"), {{"mode", "turbo"}});
  CHECK(r["error"]["code"] == "options.value");
  CHECK(r["error"]["path"] == "mode");
  r = plan(example("gpt2.json"), {{"batchsize", 2}});
  CHECK(r["error"]["code"] == "options.unknown");
  r = plan(example("gpt2.json"), {{"card", "gtx-9999"}});
  CHECK(r["error"]["code"] == "options.value");
}

TEST_CASE("an unknown model_type with the standard keys is traced approximately, and says so") {
  json r = plan(R"({"model_type": "my-llama", "vocab_size": 1000, "hidden_size": 256, "num_hidden_layers": 2,
                    "num_attention_heads": 4, "intermediate_size": 512})");
  REQUIRE(r["ok"] == true);
  CHECK(r["model"]["approximate"] == true);
  bool flagged = false;
  for (const auto& c : r["checks"]) flagged = flagged || c["id"] == "approximate-trace";
  CHECK(flagged);
}

TEST_CASE("options select the requested plan") {
  const json r = plan(example("Meta-Llama-3-8B.json"),
                      {{"mode", "lora"}, {"batch", 4}, {"seq", 2048}, {"lora_rank", 16}});
  REQUIRE(r["ok"] == true);
  CHECK(r["plan"]["mode"] == "lora");
  CHECK(r["plan"]["batch"] == 4);
  CHECK(r["plan"]["seq"] == 2048);
  CHECK(r["plan"]["components"].contains("adapters"));
  // LoRA r=16 on all 7 linear projections of 32 layers: r * (in + out) each.
  const int64_t per_layer = 16 * ((4096 + 4096) * 2 + (4096 + 1024) * 2 + (4096 + 14336) * 3);
  CHECK(r["plan"]["trainable_params"] == per_layer * 32);
}
}  // namespace handle_test

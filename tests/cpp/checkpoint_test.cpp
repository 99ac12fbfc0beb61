// Reconciliation against a published total and a safetensors header.
#include <catch2/catch.hpp>

#include "test_util.hpp"

using nlohmann::json;

TEST_CASE("gpt2's published 137,022,720 scalars are fully explained by parameters and masks") {
  const json r = plan(example("gpt2.json"), {{"checkpoint_total", 137022720}});
  REQUIRE(r["ok"] == true);
  CHECK(r["checkpoint"]["scalars"] == 137022720);
  CHECK(r["checkpoint"]["buffers"] == 12582912);
  CHECK(r["checkpoint"]["unexplained"] == 0);
}

TEST_CASE("a safetensors header is diffed tensor by tensor, with the base prefix stripped") {
  // A tiny header in the published gpt2 layout (names without "transformer."), one shape wrong,
  // one extra tensor and the rest missing.
  json header = {{"__metadata__", {{"format", "pt"}}},
                 {"wte.weight", {{"dtype", "F32"}, {"shape", {50257, 768}}, {"data_offsets", {0, 1}}}},
                 {"h.0.ln_1.weight", {{"dtype", "F32"}, {"shape", {769}}, {"data_offsets", {0, 1}}}},
                 {"h.0.attn.bias", {{"dtype", "F32"}, {"shape", {1, 1, 1024, 1024}}, {"data_offsets", {0, 1}}}},
                 {"surprise", {{"dtype", "F32"}, {"shape", {3}}, {"data_offsets", {0, 1}}}}};
  const json r = plan(example("gpt2.json"), {{"safetensors_header", header.dump()}});
  REQUIRE(r["ok"] == true);
  const json& c = r["checkpoint"];
  CHECK(c["scalars"] == 50257 * 768 + 769 + 1024 * 1024 + 3);
  CHECK(c["extra"] == json::array({"surprise"}));
  REQUIRE(c["shape_mismatches"].size() == 1);
  CHECK(c["shape_mismatches"][0]["name"] == "transformer.h.0.ln_1.weight");
  CHECK(c["missing"].size() == 148 - 2);  // every stored parameter but wte and ln_1 (the tied head is optional)
}

TEST_CASE("a broken header is a coded error") {
  const json r = plan(example("gpt2.json"), {{"safetensors_header", "{not json"}});
  CHECK(r["error"]["code"] == "checkpoint.header");
}

TEST_CASE("a tied head stored again in the file is a counted copy, not unexplained") {
  json header = {{"transformer.wte.weight", {{"dtype", "F32"}, {"shape", {50257, 768}}, {"data_offsets", {0, 1}}}},
                 {"lm_head.weight", {{"dtype", "F32"}, {"shape", {50257, 768}}, {"data_offsets", {0, 1}}}}};
  const json r = plan(example("gpt2.json"), {{"safetensors_header", header.dump()}});
  REQUIRE(r["ok"] == true);
  CHECK(r["checkpoint"]["tied_copies"] == 50257 * 768);
  CHECK(r["checkpoint"]["extra"].empty());
  // The file lacks every other tensor, so the remainder is negative by exactly those parameters.
  CHECK(r["checkpoint"]["unexplained"] == 50257 * 768 - 124439808LL - 12582912LL);
}

TEST_CASE("an index with a stated total (the hub's safetensors.total) reconciles the total by the index's names") {
  json weight_map = json::object();
  for (const char* n : {"wte.weight", "wpe.weight", "surprise"}) weight_map[n] = "model-00001-of-00002.safetensors";
  const json index = {{"metadata", {{"total_size", 548090880}}}, {"weight_map", weight_map}};
  const json r = plan(example("gpt2.json"), {{"safetensors_index", index.dump()}, {"checkpoint_total", 137022720}});
  REQUIRE(r["ok"] == true);
  const json& c = r["checkpoint"];
  CHECK(c["source"] == "safetensors_index+checkpoint_total");
  CHECK(c["scalars"] == 137022720);
  CHECK(c["unexplained"] == 0);
  CHECK(c["extra"] == json::array({"surprise"}));
  CHECK(c["total_bytes"] == 548090880);
  // Without the total the index alone gives names, not a count.
  const json alone = plan(example("gpt2.json"), {{"safetensors_index", index.dump()}});
  CHECK(alone["checkpoint"]["scalars"].is_null());
}

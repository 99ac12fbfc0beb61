// Reconciliation against a published total and a safetensors header.
#include <catch2/catch.hpp>

#include "test_util.hpp"

namespace checkpoint_test {

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
  // The file lacks every other tensor (the masks too), so the remainder is negative by exactly
  // those parameters; buffers the file does not store are not subtracted.
  CHECK(r["checkpoint"]["buffers"] == 0);
  CHECK(r["checkpoint"]["unexplained"] == 50257 * 768 - 124439808LL);
}

TEST_CASE("an index with a stated total (the hub's safetensors.total) reconciles the total by the index's names") {
  json weight_map = json::object();
  for (const char* n : {"wte.weight", "wpe.weight", "surprise"}) weight_map[n] = "model-00001-of-00002.safetensors";
  for (int i = 0; i < 12; i++) weight_map["h." + std::to_string(i) + ".attn.bias"] = "model-00002-of-00002.safetensors";
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

namespace {
// gpt2's full header as the core traces it (published names, without "transformer."), optionally
// without the causal masks and with one tensor's shape changed.
json gpt2_header(bool masks, const std::string& reshape = "", const json& shape = nullptr) {
  const cardfit::Model m = trace_json(json::parse(example("gpt2.json")));
  json header = {{"__metadata__", {{"format", "pt"}}}};
  auto add = [&](const cardfit::Tensor& x) {
    std::string name = x.name;
    if (name.rfind("transformer.", 0) == 0) name = name.substr(12);
    header[name] = {{"dtype", "F32"}, {"shape", name == reshape ? shape : json(x.shape)}, {"data_offsets", {0, 1}}};
  };
  for (const auto& x : m.tensors)
    if (x.tied_to.empty()) add(x);
  if (masks)
    for (const auto& x : m.buffers) add(x);
  return header;
}
}  // namespace

TEST_CASE("buffers come from the header: a gpt2 file without the attn.bias masks is fully explained") {
  const json full = plan(example("gpt2.json"), {{"safetensors_header", gpt2_header(true).dump()}});
  REQUIRE(full["ok"] == true);
  CHECK(full["checkpoint"]["buffers"] == 12582912);
  CHECK(full["checkpoint"]["unexplained"] == 0);
  // What current transformers saves: no masks. Not "+ 12,582,912 buffers + -12,582,912 unexplained".
  const json now = plan(example("gpt2.json"), {{"safetensors_header", gpt2_header(false).dump()}});
  REQUIRE(now["ok"] == true);
  CHECK(now["checkpoint"]["scalars"] == 124439808);
  CHECK(now["checkpoint"]["buffers"] == 0);
  CHECK(now["checkpoint"]["unexplained"] == 0);
  // A real mismatch (wpe with 57 positions fewer: 57 × 768 = 43,776 scalars) reads as itself.
  const json off = plan(example("gpt2.json"), {{"safetensors_header", gpt2_header(false, "wpe.weight", json::array({1024 - 57, 768})).dump()}});
  REQUIRE(off["ok"] == true);
  CHECK(off["checkpoint"]["unexplained"] == -43776);
  CHECK(off["checkpoint"]["shape_mismatches"].size() == 1);
}
}  // namespace checkpoint_test

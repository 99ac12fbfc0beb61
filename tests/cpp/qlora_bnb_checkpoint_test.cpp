// QLoRA on a pre-quantized bitsandbytes checkpoint trains on the checkpoint's own quantization
// (plan/checkpoint_quant.hpp): its bnb_4bit_quant_type, bnb_4bit_use_double_quant and load_in_8bit
// stand in for qlora_quant / double_quant unless those options are given. Llama-3-8B
// (tests/golden/models/meta-llama-3-8b.json) with the quantization_config BitsAndBytesConfig writes.
#include <catch2/catch.hpp>

#include <string>

#include "plan/checkpoint_quant.hpp"
#include "test_util.hpp"

namespace qlora_bnb_checkpoint_test {

using nlohmann::json;
using namespace cardfit;

namespace {
json bnb(const std::string& type, bool double_quant, bool eight = false) {
  json q = {{"quant_method", "bitsandbytes"}, {"load_in_4bit", !eight}, {"load_in_8bit", eight},
            {"bnb_4bit_quant_type", type}, {"bnb_4bit_use_double_quant", double_quant},
            {"bnb_4bit_compute_dtype", "bfloat16"}, {"bnb_4bit_quant_storage", "uint8"}};
  json cfg = golden_file("meta-llama-3-8b.json").at("config");
  cfg["quantization_config"] = q;
  return cfg;
}
json plain() { return golden_file("meta-llama-3-8b.json").at("config"); }

json qlora(const json& cfg, json options = json::object()) {
  options["mode"] = "qlora";
  const json r = plan(cfg.dump(), options);
  REQUIRE(r.at("ok") == true);
  return r;
}
const json& assumption(const json& r, const std::string& id) {
  for (const auto& a : r["assumptions"])
    if (a["id"] == id) return a;
  FAIL("no assumption " << id);
  return r;
}
std::string text_of(const json& r, const std::string& id) { return assumption(r, id)["text"].get<std::string>(); }
}  // namespace

TEST_CASE("QLoRA on a bitsandbytes fp4 checkpoint without double quantization plans that base") {
  const json r = qlora(bnb("fp4", false));
  // The same training peak as the plain config with those options given, not the nf4 + double default.
  const json given = qlora(plain(), {{"qlora_quant", "fp4"}, {"double_quant", false}});
  const json dflt = qlora(plain());
  CHECK(r["plan"]["qlora_quant"] == "fp4");
  CHECK(r["plan"]["double_quant"] == false);  // the echo the page's form defaults read
  CHECK(dflt["plan"]["double_quant"] == true);
  CHECK(r["plan"]["peak_bytes"] == given["plan"]["peak_bytes"]);
  CHECK(r["plan"]["peak_bytes"] != dflt["plan"]["peak_bytes"]);
  const std::string text = text_of(r, "qlora");
  CHECK(text.find("qlora_quant fp4 and double_quant false from the checkpoint's quantization_config "
                  "(bnb_4bit_quant_type, bnb_4bit_use_double_quant)") != std::string::npos);
  CHECK(assumption(r, "qlora")["value"] == "fp4");
  CHECK(assumption(r, "qlora")["source"].get<std::string>().find("quantizer_bnb_4bit.py") != std::string::npos);
  CHECK(text_of(r, "stored_format").find("planned here with qlora_quant fp4 and double_quant false from the checkpoint's") !=
        std::string::npos);
}

TEST_CASE("QLoRA on a bitsandbytes checkpoint: qlora_quant and double_quant given win") {
  const json r = qlora(bnb("fp4", false), {{"qlora_quant", "nf4"}, {"double_quant", true}});
  const json dflt = qlora(plain());
  CHECK(r["plan"]["qlora_quant"] == "nf4");
  CHECK(r["plan"]["peak_bytes"] == dflt["plan"]["peak_bytes"]);
  CHECK(text_of(r, "qlora").find("from the checkpoint") == std::string::npos);
  CHECK(text_of(r, "qlora") == text_of(dflt, "qlora"));
  // One given, the other still the checkpoint's.
  const json half = qlora(bnb("fp4", false), {{"qlora_quant", "nf4"}});
  CHECK(half["plan"]["qlora_quant"] == "nf4");
  CHECK(half["plan"]["peak_bytes"] == qlora(plain(), {{"double_quant", false}})["plan"]["peak_bytes"]);
  CHECK(text_of(half, "qlora").find("; double_quant false from the checkpoint's quantization_config "
                                    "(bnb_4bit_use_double_quant)") != std::string::npos);
}

TEST_CASE("QLoRA on an 8-bit bitsandbytes checkpoint plans LLM.int8") {
  const json r = qlora(bnb("fp4", false, true));
  CHECK(r["plan"]["qlora_quant"] == "int8");
  CHECK(r["plan"]["peak_bytes"] == qlora(plain(), {{"qlora_quant", "int8"}})["plan"]["peak_bytes"]);
  CHECK(text_of(r, "qlora").find("qlora_quant int8 from the checkpoint's quantization_config (load_in_8bit)") !=
        std::string::npos);
}

TEST_CASE("with_checkpoint_quant: only a bitsandbytes checkpoint's unset options move") {
  const Model quantized = trace_json(bnb("nf4", false));
  REQUIRE(quantized.stored_bnb);
  CHECK(quantized.stored_bnb->kind == StoredBnb::Kind::nf4);
  CHECK_FALSE(quantized.stored_bnb->double_quant);
  const Options o = with_checkpoint_quant(quantized, Options{});
  CHECK(o.qlora_quant == QuantKind::nf4);
  CHECK_FALSE(o.double_quant);
  CHECK(checkpoint_quant_clause(quantized, Options{}) ==
        "qlora_quant nf4 and double_quant false from the checkpoint's quantization_config (bnb_4bit_quant_type, "
        "bnb_4bit_use_double_quant)");
  const Model m = trace_json(plain());
  CHECK_FALSE(m.stored_bnb);
  CHECK(with_checkpoint_quant(m, Options{}) == Options{});
  CHECK(checkpoint_quant_clause(m, Options{}).empty());
  // Other stored formats carry no QLoRA base.
  json fp8 = plain();
  fp8["quantization_config"] = {{"quant_method", "fp8"}, {"weight_block_size", {128, 128}}};
  CHECK_FALSE(trace_json(fp8).stored_bnb);
}
}  // namespace qlora_bnb_checkpoint_test

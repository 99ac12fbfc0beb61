// The option schema against the parser it drives and the struct it fills: every stated default is
// Options{}'s, every listed value and range end is accepted and one past it refused with a message
// that names the bounds; the export lists every entry; no message grows with the value it quotes.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "cardfit/describe.hpp"
#include "error.hpp"
#include "plan/option_schema.hpp"
#include "plan/options.hpp"

namespace option_schema_test {

using namespace cardfit;
using nlohmann::json;

namespace {
Options parse_one(std::string_view name, const json& value) {
  return parse_options(json{{std::string(name), value}}.dump());
}
Error refusal(const std::string& options_text) {
  try {
    parse_options(options_text);
  } catch (const Error& e) {
    return e;
  }
  FAIL("accepted: " << options_text.substr(0, 80));
  return Error(ErrorCode::internal, "");
}
Error refusal(std::string_view name, const json& value) { return refusal(json{{std::string(name), value}}.dump()); }
}  // namespace

TEST_CASE("every literal default of the schema is the default of Options") {
  int literal = 0;
  for (const auto& s : option_specs()) {
    if (s.default_json.empty()) continue;
    ++literal;
    INFO(s.name);
    CHECK(parse_one(s.name, json::parse(s.default_json)) == Options{});
  }
  CHECK(literal >= 20);
}

TEST_CASE("an option given away from its default changes Options") {
  // Each entry's store reaches a field: a value other than the default gives other Options.
  for (const auto& s : option_specs()) {
    INFO(s.name);
    json v;
    switch (s.type) {
      case OptionType::enumeration: v = std::string(s.values.back()); break;
      case OptionType::integer: v = s.int_max; break;
      case OptionType::number: v = s.num_max; break;
      case OptionType::boolean: v = s.default_json != "true"; break;
      case OptionType::names: v = json::array({"zz_proj"}); break;
      case OptionType::map: v = {{"h100-sxm", 1.25}}; break;
      case OptionType::text: v = "t4"; break;
    }
    CHECK_FALSE(parse_one(s.name, v) == Options{});
  }
}

TEST_CASE("enum options accept exactly their table's names and list them when refusing") {
  for (const auto& s : option_specs()) {
    if (s.type != OptionType::enumeration) continue;
    INFO(s.name);
    std::string listed;
    for (auto v : s.values) {
      CHECK_NOTHROW(parse_one(s.name, std::string(v)));
      listed += (listed.empty() ? "" : ", ") + std::string(v);
    }
    const Error e = refusal(s.name, "no-such-value");
    CHECK(e.code == ErrorCode::option_value);
    CHECK(e.path == s.name);
    CHECK(e.message == "Option " + std::string(s.name) + " must be one of " + listed + ", got \"no-such-value\".");
  }
  // serve_dtype offers every weight dtype of the planner, kv_dtype the four it models.
  CHECK(find_option("serve_dtype")->values.size() == std::size(weight_dtype_names));
  CHECK(parse_one("serve_dtype", "nf4").serve_dtype == WeightDtype::nf4);
  CHECK(parse_one("kv_dtype", "fp8").kv_dtype == WeightDtype::fp8);
  CHECK(parse_one("kv_dtype", "bf16").kv_dtype_set);
  CHECK(refusal("kv_dtype", "int4").code == ErrorCode::option_value);
}

TEST_CASE("integer and number options accept their range ends and refuse one step past them") {
  for (const auto& s : option_specs()) {
    INFO(s.name);
    if (s.type == OptionType::integer) {
      CHECK_NOTHROW(parse_one(s.name, s.int_min));
      CHECK_NOTHROW(parse_one(s.name, s.int_max));
      const Error below = refusal(s.name, s.int_min - 1);
      CHECK(below.message == "Option " + std::string(s.name) + " must be an integer from " + std::to_string(s.int_min) +
                                 " to " + std::to_string(s.int_max) + ", got " + std::to_string(s.int_min - 1) + ".");
      if (s.int_max < INT64_MAX) CHECK(refusal(s.name, s.int_max + 1).code == ErrorCode::option_value);
      else CHECK(refusal(s.name, uint64_t(INT64_MAX) + 1).code == ErrorCode::option_value);
      CHECK(refusal(s.name, 1.5).code == ErrorCode::option_value);
      CHECK(refusal(s.name, "2").code == ErrorCode::option_value);
      CHECK(refusal(s.name, true).code == ErrorCode::option_value);
    }
    if (s.type == OptionType::number) {
      if (s.num_min_open) CHECK(refusal(s.name, s.num_min).code == ErrorCode::option_value);
      else CHECK_NOTHROW(parse_one(s.name, s.num_min));
      CHECK_NOTHROW(parse_one(s.name, s.num_max));
      CHECK(refusal(s.name, s.num_max + 0.001).code == ErrorCode::option_value);
      CHECK(refusal(s.name, "0.1").code == ErrorCode::option_value);
    }
  }
  CHECK(refusal("mfu", 1.5).message == "Option mfu must be a number in (0, 1], got 1.5.");
  CHECK(refusal("lora_dropout", 1).message == "Option lora_dropout must be a number in [0, 0.99], got 1.");
}

TEST_CASE("no message quotes more than a bounded excerpt of a value") {
  const std::string long_text(100000, 'x');
  for (const auto& s : option_specs()) {
    INFO(s.name);
    for (const json& v : {json(long_text), json(json::array({long_text})), json({{long_text, long_text}})}) {
      try {
        parse_one(s.name, v);
      } catch (const Error& e) {
        CHECK(e.message.size() < 400);
        CHECK(e.path.size() < 100);
      }
    }
  }
  const Error unknown = refusal(json{{long_text, 1}}.dump());
  CHECK(unknown.code == ErrorCode::option_unknown);
  CHECK(unknown.message.size() < 100);
  // A multi-byte character is not cut in half: the excerpt stays valid UTF-8 (json can dump it).
  const Error cut = refusal("mode", std::string(39, 'a') + "é" + long_text);
  CHECK_NOTHROW(json(cut.message).dump());
}

TEST_CASE("a 100,000-deep value is refused as options.value, not a stack overflow") {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  for (const auto& s : option_specs()) {
    INFO(s.name);
    const Error e = refusal("{\"" + std::string(s.name) + "\": " + deep + "}");
    CHECK(e.code == ErrorCode::option_value);
    CHECK(e.path == s.name);
  }
  std::string nested;
  for (int i = 0; i < 50000; ++i) nested += "{\"a\":";
  nested += "1" + std::string(50000, '}');
  CHECK(refusal("{\"prices\": {\"h100-sxm\": " + nested + "}}").path == "prices.h100-sxm");
}

TEST_CASE("the exported schema lists every option once, with its type, flag and default") {
  const json d = json::parse(describe_json());
  std::set<std::string> names, flags, groups;
  for (const auto& g : d["groups"]) groups.insert(g["id"].get<std::string>());
  for (const auto& o : d["options"]) {
    names.insert(o["name"].get<std::string>());
    flags.insert(o["flag"].get<std::string>());
    CHECK(groups.count(o["group"].get<std::string>()) == 1);
    CHECK((o.contains("default_note") || !o["default"].is_null()));
    if (o["type"] == "enum") CHECK(!o["values"].empty());
    if (o["type"] == "integer" || o["type"] == "number") CHECK(o["min"] <= o["max"]);
  }
  CHECK(names.size() == option_specs().size());
  CHECK(flags.size() == option_specs().size());
  CHECK(names.size() == 91);  // 37; audio_seconds; the stack and its 14 policies (ckpt_policy the 14th); quantize, bnb_version, float8; 18 of the serving engines (serve_parallel, serve_devices among them); 9 of the cards and the fit advisor; 8 of multi-GPU (tp shared with serving)
  const auto serve = std::find_if(d["options"].begin(), d["options"].end(), [](const json& o) { return o["name"] == "serve_dtype"; });
  CHECK((*serve)["values"] == json::array({"bf16", "fp16", "fp32", "fp8", "int8", "int4", "nf4"}));
}

TEST_CASE("the error registry is exported whole, and the uncaught answer uses it") {
  const json d = json::parse(describe_json());
  REQUIRE(d["errors"].size() == size_t(error_code_count));
  std::set<std::string> codes;
  for (const auto& e : d["errors"]) {
    codes.insert(e["code"].get<std::string>());
    CHECK(!e["summary"].get<std::string>().empty());
  }
  for (const char* c : {"options.value", "api.crashed", "cli.not_built", "internal.uncaught", "hub.gated", "safetensors.invalid"})
    CHECK(codes.count(c) == 1);
  const json u = json::parse(uncaught_error_json());
  CHECK(u["ok"] == false);
  CHECK(u["error"]["code"] == "internal.uncaught");
  CHECK(u["error"]["message"] == error_code_summary(ErrorCode::internal_uncaught));
}
}  // namespace option_schema_test

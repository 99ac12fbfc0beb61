// The hostile-input table: every tests/golden/errors/*.json case (format: that folder's README.md)
// runs through handle() and must give exactly its code and path; plus the inputs too large for a
// file (100,000-deep nesting, a 50 MB config), generated here.
#include <catch2/catch.hpp>

#include <filesystem>

#include "test_util.hpp"

namespace golden_errors_test {

using nlohmann::json;

namespace {
std::string from_hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out += char(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

// The config text of a case: "config" (a string is the exact text, anything else is dumped),
// "config_hex" (bytes a JSON string cannot hold), or "base" (a golden model) with "merge" (RFC 7386).
std::string config_text(const json& c) {
  if (c.contains("config_hex")) return from_hex(c["config_hex"].get<std::string>());
  if (c.contains("base")) {
    json cfg = golden_file(c["base"].get<std::string>() + ".json").at("config");
    if (c.contains("merge")) cfg.merge_patch(c["merge"]);
    return cfg.dump();
  }
  const json& v = c.at("config");
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string options_text(const json& c) {
  if (!c.contains("options")) return "{}";
  const json& v = c["options"];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

json answer(const std::string& config, const std::string& options) {
  const std::string out = cardfit::handle(config, options);
  REQUIRE(out.size() < 4096);  // an error never echoes an unbounded user value
  return json::parse(out);
}
}  // namespace

TEST_CASE("golden error cases give their exact code and path") {
  const std::filesystem::path dir = CARDFIT_GOLDEN_ERRORS_DIR;
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    ++cases;
    const json c = json::parse(read_text(entry.path().string()));
    INFO(entry.path().filename().string());
    const json r = answer(config_text(c), options_text(c));
    INFO(r.dump());
    REQUIRE(r["ok"] == false);
    CHECK(r["error"]["code"] == c.at("code"));
    CHECK(r["error"]["path"] == c.at("path"));
    if (c.contains("message_contains"))
      CHECK(r["error"]["message"].get<std::string>().find(c["message_contains"].get<std::string>()) != std::string::npos);
  }
  CHECK(cases >= 40);
}

TEST_CASE("100,000-deep nesting is refused before nlohmann sees it") {
  const std::string deep_array = std::string(100000, '[') + std::string(100000, ']');
  json r = answer(deep_array, "{}");
  CHECK(r["error"]["code"] == "config.too_large");
  CHECK(r["error"]["path"] == "$");
  std::string deep_object;
  for (int i = 0; i < 100000; ++i) deep_object += "{\"a\":";
  deep_object += "1" + std::string(100000, '}');
  r = answer(deep_object, "{}");
  CHECK(r["error"]["code"] == "config.too_large");
  // An option value 100,000 deep: refused whole, never dumped, naming the option.
  r = answer(example("gpt2.json"), "{\"batch\": " + deep_array + "}");
  CHECK(r["error"]["code"] == "options.value");
  CHECK(r["error"]["path"] == "batch");
  // A deep value inside a valid-looking config key.
  r = answer("{\"model_type\": \"gpt2\", \"n_layer\": " + deep_array + "}", "{}");
  CHECK(r["error"]["code"] == "config.too_large");
  // Just inside the limit is read (and then refused for its type, with the path).
  json gpt2 = json::parse(example("gpt2.json"));
  gpt2.erase("n_layer");
  const std::string rest = gpt2.dump();
  const std::string ok_depth = std::string(60, '[') + std::string(60, ']');
  r = answer("{\"n_layer\": " + ok_depth + ", " + rest.substr(1), "{}");
  CHECK(r["error"]["code"] == "config.field_type");
  CHECK(r["error"]["path"] == "$.n_layer");
}

TEST_CASE("a 50 MB config is refused by its size, before it is parsed") {
  std::string big = "{\"model_type\": \"gpt2\", \"pad\": \"" + std::string(50u << 20, 'x') + "\"}";
  json r = answer(big, "{}");
  CHECK(r["error"]["code"] == "config.too_large");
  CHECK(r["error"]["message"].get<std::string>().find("1048576") != std::string::npos);
  // 50 MB of options (an option string) is refused too.
  r = answer(example("gpt2.json"), "{\"card\": \"" + std::string(50u << 20, 'x') + "\"}");
  CHECK(r["error"]["code"] == "options.value");
}

TEST_CASE("a long unknown card id is not echoed whole") {
  const json r = answer(example("gpt2.json"), json{{"card", std::string(100000, 'x')}}.dump());
  CHECK(r["error"]["code"] == "options.value");
  CHECK(r["error"]["path"] == "card");
}
}  // namespace golden_errors_test

// Golden error cases of the options (tests/golden/errors/options-*.json): a real config and bad
// options through handle() give exactly the stated code and path and a message containing the
// stated text. Format: {"config": {...}, "options": {...}, "code", "path", "message_contains"}.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cardfit/handle.hpp"

using nlohmann::json;

TEST_CASE("golden option errors give their code, path and message") {
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(CARDFIT_GOLDEN_ERRORS_DIR)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind("options-", 0) != 0 || entry.path().extension() != ".json") continue;
    ++cases;
    INFO(file);
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const json c = json::parse(text.str());
    const json r = json::parse(cardfit::handle(c.at("config").dump(), c.at("options").dump()));
    REQUIRE(r.at("ok") == false);
    CHECK(r["error"]["code"] == c.at("code"));
    CHECK(r["error"]["path"] == c.at("path"));
    const std::string message = r["error"]["message"];
    INFO(message);
    CHECK(message.find(c.at("message_contains").get<std::string>()) != std::string::npos);
    CHECK(message.size() < 600);  // bounded, whatever the value
  }
  CHECK(cases >= 11);
}

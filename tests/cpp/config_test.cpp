// Config parsing and typed access: errors carry the code, the path and (for syntax) line/column.
#include <catch2/catch.hpp>

#include "config.hpp"
#include "error.hpp"

namespace config_test {

using namespace cardfit;

namespace {
Error error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  FAIL("no error thrown");
  return Error(ErrorCode::internal, "");
}
}  // namespace

TEST_CASE("syntax errors point at the line and column") {
  const Error e = error_of([] { Config::parse("{\n  \"a\": 1,\n  \"b\": ]\n}"); });
  CHECK(e.code == ErrorCode::json_syntax);
  CHECK(e.line == 3);
  CHECK(e.column == 8);
}

TEST_CASE("a missing comma points at the end of the value before it and says what was expected") {
  // The comma belongs after "1" on line 2, not where the parser meets "b" on line 3.
  const Error e = error_of([] { Config::parse("{\n  \"a\": 1\n  \"b\": 2\n}"); });
  CHECK(e.code == ErrorCode::json_syntax);
  CHECK(e.line == 2);
  CHECK(e.column == 9);
  CHECK(std::string(e.what()).find("expected ',' or '}'") != std::string::npos);
  const Error colon = error_of([] { Config::parse("{\n  \"a\"\n  1\n}"); });
  CHECK(colon.line == 2);
  CHECK(std::string(colon.what()).find("expected ':'") != std::string::npos);
}

TEST_CASE("the top level must be an object") {
  CHECK(error_of([] { Config::parse("[1, 2]"); }).code == ErrorCode::config_not_object);
}

TEST_CASE("integers are validated with the field's path") {
  const Config c = Config::parse(R"({"n_head": 12.5, "n_embd": "768", "n_layer": -1, "ok": 4096.0,
                                    "text_config": {"hidden_size": 0}})");
  Error e = error_of([&] { c.positive({"n_head"}); });
  CHECK(e.code == ErrorCode::field_type);
  CHECK(e.path == "$.n_head");
  CHECK(error_of([&] { c.positive({"n_embd"}); }).code == ErrorCode::field_type);
  CHECK(error_of([&] { c.positive({"n_layer"}); }).code == ErrorCode::field_range);
  CHECK(c.positive({"ok"}) == 4096);
  e = error_of([&] { c.child("text_config").positive({"hidden_size"}); });
  CHECK(e.path == "$.text_config.hidden_size");
  e = error_of([&] { c.positive({"vocab_size"}); });
  CHECK(e.code == ErrorCode::field_missing);
  CHECK(e.path == "$.vocab_size");
}

TEST_CASE("legacy aliases: the first present key wins and null counts as absent") {
  const Config c = Config::parse(R"({"n_embd": 768, "hidden_size": null, "head_dim": null})");
  CHECK(c.positive({"hidden_size", "n_embd"}) == 768);
  CHECK_FALSE(c.has("head_dim"));
  CHECK(c.positive_or({"head_dim"}, 64) == 64);
}
}  // namespace config_test

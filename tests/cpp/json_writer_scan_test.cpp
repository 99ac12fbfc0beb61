// JsonWriter's string escaping skips words of eight plain bytes at a time (json_writer.cpp
// has_escape): on random strings of every length around the word size, with the escaped bytes at
// every position, the text is nlohmann's dump of the same string; integers as nlohmann spells them.
#include <catch2/catch.hpp>

#include <limits>
#include <random>

#include <nlohmann/json.hpp>

#include "report/json_writer.hpp"

TEST_CASE("the writer's word-at-a-time escaping equals nlohmann's, on random strings") {
  // Every byte class the scan tells apart: plain ASCII, the escapes, other control bytes, DEL, and
  // a two-byte UTF-8 character (bytes >= 0x80 never need an escape).
  const std::vector<std::string> pieces = {"a", "Z", " ", "~", "\"", "\\", "\b", "\f", "\n", "\r", "\t",
                                           std::string(1, '\0'), "\x01", "\x1f", "\x7f", "\x20", "\x21",
                                           "\x23", "\x5b", "\x5d", "\xc3\xa9"};
  std::mt19937 rng(20261201);
  int checked = 0;
  for (int len = 0; len <= 40; ++len)
    for (int trial = 0; trial < 60; ++trial) {
      std::string s;
      const bool sparse = trial % 2 == 0;  // mostly plain text, as the report's, or dense escapes
      for (int i = 0; i < len; ++i)
        s += sparse && rng() % 10 != 0 ? std::string(1, char('a' + rng() % 26)) : pieces[rng() % pieces.size()];
      std::string out;
      cardfit::JsonWriter w(out);
      w.value(s);
      INFO("length " << s.size());
      REQUIRE(out == nlohmann::json(s).dump());
      ++checked;
    }
  CHECK(checked == 41 * 60);
}

TEST_CASE("the writer spells integers as nlohmann does, at the ends of their ranges") {
  for (int64_t v : {int64_t(0), int64_t(-1), int64_t(7), std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max()}) {
    std::string out;
    cardfit::JsonWriter(out).value(v);
    CHECK(out == nlohmann::json(v).dump());
  }
  for (uint64_t v : {uint64_t(0), uint64_t(10), std::numeric_limits<uint64_t>::max()}) {
    std::string out;
    cardfit::JsonWriter(out).value(v);
    CHECK(out == nlohmann::json(v).dump());
  }
}

// JsonWriter's string escaping skips words of eight plain bytes at a time (json_writer.cpp
// has_escape): on random strings of every length around the word size, with the escaped bytes at
// every position, the text is nlohmann's ASCII dump of the same string (ensure_ascii: the writer's
// output is pure ASCII); integers as nlohmann spells them.
#include <catch2/catch.hpp>

#include <limits>
#include <random>
#include <utility>

#include <nlohmann/json.hpp>

#include "report/json_writer.hpp"

namespace json_writer_scan_test {

TEST_CASE("the writer's word-at-a-time escaping equals nlohmann's, on random strings") {
  // Every byte class the scan tells apart: plain ASCII, the escapes, other control bytes, DEL, and
  // UTF-8 characters of two, three and four bytes (\u00e9, \u2014, and U+1F600 as a surrogate pair).
  const std::vector<std::string> pieces = {"a", "Z", " ", "~", "\"", "\\", "\b", "\f", "\n", "\r", "\t",
                                           std::string(1, '\0'), "\x01", "\x1f", "\x7f", "\x20", "\x21",
                                           "\x23", "\x5b", "\x5d", "\xc3\xa9", "\xe2\x80\x94",
                                           "\xf0\x9f\x98\x80"};
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
      REQUIRE(out == nlohmann::json(s).dump(-1, ' ', true));
      ++checked;
    }
  CHECK(checked == 41 * 60);
}

TEST_CASE("the writer writes a byte that is not valid UTF-8 as U+FFFD, and the rest as they are") {
  // A stray continuation byte, a truncated sequence, an overlong form, a surrogate, past U+10FFFF.
  const std::pair<std::string, std::string> cases[] = {
      {"a\x80" "b", R"("a\ufffdb")"},         {"\xe2\x80", R"("\ufffd\ufffd")"},
      {"\xc0\xafz", R"("\ufffd\ufffdz")"}, {"\xed\xa0\x80", R"("\ufffd\ufffd\ufffd")"},
      {"\xf4\x90\x80\x80", R"("\ufffd\ufffd\ufffd\ufffd")"}, {"\xf5", R"("\ufffd")"}};
  for (const auto& [in, want] : cases) {
    std::string out;
    cardfit::JsonWriter(out).value(in);
    CHECK(out == want);
  }
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
}  // namespace json_writer_scan_test

// Every error code has a unique, non-empty code string and summary (simdjson's "MUST match" check).
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "error.hpp"

namespace error_test {

using namespace cardfit;

TEST_CASE("every error code has a unique code string and a message") {
  std::set<std::string> codes;
  for (int i = 0; i < error_code_count; ++i) {
    const auto code = static_cast<ErrorCode>(i);
    REQUIRE_FALSE(error_code_string(code).empty());
    REQUIRE_FALSE(error_code_summary(code).empty());
    codes.insert(std::string(error_code_string(code)));
  }
  REQUIRE(codes.size() == size_t(error_code_count));
}
}  // namespace error_test

// The stored-dtype table (core/arch/stored_dtype.hpp): one entry per dtype, names unique and read
// back, widths as the safetensors format defines them.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "arch/stored_dtype.hpp"

namespace stored_dtype_test {

using namespace cardfit;

TEST_CASE("every stored dtype has one unique safetensors name that reads back to it") {
  std::set<std::string> names;
  for (const auto& e : stored_dtype_table) {
    if (e.dtype == StoredDtype::unset) {
      CHECK(e.name.empty());
      CHECK_FALSE(stored_dtype_named(""));
      continue;
    }
    INFO(std::string(e.name));
    CHECK(names.insert(std::string(e.name)).second);
    REQUIRE(stored_dtype_named(e.name));
    CHECK(*stored_dtype_named(e.name) == e.dtype);
    CHECK(stored_dtype_name(e.dtype) == e.name);
  }
  CHECK(names.size() == std::size(stored_dtype_table) - 1);
  CHECK_FALSE(stored_dtype_named("bf16"));  // header names are upper case
}

TEST_CASE("stored dtype widths") {
  CHECK(stored_dtype_bytes(StoredDtype::bf16) == 2);
  CHECK(stored_dtype_bytes(StoredDtype::f8_e4m3) == 1);
  CHECK(stored_dtype_bytes(StoredDtype::f8_e8m0) == 1);
  CHECK(stored_dtype_bytes(StoredDtype::u8) == 1);
  CHECK(stored_dtype_bytes(StoredDtype::f32) == 4);
  CHECK(stored_dtype_bytes(StoredDtype::i32) == 4);
  CHECK(stored_dtype_bytes(StoredDtype::i64) == 8);
  CHECK(stored_dtype_bytes(StoredDtype::unset) == 2);  // a parameter at the checkpoint's 16-bit dtype
  CHECK(stored_dtype_name(StoredDtype::f8_e4m3) == "F8_E4M3");
}
}  // namespace stored_dtype_test

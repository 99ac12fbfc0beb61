// The dtypes a checkpoint stores its tensors at (a safetensors header's "dtype"), as one enum: a
// StoredExtra carries one byte, not a string (DeepSeek-V3 lists 41,540 FP8 scales per trace). The
// names and widths are spelled only in the table below, as core/error.cpp spells the error codes.
// Source: the safetensors format's dtype list (huggingface/safetensors safetensors/src/tensor.rs
// Dtype, read 2026-12-01).
#pragma once
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>

namespace cardfit {

enum class StoredDtype : uint8_t {
  unset,  // none stated: a parameter stored as itself at the checkpoint's 16-bit dtype
  boolean, u8, i8, f8_e4m3, f8_e5m2, f8_e8m0, i16, u16, f16, bf16, i32, u32, f32, i64, u64, f64,
};

struct StoredDtypeEntry {
  StoredDtype dtype;
  std::string_view name;  // as a safetensors header writes it
  int64_t bytes;          // per element
};

inline constexpr StoredDtypeEntry stored_dtype_table[] = {
    {StoredDtype::unset, "", 2},        {StoredDtype::boolean, "BOOL", 1},  {StoredDtype::u8, "U8", 1},
    {StoredDtype::i8, "I8", 1},         {StoredDtype::f8_e4m3, "F8_E4M3", 1}, {StoredDtype::f8_e5m2, "F8_E5M2", 1},
    {StoredDtype::f8_e8m0, "F8_E8M0", 1}, {StoredDtype::i16, "I16", 2},     {StoredDtype::u16, "U16", 2},
    {StoredDtype::f16, "F16", 2},       {StoredDtype::bf16, "BF16", 2},     {StoredDtype::i32, "I32", 4},
    {StoredDtype::u32, "U32", 4},       {StoredDtype::f32, "F32", 4},       {StoredDtype::i64, "I64", 8},
    {StoredDtype::u64, "U64", 8},       {StoredDtype::f64, "F64", 8},
};

namespace detail {
constexpr bool stored_dtype_table_in_order() {
  for (size_t i = 0; i < std::size(stored_dtype_table); ++i)
    if (size_t(stored_dtype_table[i].dtype) != i) return false;
  return true;
}
}  // namespace detail
static_assert(std::size(stored_dtype_table) == size_t(StoredDtype::f64) + 1, "one table entry per StoredDtype");
static_assert(detail::stored_dtype_table_in_order(), "stored_dtype_table is indexed by StoredDtype");

constexpr std::string_view stored_dtype_name(StoredDtype d) { return stored_dtype_table[size_t(d)].name; }
constexpr int64_t stored_dtype_bytes(StoredDtype d) { return stored_dtype_table[size_t(d)].bytes; }

/// The dtype a header name ("BF16", "F8_E4M3") spells; nothing for a name not in the table.
constexpr std::optional<StoredDtype> stored_dtype_named(std::string_view name) {
  for (const auto& e : stored_dtype_table)
    if (e.dtype != StoredDtype::unset && e.name == name) return e.dtype;
  return std::nullopt;
}

}  // namespace cardfit

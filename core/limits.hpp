// The explicit limits on what cardfit reads: input size, nesting depth, and the range of every
// integer config field, checked before any work starts. Each bound has headroom over the largest
// published model (docs/api.md "Limits" cites them); a value past it is refused with
// config.field_range naming the path, so no family allocates or multiplies with it.
#pragma once
#include <cstdint>
#include <string_view>

namespace cardfit {

inline constexpr int64_t kMaxConfigBytes = int64_t(1) << 20;    // 1 MiB of config text
inline constexpr int64_t kMaxOptionsBytes = int64_t(16) << 20;  // 16 MiB (holds a safetensors index)
inline constexpr int kMaxJsonDepth = 64;                         // nested objects/arrays

/// The largest value an integer config field may take (by key name; kDefaultFieldMax for the rest).
int64_t field_max(std::string_view key);
inline constexpr int64_t kDefaultFieldMax = int64_t(1) << 32;

}  // namespace cardfit

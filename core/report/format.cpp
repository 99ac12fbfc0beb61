// Number formatting shared by the headline and the Markdown twin.
#include <cmath>
#include <cstdio>
#include <string>

#include "report.hpp"

namespace cardfit {

std::string format_gb(int64_t bytes) {
  char buf[32];
  const double gb = double(bytes) / 1e9;
  if (gb >= 100) std::snprintf(buf, sizeof buf, "%.0f GB", gb);
  else if (gb >= 10) std::snprintf(buf, sizeof buf, "%.1f GB", gb);
  else if (gb >= 0.1) std::snprintf(buf, sizeof buf, "%.2f GB", gb);
  else std::snprintf(buf, sizeof buf, "%.0f MB", double(bytes) / 1e6);
  return buf;
}

std::string format_thousands(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

}  // namespace cardfit

// The calls scripts/bench times, in one place: when the core report and the on-request sections
// become separate calls (issue 9), point these at them (tools/bench/bench.mjs has the same pair).
#pragma once
#include <string>

#include "cardfit/handle.hpp"

namespace bench {
// A config seen for the first time: trace, plan, the report.
inline std::string full_plan(const std::string& config, const std::string& options) {
  return cardfit::handle(config, options);
}
// An option change on a config already planned (today handle() re-traces: the same call).
inline std::string replan(const std::string& config, const std::string& options) {
  return cardfit::handle(config, options);
}
}  // namespace bench

// handle(): the whole report in one call, over a Planner of its own; and the error JSON every
// entry point returns. Users never see an exception's own text: a cardfit::Error carries a
// message written for them; anything else is a bug, reported with a fixed message.
#include "include/cardfit/handle.hpp"

#include "include/cardfit/planner.hpp"
#include "report/report.hpp"

namespace cardfit {

const char* report_schema() { return kReportSchema; }

const char* internal_error_json() {
  return R"({"error":{"code":"internal","message":"The planner failed on this input (an internal error). This is a bug in cardfit: please report the config.","path":""},"ok":false})";
}

std::string handle(std::string_view config_text, std::string_view options_json) {
  Planner planner;
  return planner.report(config_text, options_json);
}

}  // namespace cardfit

// describe_json(): the option schema and the error registry as one JSON document.
#include "include/cardfit/describe.hpp"

#include <nlohmann/json.hpp>

#include "error.hpp"
#include "plan/option_schema.hpp"
#include "report/answer_text.hpp"

namespace cardfit {
using nlohmann::json;

namespace {
json error_registry_json() {
  json out = json::array();
  for (int i = 0; i < error_code_count; ++i) {
    const auto code = static_cast<ErrorCode>(i);
    out.push_back({{"code", error_code_string(code)}, {"summary", error_code_summary(code)}});
  }
  return out;
}

const std::string uncaught_json =
    json{{"ok", false},
         {"error",
          {{"code", error_code_string(ErrorCode::internal_uncaught)},
           {"message", error_code_summary(ErrorCode::internal_uncaught)},
           {"path", ""}}}}
        .dump();
}  // namespace

std::string describe_json() {
  json out = option_schema_json();
  out["errors"] = error_registry_json();
  return answer_text(out);
}

const std::string& uncaught_error_json() { return uncaught_json; }

}  // namespace cardfit

// The one entry point of the core: config text + options JSON in, report JSON out.
// It is what the wasm binding, the CLI and the native tests all call; it never throws.
#pragma once
#include <string>
#include <string_view>

namespace cardfit {

/// Plans a Hugging Face config.json under the given options (a JSON object, see docs/api.md).
/// Returns `{"ok":true,"schema":"cardfit.report/1",...}` or
/// `{"ok":false,"error":{"code","message","path"[,"line","column"]}}`.
std::string handle(std::string_view config_text, std::string_view options_json);

/// The schema version string of the report ("cardfit.report/1").
const char* report_schema();

}  // namespace cardfit

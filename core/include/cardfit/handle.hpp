// The one-call entry point of the core: config text + options JSON in, the whole report out
// (core report, tensor list, graph, curves, Markdown). A compatibility wrapper over
// cardfit::Planner (planner.hpp), which the page, the widget and the CLI use to ask for each
// section only when it is needed. Never throws.
#pragma once
#include <string>
#include <string_view>

namespace cardfit {

/// Plans a Hugging Face config.json under the given options (a JSON object, see docs/api.md).
/// Returns `{"ok":true,"schema":"cardfit.report/2",...}` or
/// `{"ok":false,"error":{"code","message","path"[,"line","column"]}}`.
std::string handle(std::string_view config_text, std::string_view options_json);

/// The schema version string of the report ("cardfit.report/2").
const char* report_schema();

/// The error JSON of the last resort (code "internal", a fixed message): for a caller's own
/// catch-all, such as the wasm binding's.
const char* internal_error_json();

}  // namespace cardfit

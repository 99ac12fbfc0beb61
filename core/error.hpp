// Coded errors: one enum, one message table (error.cpp). Not a logging facility.
#pragma once
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

namespace cardfit {

enum class ErrorCode {
  json_syntax,         // config text is not JSON
  config_not_object,   // top level is not an object
  field_missing,       // a required field is absent
  field_type,          // a field has the wrong JSON type
  field_range,         // a field's value is out of its valid range
  field_inconsistent,  // fields contradict each other (e.g. heads do not divide hidden)
  model_type_unknown,  // no family and not enough standard keys for the generic decoder
  duplicate_key,       // an object states the same key twice
  too_large,           // the text exceeds the input limits (bytes, nesting depth)
  option_unknown,      // an option name the planner does not know
  option_value,        // an option with a bad value
  checkpoint_header,   // a safetensors header/index that cannot be read
  overflow,            // a byte or FLOP count exceeds 64 bits
  // Codes the front ends emit (wasm/bindings.cpp, wasm/api.js, scripts/cardfit, web/src): listed
  // here so that every code a user can see has one spelling and one summary, exported by
  // describe_json(). The JS side takes its default messages from the summaries.
  internal_uncaught,   // wasm/bindings.cpp: an exception escaped handle() (e.g. out of memory)
  api_config_not_string,
  api_options_not_object,
  api_options_not_json,  // circular, or nested deeper than JSON.stringify can go
  api_crashed,         // the wasm module trapped; a fresh instance replaces it
  api_load_failed,     // the page's worker could not instantiate the module
  cli_unknown_option,
  cli_missing_value,
  cli_unexpected_value,
  cli_no_config,
  cli_file_unreadable,
  cli_not_utf8,
  cli_safetensors_invalid,
  cli_not_built,
  cli_internal,
  cli_bad_value,
  cli_export,
  cli_export_one,
  hub_bad_id,          // web/src/hub.js (the page, the widget and the CLI): fetching from the hub
  hub_unreachable,
  hub_network,
  hub_offline,
  hub_timeout,
  hub_unauthorized,
  hub_forbidden,
  hub_gated,
  hub_repo_not_found,
  hub_revision_not_found,
  hub_not_found,
  hub_rate_limited,
  hub_http,
  hub_bad_response,
  hub_file,            // web/src/sources.js: a dropped file that is none of the three kinds
  hub_none,            // web/src/widget.js: no config given
  safetensors_invalid, // a file that is not a safetensors file (page, widget)
  widget_failed,
  internal,            // a bug: an exception the core did not expect
};

/// Stable code string ("config.field_missing") and a one-line description of the class of error.
std::string_view error_code_string(ErrorCode code);
std::string_view error_code_summary(ErrorCode code);
inline constexpr int error_code_count = static_cast<int>(ErrorCode::internal) + 1;

/// The one exception type of the core; `handle` turns it into the error JSON.
struct Error : std::exception {
  ErrorCode code;
  std::string message;  // a sentence a person understands, naming the field and what was expected
  std::string path;     // JSON path of the offending field ("$.n_head"), or the option name
  int64_t line = 0, column = 0;  // for json_syntax: 1-based position in the text

  Error(ErrorCode c, std::string msg, std::string p = {})
      : code(c), message(std::move(msg)), path(std::move(p)) {}
  const char* what() const noexcept override { return message.c_str(); }
};

}  // namespace cardfit

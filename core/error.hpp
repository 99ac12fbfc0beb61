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

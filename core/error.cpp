// The message table of the error codes: the single place where codes are spelled.
#include "error.hpp"

namespace cardfit {
namespace {
struct Entry {
  std::string_view code, summary;
};
constexpr Entry table[] = {
    {"config.json_syntax", "The config text is not valid JSON."},
    {"config.not_object", "The config must be a JSON object."},
    {"config.field_missing", "A required config field is missing."},
    {"config.field_type", "A config field has the wrong type."},
    {"config.field_range", "A config field is out of range."},
    {"config.field_inconsistent", "Config fields contradict each other."},
    {"config.model_type_unknown", "The model_type is not supported and the config lacks the keys of a generic decoder."},
    {"config.duplicate_key", "The config states the same key twice in one object."},
    {"config.too_large", "The config text exceeds the input limits (size or nesting depth)."},
    {"options.unknown", "An option is not known."},
    {"options.value", "An option has a bad value."},
    {"checkpoint.header", "The checkpoint header or index cannot be read."},
    {"plan.overflow", "A size exceeds the 64-bit range."},
    {"internal", "Internal error in cardfit; please report it with the config."},
};
static_assert(sizeof(table) / sizeof(table[0]) == error_code_count, "one table entry per ErrorCode");
}  // namespace

std::string_view error_code_string(ErrorCode code) { return table[static_cast<int>(code)].code; }
std::string_view error_code_summary(ErrorCode code) { return table[static_cast<int>(code)].summary; }

}  // namespace cardfit

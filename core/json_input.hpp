// Strict reading of the JSON a user pastes (the config text and the options text): size and
// nesting limits checked before nlohmann builds a tree, duplicate keys, invalid UTF-8, NUL bytes,
// BOM, comments, trailing commas, truncated text and numbers beyond a double, each a coded error
// with its position. docs/api.md "Input rules" and "Limits" describe the rules.
#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace cardfit {

enum class JsonText { config, options };

/// Parses `text` under the rules of `kind`; throws Error. Config: config.too_large, json_syntax
/// (line/column), config.duplicate_key (line/column of the second key, the message names both),
/// field_range for a number beyond a double (path of the number). Options: option_value with path
/// "options", or the option path for a duplicate key or an overflowing number.
nlohmann::json read_json_text(std::string_view text, JsonText kind);

/// A JSON value for an error message: its dump if short and shallow, else its type and size.
/// Never recurses more than the depth limit, never returns more than ~80 characters.
std::string shown(const nlohmann::json& value);

}  // namespace cardfit

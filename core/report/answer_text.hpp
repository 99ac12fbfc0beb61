// answer_text: the text of an answer built as an nlohmann tree (errors, Markdown, handle()'s whole
// report, describe()), spelled as JsonWriter spells the rest: pure ASCII (ensure_ascii), so the JS
// side decodes every answer on TextDecoder's ASCII path (json_writer.cpp says why), and a string
// that is not valid UTF-8 written with U+FFFD instead of throwing.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace cardfit {

inline std::string answer_text(const nlohmann::json& j) {
  return j.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
}

}  // namespace cardfit

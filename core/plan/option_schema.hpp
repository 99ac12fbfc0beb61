// The option schema: one entry per planning option (name, type, allowed values, range, default,
// doc, CLI flag, form group) and how its value is stored into Options. parse_options interprets
// it; option_schema_json() exports it for the front ends (CLI flags and usage, cardfit.d.ts, the
// page's form and share link, the widget's attributes, docs/api.md), so none of them lists options.
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string_view>

#include "options.hpp"

namespace cardfit {

enum class OptionType { enumeration, integer, number, boolean, names, map, text };

struct OptionSpec {
  std::string_view name;
  OptionType type;
  std::string_view group;  // the form's fieldset (option_groups)
  std::string_view doc;    // one line
  std::string_view flag;   // the CLI's spelling ("--lora-rank")
  // The CLI's value placeholder ("N"); empty for a boolean: a switch. flag_reads: "file" (the
  // value is a path, the file's text the option) or "safetensors_header" (only the file's header).
  std::string_view flag_arg = {}, flag_reads = {};
  std::span<const std::string_view> values = {};  // enumeration: the accepted names, in order
  int64_t int_min = 0, int_max = 0;               // integer: inclusive range
  double num_min = 0, num_max = 0;                // number (and a map's values: num_min only)
  bool num_min_open = false;                      // number: (min, max] instead of [min, max]
  int64_t max_length = 0;                         // text: most bytes (0: unbounded)
  bool non_empty = false;                         // text and names: "" or [] is refused (it would
                                                  // silently mean the default: every linear, the catalog's card)
  std::string_view default_json = {};  // the default as JSON a user could pass; empty: see note
  std::string_view default_note = {};  // a sentence for a computed or "off" default
  // What a value must be, for the messages of text, names and map ("a card id such as ...");
  // item_expect: a map value's.
  std::string_view expect = {}, item_expect = {};
  void (*store)(Options&, const nlohmann::json&) = nullptr;  // called with a validated value
};

struct OptionGroup {
  std::string_view id, title;
};

std::span<const OptionSpec> option_specs();
std::span<const OptionGroup> option_groups();
const OptionSpec* find_option(std::string_view name);

/// Validates one option's value against its entry and stores it; Error(option_value) otherwise.
void apply_option(const OptionSpec& spec, const nlohmann::json& value, Options& out);

/// A bounded, human-readable quotation of a value: scalars as JSON (long strings cut), arrays and
/// objects by kind ("an array"), so no message grows with the input or recurses into it.
std::string describe_value(const nlohmann::json& value);
/// At most max_bytes of text, cut at a UTF-8 boundary, with "…" when cut.
std::string bounded_text(std::string_view text, size_t max_bytes = 64);

/// The schema as JSON: {"options": [...], "groups": [{id, title}]} (docs/api.md, "Options").
nlohmann::json option_schema_json();

}  // namespace cardfit

// Options JSON → Options, by the option schema (option_schema.cpp): one error per unknown name or
// bad value. The enums' spellings live in their tables (options.hpp).
#include "options.hpp"

#include <nlohmann/json.hpp>

#include "../error.hpp"
#include "../json_input.hpp"
#include "option_schema.hpp"

namespace cardfit {
using nlohmann::json;

const char* mode_name(Mode m) { return enum_name(mode_names, m).data(); }
const char* precision_name(Precision p) { return enum_name(precision_names, p).data(); }
const char* optimizer_name(Optimizer o) { return enum_name(optimizer_names, o).data(); }
const char* attention_name(Attention a) { return enum_name(attention_names, a).data(); }
const char* weight_dtype_name(WeightDtype w) { return enum_name(weight_dtype_names, w).data(); }
const char* quant_name(QuantKind q) { return enum_name(quant_names, q).data(); }
const char* optimizer_impl_name(OptimizerImpl i) { return enum_name(optimizer_impl_names, i).data(); }
const char* quant_scope_name(QuantScope q) { return enum_name(quant_scope_names, q).data(); }
const char* bnb_version_name(BnbVersion v) { return enum_name(bnb_version_names, v).data(); }
const char* engine_name(Engine e) { return enum_name(engine_names, e).data(); }
const char* gguf_type_name(GgufType g) { return enum_name(gguf_type_names, g).data(); }
const char* parallel_name(Parallel p) { return enum_name(parallel_names, p).data(); }

Options parse_options(std::string_view text) {
  Options o;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return o;
  const json j = read_json_text(text, JsonText::options);  // limits, strictness: json_input.hpp
  if (!j.is_object()) throw Error(ErrorCode::option_value, "The options must be a JSON object.", "options");
  for (const auto& [name, v] : j.items()) {
    if (v.is_null()) continue;  // null: the default, as if absent
    const OptionSpec* spec = find_option(name);
    if (!spec) throw Error(ErrorCode::option_unknown, "Unknown option \"" + bounded_text(name) + "\".", bounded_text(name));
    apply_option(*spec, v, o);
  }
  return o;
}

}  // namespace cardfit

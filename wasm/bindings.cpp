// wasm/bindings.cpp: the Embind binding of the core's one entry point. It only converts types;
// it holds no domain logic and no error messages of its own (those live in core/).
//
// Call flow (one call, values in and out, nothing for JS to free):
//   JS   cardfit.plan(configText, options)        wasm/api.js: JSON.stringify(options)
//   ->   Module.handle(configText, optionsJson)   here: JS strings -> std::string (UTF-8)
//   ->   cardfit::handle(config, options)         core/: parse, trace, plan; never throws
//   <-   report JSON text                         wasm/api.js: JSON.parse -> report object
#include <emscripten/bind.h>

#include <string>

#include "cardfit/describe.hpp"
#include "cardfit/handle.hpp"

namespace {

// The core promises not to throw; the catch keeps that promise at the boundary even if it breaks
// (e.g. std::bad_alloc), so JS always gets a report or an error object, never an abort.
std::string handle(const std::string& config_text, const std::string& options_json) {
  try {
    return cardfit::handle(config_text, options_json);
  } catch (...) {
    return cardfit::uncaught_error_json();  // code internal.uncaught of core/error.cpp
  }
}

std::string schema() { return cardfit::report_schema(); }

}  // namespace

EMSCRIPTEN_BINDINGS(cardfit) {
  emscripten::function("handle", &handle);
  emscripten::function("schema", &schema);
  emscripten::function("describe", &cardfit::describe_json);  // option schema + error registry
}

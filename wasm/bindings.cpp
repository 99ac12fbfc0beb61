// wasm/bindings.cpp: the Embind binding of the core's entry points. It only converts types;
// it holds no domain logic and no error messages of its own (those live in core/).
//
// Call flow (one call, values in and out, nothing for JS to free):
//   JS   cardfit.plan(configText, options)         wasm/api.js: JSON.stringify(options), cache
//   ->   Module.plan(configText, optionsJson)      here: JS strings -> std::string (UTF-8)
//   ->   cardfit::Planner::plan(config, options)   core/: parse, trace (or reuse), plan; never throws
//   <-   report JSON text                          wasm/api.js: JSON.parse -> report object
// graph, tensors, curves and markdown go the same way; handle is the whole report in one.
#include <emscripten/bind.h>

#include <string>

#include "cardfit/describe.hpp"
#include "cardfit/handle.hpp"
#include "cardfit/planner.hpp"

namespace {

// The module's one Planner: its catalog and traced models live as long as the module.
cardfit::Planner& planner() {
  static cardfit::Planner p;
  return p;
}

// The core promises not to throw; the catch keeps that promise at the boundary even if it breaks
// (e.g. std::bad_alloc), so JS always gets a report or an error object, never an abort.
template <class F>
std::string guarded(F&& call) {
  try {
    return call();
  } catch (...) {
    return cardfit::uncaught_error_json();  // code internal.uncaught of core/error.cpp
  }
}

using S = const std::string&;
std::string plan(S c, S o) { return guarded([&] { return planner().plan(c, o); }); }
std::string graph(S c, S o) { return guarded([&] { return planner().graph(c, o); }); }
std::string tensors(S c, S o, bool expand) { return guarded([&] { return planner().tensors(c, o, expand); }); }
std::string curves(S c, S o) { return guarded([&] { return planner().curves(c, o); }); }
std::string markdown(S c, S o) { return guarded([&] { return planner().markdown(c, o); }); }
std::string handle(S c, S o) { return guarded([&] { return cardfit::handle(c, o); }); }
std::string schema() { return cardfit::report_schema(); }

}  // namespace

EMSCRIPTEN_BINDINGS(cardfit) {
  emscripten::function("plan", &plan);
  emscripten::function("graph", &graph);
  emscripten::function("tensors", &tensors);
  emscripten::function("curves", &curves);
  emscripten::function("markdown", &markdown);
  emscripten::function("handle", &handle);
  emscripten::function("schema", &schema);
  emscripten::function("describe", &cardfit::describe_json);  // option schema + error registry
}

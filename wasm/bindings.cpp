// wasm/bindings.cpp: the Embind binding of the core's entry points. It only converts types;
// it holds no domain logic and no error messages of its own (those live in core/).
//
// Call flow (one call, values in and out, nothing for JS to free):
//   JS   cardfit.plan(configText, options)         wasm/api.js: JSON.stringify(options), cache
//   ->   Module.plan(configText, optionsJson)      here: JS strings -> std::string (UTF-8)
//   ->   cardfit::Planner::plan(config, options)   core/: parse, trace (or reuse), plan; never throws
//   <-   the JSON text's length; its address from answer_data()
//                                                  wasm/api.js: TextDecoder over HEAPU8, JSON.parse
// graph, tensors, curves and markdown go the same way; handle (the whole report in one) returns a
// JS string. Why not a std::string return: Embind walks it byte by byte in JS, twice (a quarter of
// a gemma-2-9b-it re-plan in wasm); the bytes in place are decoded natively in one call. They are
// `answer`, which the next call overwrites, so api.js decodes them at once.
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

// The last answer, alive until the next call: its length is returned, its address by answer_data().
std::string answer;
size_t keep(std::string text) {
  answer = std::move(text);
  return answer.size();
}
uintptr_t answer_data() { return reinterpret_cast<uintptr_t>(answer.data()); }

using S = const std::string&;
size_t plan(S c, S o) { return keep(guarded([&] { return planner().plan(c, o); })); }
size_t graph(S c, S o) { return keep(guarded([&] { return planner().graph(c, o); })); }
size_t tensors(S c, S o, bool expand) { return keep(guarded([&] { return planner().tensors(c, o, expand); })); }
size_t curves(S c, S o) { return keep(guarded([&] { return planner().curves(c, o); })); }
size_t markdown(S c, S o) { return keep(guarded([&] { return planner().markdown(c, o); })); }
std::string handle(S c, S o) { return guarded([&] { return cardfit::handle(c, o); }); }
std::string schema() { return cardfit::report_schema(); }

}  // namespace

EMSCRIPTEN_BINDINGS(cardfit) {
  emscripten::function("plan", &plan);
  emscripten::function("graph", &graph);
  emscripten::function("tensors", &tensors);
  emscripten::function("curves", &curves);
  emscripten::function("markdown", &markdown);
  emscripten::function("answer_data", &answer_data);  // where the last of the five above wrote its text
  emscripten::function("handle", &handle);
  emscripten::function("schema", &schema);
  emscripten::function("describe", &cardfit::describe_json);  // option schema + error registry
}

// The calls scripts/bench times, in one place (tools/bench/bench.mjs has the same pair): the
// Planner's plan(), as the page, the widget and the CLI call it through wasm/api.js.
#pragma once
#include <string>

#include "cardfit/planner.hpp"

namespace bench {
// A config text the planner has not seen: parse, trace, plan, the core report. Run r appends r
// newlines (JSON whitespace) so that every run is a new text, as a paste is, and traces again.
inline std::string full_plan(cardfit::Planner& p, const std::string& config, const std::string& options, int run) {
  return p.plan(config + std::string(size_t(run), '\n'), options);
}
// An option change on a config already planned: the trace is cached, the options are new (LoRA
// rank 8 + run joined to them, so no run repeats another's options).
inline std::string replan(cardfit::Planner& p, const std::string& config, const std::string& options, int run) {
  const std::string rank = "\"lora_rank\":" + std::to_string(8 + run);
  return p.plan(config, options == "{}" ? "{" + rank + "}" : options.substr(0, options.size() - 1) + "," + rank + "}");
}
// An option change that no memory model reads (epochs: the cost only), so the four memory models
// and their multi-card cuts come from the cache (core/plan/memory_cache.hpp).
inline std::string replan_cost(cardfit::Planner& p, const std::string& config, const std::string& options, int run) {
  const std::string epochs = "\"epochs\":" + std::to_string(2 + run);
  return p.plan(config, options == "{}" ? "{" + epochs + "}" : options.substr(0, options.size() - 1) + "," + epochs + "}");
}
}  // namespace bench

// cardfit::Planner: the core's entry points by lifetime. The card catalog is compiled once per
// Planner; the traced model of the last few config texts is kept, so a change of options plans
// again without tracing again. Every call takes the config text and the options JSON (docs/api.md),
// returns JSON text and never throws; errors are {"ok":false,"error":{...}} as from handle().
// Not thread-safe (one Planner per thread); holds no globals.
#pragma once
#include <memory>
#include <string>
#include <string_view>

namespace cardfit {

class Planner {
 public:
  Planner();
  ~Planner();
  Planner(const Planner&) = delete;
  Planner& operator=(const Planner&) = delete;

  /// The core report (tens of KB): {"ok":true,"schema":"cardfit.report/2",headline, model, params
  /// (no tensor list), checkpoint, plan, modes, cards, cost, checks, assumptions, memory_events,
  /// checks_by_batch, linear_names}.
  std::string plan(std::string_view config_text, std::string_view options_json);
  /// {"ok":true, batch, seq, images, node_count, nodes, blocks}: the graph, blocks folded by signature.
  std::string graph(std::string_view config_text, std::string_view options_json);
  /// {"ok":true, expanded, tensor_count, tensors}: params.tensors, MoE experts stacked per layer
  /// unless expand_experts (then every tensor under its checkpoint name).
  std::string tensors(std::string_view config_text, std::string_view options_json, bool expand_experts = false);
  /// {"ok":true, full, lora, qlora, serve}: memory against batch per mode.
  std::string curves(std::string_view config_text, std::string_view options_json);
  /// {"ok":true, "markdown": "..."}: the Markdown twin.
  std::string markdown(std::string_view config_text, std::string_view options_json);
  /// The whole report in one (the core report with params.tensors expanded, graph, curves and
  /// markdown): what handle() returns.
  std::string report(std::string_view config_text, std::string_view options_json);

  struct State;  // opaque: the catalog and the traced texts (session.cpp)

 private:
  std::unique_ptr<State> state_;
};

}  // namespace cardfit

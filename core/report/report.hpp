// The report (schema cardfit.report/2), by lifetime: the core report that every plan returns
// (report_core.cpp, written straight to a string), the sections made only when asked (graph,
// tensors, curves: report_sections.cpp) and the Markdown twin rendered from their JSON
// (report_markdown.cpp), so the two never disagree. report/ formats; it computes nothing.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "../model.hpp"
#include "../plan/checkpoint.hpp"
#include "../plan/checks.hpp"
#include "../plan/fit_advisor.hpp"
#include "../plan/plan.hpp"

namespace cardfit {

inline constexpr const char* kReportSchema = "cardfit.report/2";
/// The largest batch the card solver and the curves evaluate (plan/planner.cpp, plan/curve.cpp).
inline constexpr int64_t kMaxPlanBatch = int64_t(1) << 20;

struct CoreReportInput {
  const Model& model;
  const Plan& plan;
  const std::optional<Reconciliation>& checkpoint;
  const std::vector<Finding>& checks;          // at the requested batch
  const std::vector<Finding>& checks_single;   // the same plan at batch 1
  const std::vector<Finding>& checks_batched;  // ... and at any batch above 1
  const std::string* fit = nullptr;            // the fit section's JSON (fit_report), when asked
};

/// The core report: {"ok":true,"schema",...} without params.tensors, graph, curves, markdown.
std::string core_report(const CoreReportInput& in);

/// The graph section: nodes at the plan's batch and seq, and the blocks folded by signature
/// (each entry lists the block indices it stands for).
std::string graph_report(const Model& model, const Plan& plan);
/// params.tensors: every tensor, or (expand_experts false) each layer's experts of one tensor
/// name stacked into one entry ("...experts.{0..63}.w1.weight", experts: 64).
std::string tensors_report(const Model& model, bool expand_experts);
/// The parallel section (plan/parallel.hpp): per-rank components of the requested strategy and
/// per card the smallest N per strategy; written into the core report when options.parallel is set.
std::string parallel_report(const Plan& plan);
/// The curves section: memory against batch per mode (plan/curve.hpp).
std::string curves_report(const Plan& plan);
/// The fit section ("make it fit", options fit_card and fit_cards).
std::string fit_report(const FitAdvice& advice);

std::string report_markdown(const nlohmann::json& report);
/// The one-sentence summary of the reference pages.
std::string headline(const Model& model, const Plan& plan);

/// "2.57 GB" (10^9 bytes, 3 significant digits), "19 MB" below 1 GB.
std::string format_gb(int64_t bytes);
/// "124,439,808".
std::string format_thousands(int64_t n);

}  // namespace cardfit

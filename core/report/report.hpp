// The report: one JSON document (schema cardfit.report/1) and its Markdown twin, rendered from
// the same JSON so the two never disagree.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "../model.hpp"
#include "../plan/checkpoint.hpp"
#include "../plan/checks.hpp"
#include "../plan/plan.hpp"

namespace cardfit {

inline constexpr const char* kReportSchema = "cardfit.report/1";

struct ReportInput {
  const Model& model;
  const Plan& plan;
  const std::optional<Reconciliation>& checkpoint;
  const std::vector<Finding>& checks;
};

nlohmann::json report_json(const ReportInput& in);
/// The graph section alone (nodes at the plan's batch/seq, and the blocks folded).
nlohmann::json graph_json(const Model& model, int64_t batch, int64_t seq, const Options& opt);
std::string report_markdown(const nlohmann::json& report);
/// The one-sentence summary of the reference pages, from the report JSON.
std::string headline(const nlohmann::json& report);

/// "2.57 GB" (10^9 bytes, 3 significant digits), "19 MB" below 1 GB.
std::string format_gb(int64_t bytes);
/// "124,439,808".
std::string format_thousands(int64_t n);

}  // namespace cardfit

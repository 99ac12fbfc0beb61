// handle(): config text + options → report JSON. The only place exceptions are caught.
#include "include/cardfit/handle.hpp"

#include <nlohmann/json.hpp>

#include "arch/registry.hpp"
#include "config.hpp"
#include "error.hpp"
#include "plan/cards.hpp"
#include "plan/checkpoint.hpp"
#include "plan/checks.hpp"
#include "plan/plan.hpp"
#include "report/report.hpp"

namespace cardfit {
using nlohmann::json;

namespace {
std::string error_json(const Error& e) {
  json err = {{"code", error_code_string(e.code)}, {"message", e.message}, {"path", e.path}};
  if (e.line > 0) {
    err["line"] = e.line;
    err["column"] = e.column;
  }
  return json{{"ok", false}, {"error", err}}.dump();
}

std::string run(std::string_view config_text, std::string_view options_json) {
  const Options options = parse_options(options_json);
  const Config cfg = Config::parse(config_text);
  const Model model = trace_model(cfg);
  const Catalog catalog = load_catalog();
  if (!options.card.empty() && !find_card(catalog, options.card)) {
    std::string ids;
    for (const auto& c : catalog.cards) ids += (ids.empty() ? "" : ", ") + c.id;
    throw Error(ErrorCode::option_value, "Unknown card \"" + options.card + "\"; known cards: " + ids + ".", "card");
  }
  const Plan plan = make_plan(model, options, catalog);
  const auto checkpoint = reconcile(model, options);
  const auto checks = run_checks(model, options, plan.seq);
  json report = report_json({model, plan, checkpoint, checks});
  report["headline"] = headline(report);
  report["markdown"] = report_markdown(report);
  return report.dump();
}
}  // namespace

const char* report_schema() { return kReportSchema; }

std::string handle(std::string_view config_text, std::string_view options_json) {
  try {
    return run(config_text, options_json);
  } catch (const Error& e) {
    return error_json(e);
  } catch (const std::exception& e) {
    return error_json(Error(ErrorCode::internal, std::string("Internal error: ") + e.what()));
  } catch (...) {
    return error_json(Error(ErrorCode::internal, "Internal error."));
  }
}

}  // namespace cardfit

// Native only: handle()'s steps timed one by one (where a plan's time goes), and the planner alone.
// Mirrors core/session.cpp's plan path (trace, plan, checks, the core report written straight to a
// string); if that changes, change this with it. It plans without core/session.cpp's memory cache
// (plan/memory_cache.hpp): the steps of a first plan.
#pragma once
#include <chrono>
#include <map>
#include <string>

#include "arch/registry.hpp"
#include "config.hpp"
#include "plan/cards.hpp"
#include "plan/checkpoint.hpp"
#include "plan/checks.hpp"
#include "plan/plan.hpp"
#include "report/report.hpp"

namespace bench {

// Milliseconds per step of one handle() (no error handling: the bench's configs are good).
inline std::map<std::string, double> handle_stages(const std::string& config, const std::string& options) {
  using clock = std::chrono::steady_clock;
  std::map<std::string, double> ms;
  auto t = clock::now();
  auto lap = [&](const char* name) {
    const auto now = clock::now();
    ms[name] += std::chrono::duration<double, std::milli>(now - t).count();
    t = now;
  };
  const cardfit::Options opt = cardfit::parse_options(options);
  const cardfit::Config cfg = cardfit::Config::parse(config);
  lap("parse");
  const cardfit::Model model = cardfit::trace_model(cfg);
  lap("trace");
  const cardfit::Catalog catalog = cardfit::load_catalog();
  lap("catalog");
  const cardfit::Plan plan = cardfit::make_plan(model, opt, catalog);
  lap("plan");
  const auto checkpoint = cardfit::reconcile(model, opt);
  const auto checks = cardfit::run_checks(model, opt, plan.seq);
  lap("checks");
  const std::string out = cardfit::core_report({model, plan, checkpoint, checks, checks, checks});
  lap("core_report");
  ms["bytes"] = double(out.size());
  return ms;
}

}  // namespace bench

// cardfit::Planner: parse the options, trace the config text (or reuse its traced Model), plan,
// and hand the Plan to report/ for the section asked. The catalog is parsed once per Planner; the
// last kCachedTexts traced texts are kept (the page's model A and B, and a what-if or two).
#include "include/cardfit/planner.hpp"

#include <list>
#include <map>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "arch/audio_clip.hpp"
#include "arch/registry.hpp"
#include "config.hpp"
#include "error.hpp"
#include "include/cardfit/handle.hpp"
#include "plan/cards.hpp"
#include "plan/checkpoint.hpp"
#include "plan/checks.hpp"
#include "plan/fit_advisor.hpp"
#include "plan/plan.hpp"
#include "plan/validate.hpp"
#include "report/answer_text.hpp"
#include "report/report.hpp"

namespace cardfit {
using nlohmann::json;

namespace {
constexpr size_t kCachedTexts = 4;
// And at most this many tensors (parameters and stored extras) in the models kept beside the
// newest: a model at the tracing limit (160,000 tensors, with as many stored scales) takes ~100 MB,
// so a few of them would pass issue 14's 500 MB bound for one page.
constexpr size_t kCachedTensors = 400000;

constexpr size_t kCachedClips = 4;  // audio lengths kept per text (a slider's last few values)

size_t tensors_of(const Model& m) { return m.tensors.size() + m.buffers.size() + m.stored_extras.size(); }

struct Traced {
  std::string text;
  Config config;  // kept for the refusals that read the config beside the options (validate.hpp)
  Model model;
  // Each mode's memory model by the options it reads, across re-plans of this text (memory_cache.hpp).
  mutable MemoryCache memory;
  // The Model rescaled to an audio_seconds (arch/audio_clip.hpp), the last few lengths asked.
  mutable std::map<int64_t, Model> clips;

  const Model& model_for(const Options& o) const {
    if (!o.audio_seconds || !model.audio.sized_by_seconds() || *o.audio_seconds == model.audio.seconds)
      return model;
    auto it = clips.find(*o.audio_seconds);
    if (it != clips.end()) return it->second;
    Model clip = with_audio_seconds(model, *o.audio_seconds);
    if (clips.size() >= kCachedClips) clips.clear();
    return clips.emplace(*o.audio_seconds, std::move(clip)).first->second;
  }
};

std::string error_json(const Error& e) {
  json err = {{"code", error_code_string(e.code)}, {"message", e.message}, {"path", e.path}};
  if (e.line > 0) {
    err["line"] = e.line;
    err["column"] = e.column;
  }
  // answer_text replaces, never throws: a message quoting the input must not turn an error into a crash.
  return answer_text(json{{"ok", false}, {"error", err}});
}

// Runs one entry point: a cardfit::Error becomes its error JSON; any other exception is a bug in
// the core, and its text (library-internal, possibly quoting the input) is not shown.
template <class F>
std::string guarded(F&& body) {
  try {
    return body();
  } catch (const Error& e) {
    return error_json(e);
  } catch (...) {
    return internal_error_json();
  }
}

// {"ok":true, <the members of an object written by report/>}.
std::string ok_object(const std::string& object_json) {
  return object_json.size() <= 2 ? R"({"ok":true})" : R"({"ok":true,)" + object_json.substr(1);
}
}  // namespace

struct Planner::State {
  std::optional<Catalog> catalog;
  std::list<Traced> traced;  // most recently used first

  const Catalog& cards() {
    if (!catalog) catalog = load_catalog();
    return *catalog;
  }

  const Traced& trace(std::string_view text) {
    for (auto it = traced.begin(); it != traced.end(); ++it)
      if (it->text == text) {
        traced.splice(traced.begin(), traced, it);
        return traced.front();
      }
    Config config = Config::parse(text);
    Model model = trace_model(config);
    traced.push_front({std::string(text), std::move(config), std::move(model), {}});
    size_t kept = 0, count = 0;  // the newest is always kept; older ones while both bounds hold
    for (auto it = traced.begin(); it != traced.end();) {
      const size_t n = tensors_of(it->model);
      if (count > 0 && (count >= kCachedTexts || kept + n > kCachedTensors)) {
        it = traced.erase(it);
        continue;
      }
      kept += n;
      ++count;
      ++it;
    }
    return traced.front();
  }
};

namespace {
// Everything a section is written from. Options are parsed before the config (their errors win,
// as they always have).
struct Planned {
  Options options;
  const Traced* traced = nullptr;
  const Model* model = nullptr;  // the traced Model, or its rescaling to the options' audio_seconds
  std::shared_ptr<const Catalog> catalog;  // the request's cards (options cards, the custom card):
                                           // the plan's card rows point into it
  const Catalog* base = nullptr;            // the whole catalog
  Plan plan;
};

Planned make(Planner::State& s, std::string_view config_text, std::string_view options_json) {
  Planned p;
  p.options = parse_options(options_json);
  p.traced = &s.trace(config_text);
  p.model = &p.traced->model_for(p.options);
  const Catalog& catalog = s.cards();
  validate_request(p.traced->config, *p.model, p.options, catalog);  // refusals, before planning
  p.base = &catalog;
  if (p.options.cards.empty() && !p.options.custom_memory_bytes)
    p.catalog = std::shared_ptr<const Catalog>(std::shared_ptr<const Catalog>(), &catalog);  // not owned
  else
    p.catalog = std::make_shared<const Catalog>(request_catalog(catalog, p.options));
  p.plan = make_plan(*p.model, p.options, *p.catalog, &p.traced->memory);
  return p;
}

std::string core_of(const Planned& p) {
  const Model& m = *p.model;
  const auto checkpoint = reconcile(m, p.options);
  // The checks at batch 1 and above it (the page re-evaluates a batch change without the core;
  // run_checks looks at the batch only as batch > 1, tests/cpp/report_test.cpp holds it to that),
  // so the requested batch's checks are one of the two.
  Options single = p.options, batched = p.options;
  single.batch = 1;
  batched.batch = 2;
  const Card* priced = p.plan.cost.priced ? p.plan.cost.priced->card : nullptr;
  auto checks_single = run_checks(m, single, p.plan.seq, priced);
  auto checks_batched = run_checks(m, batched, p.plan.seq, priced);
  // The cards' own checks (bf16 on a card without it), the same at every batch, over every card
  // the request names (the cards filter may leave the priced or the fit card out of the table).
  std::optional<Catalog> every;
  if (!p.options.cards.empty()) {
    Options unfiltered = p.options;
    unfiltered.cards.clear();
    every = request_catalog(*p.base, unfiltered);
  }
  const Catalog& lookup = every ? *every : *p.catalog;
  for (auto* list : {&checks_single, &checks_batched})
    for (auto& f : card_checks(p.options, lookup)) list->push_back(std::move(f));
  const auto& checks = p.options.batch > 1 ? checks_batched : checks_single;
  std::string fit;
  if (!p.options.fit_card.empty())
    if (const Card* card = find_card(lookup, p.options.fit_card)) fit = fit_report(advise_fit(m, p.plan, *p.catalog, *card));
  return core_report({m, p.plan, checkpoint, checks, checks_single, checks_batched, fit.empty() ? nullptr : &fit});
}
}  // namespace

Planner::Planner() : state_(std::make_unique<State>()) {}
Planner::~Planner() = default;

std::string Planner::plan(std::string_view config_text, std::string_view options_json) {
  return guarded([&] { return core_of(make(*state_, config_text, options_json)); });
}

std::string Planner::graph(std::string_view config_text, std::string_view options_json) {
  return guarded([&] {
    const Planned p = make(*state_, config_text, options_json);
    return ok_object(graph_report(*p.model, p.plan));
  });
}

std::string Planner::tensors(std::string_view config_text, std::string_view options_json, bool expand_experts) {
  return guarded([&] {
    parse_options(options_json);  // the same errors as every other call
    return ok_object(tensors_report(state_->trace(config_text).model, expand_experts));
  });
}

std::string Planner::curves(std::string_view config_text, std::string_view options_json) {
  return guarded([&] { return ok_object(curves_report(make(*state_, config_text, options_json).plan)); });
}

std::string Planner::markdown(std::string_view config_text, std::string_view options_json) {
  return guarded([&] {
    const Planned p = make(*state_, config_text, options_json);
    json r = json::parse(core_of(p));
    r["graph"] = json::parse(graph_report(*p.model, p.plan));
    return answer_text(json{{"ok", true}, {"markdown", report_markdown(r)}});
  });
}

std::string Planner::report(std::string_view config_text, std::string_view options_json) {
  return guarded([&] {
    const Planned p = make(*state_, config_text, options_json);
    json r = json::parse(core_of(p));
    r["params"]["tensors"] = json::parse(tensors_report(*p.model, true))["tensors"];
    r["graph"] = json::parse(graph_report(*p.model, p.plan));
    r["curves"] = json::parse(curves_report(p.plan));
    r["markdown"] = report_markdown(r);
    return answer_text(r);
  });
}

}  // namespace cardfit

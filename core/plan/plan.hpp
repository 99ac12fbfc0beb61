// The whole plan for one model and one set of options: the requested configuration, batch-1
// summaries per mode, the card table with splits, the cost and the assumptions.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cards.hpp"
#include "memory.hpp"
#include "memory_cache.hpp"
#include "serving_cost.hpp"
#include "parallel.hpp"

namespace cardfit {

/// One way to spread a configuration that one card cannot hold over several cards of one type.
struct SplitOption {
  std::string strategy;              // "pipeline", "zero1", "zero2", "zero3" (training);
                                     // "pipeline", "tensor" (serving)
  int64_t cards = 0;
  std::vector<int64_t> stage_layers; // pipeline: blocks per stage, in order
  int64_t per_card_bytes = 0;        // reserved bytes on the fullest card
  double card_hours = 1;             // card-hours relative to ideal scaling (pipeline bubble)
};

/// The strategy with the fewest cards (ties: fewer card-hours), every strategy that fits, and the
/// one with the fewest card-hours (ties: fewer cards).
struct Split : SplitOption {
  std::vector<SplitOption> alternatives;  // every strategy that fits, each at its fewest cards
  std::string cheapest;                   // strategy with the fewest card-hours
  // Its report text, written once by report/ (report_core.cpp) and copied after: a split is shared by
  // every plan that reuses its memory model (SplitSolver::split), as SharedServing::json is.
  mutable std::string json;
};

struct CardRow {
  const Card* card = nullptr;
  int64_t max_batch[4] = {0, 0, 0, 0};      // by Mode
  int64_t safe_batch[4] = {0, 0, 0, 0};     // largest batch that still fits at estimate × borderline factor
  bool borderline[4] = {false, false, false, false};  // holds batch 1 only within the borderline band
  std::shared_ptr<const Split> split[4];   // when batch 1 does not fit one card (the solver's answer)
};

struct CostRow {
  const Card* card = nullptr;
  Mode mode = Mode::full;
  int64_t cards = 1;
  std::string strategy;  // "single", or the split's strategy
  double hours = 0, usd = 0;
  bool fits = false;     // the configuration fits in memory (one card, or the split)
  bool priced = false;   // the card has a dense peak and a price: hours and usd are meaningful
  // Training throughput at the planned batch (roofline: step FLOPs / (cards × dense peak × MFU));
  // 0 where the card has no published peak or the configuration does not fit.
  double tokens_per_s = 0;   // the row's cards together
  double step_seconds = 0;   // one optimizer step: batch × grad_accum samples on each card
};

struct Cost {
  double flops_per_token_forward = 0;
  double flops_per_token_step = 0;   // training step FLOPs per token in the requested mode
  int64_t images = 0;                // images per sample through the vision tower (0 without one)
  double flops_per_image_forward = 0;  // forward FLOPs of the vision tower and projector per image
  double tokens = 0;
  double total_flops = 0;
  double mfu = 0;
  std::vector<CostRow> rows;         // requested mode on every card
  std::optional<CostRow> priced;     // the priced card (option card)
  std::optional<CostRow> cheapest;   // cheapest card × count × mode that fits
};

struct Assumption {
  std::string id, text, option, value, source;
};

struct Plan {
  Options options;
  int64_t seq = 0, serve_seq = 0;
  MemoryPlan requested;               // options.mode at options.batch
  MemoryPlan modes[4];                // batch 1 per mode
  MemoryModels memory;                // per mode (indexed by Mode): what the solver and curves evaluate
  std::vector<CardRow> cards;
  Cost cost;
  std::vector<Assumption> assumptions;
  double borderline_factor = 1;       // estimate × this = conservative peak (docs/accuracy.md)
  Overheads overheads;                // as used (catalog defaults or options)
  // What the requested mode runs with where the option was left unset (graph_costs.hpp grad_ckpt_of,
  // attention_of): echoed in the report's plan section.
  bool grad_ckpt = false;
  Attention attention = Attention::sdpa;
  // The engine's budget, concurrency and cost per card (shared with the plans of equal serving inputs).
  std::shared_ptr<const SharedServing> shared_serving = std::make_shared<SharedServing>();
  const Serving& serving() const { return shared_serving->serving; }
  ParallelPlan parallel;              // multi-GPU training per rank (options.parallel set)
};

/// The borderline factor derived by scripts/accuracy (docs/accuracy.md): the 90th percentile of
/// measured / estimated peak over the dev-set points the model under-estimates.
extern const double kBorderlineFactor;

/// `cache`, when given, holds the memory models of earlier plans of this Model (memory_cache.hpp):
/// the plan is the same with or without it.
Plan make_plan(const Model& model, const Options& options, const Catalog& catalog, MemoryCache* cache = nullptr);

}  // namespace cardfit

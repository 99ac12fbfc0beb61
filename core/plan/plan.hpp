// The whole plan for one model and one set of options: the requested configuration, batch-1
// summaries per mode, the card table with splits, the cost and the assumptions.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "cards.hpp"
#include "memory.hpp"

namespace cardfit {

struct Split {
  std::string strategy;          // "pipeline" or "zero3"
  int64_t cards = 0;
  std::vector<int64_t> stage_layers;  // pipeline: blocks per stage
  int64_t per_card_bytes = 0;    // reserved bytes on the fullest card
};

struct CardRow {
  const Card* card = nullptr;
  int64_t max_batch[4] = {0, 0, 0, 0};      // by Mode
  bool borderline[4] = {false, false, false, false};
  std::optional<Split> split[4];           // when batch 1 does not fit one card
};

struct CostRow {
  const Card* card = nullptr;
  Mode mode = Mode::full;
  int64_t cards = 1;
  double hours = 0, usd = 0;
  bool fits = false;
};

struct Cost {
  double flops_per_token_forward = 0;
  double flops_per_token_step = 0;   // training step FLOPs per token in the requested mode
  double tokens = 0;
  double total_flops = 0;
  double mfu = 0;
  std::vector<CostRow> rows;         // requested mode on every card
  std::optional<CostRow> priced;     // the priced card (option card)
  std::optional<CostRow> cheapest;   // cheapest card × mode that fits
};

struct Assumption {
  std::string id, text, option, value, source;
};

struct Plan {
  Options options;
  int64_t seq = 0, serve_seq = 0;
  MemoryPlan requested;               // options.mode at options.batch
  MemoryPlan modes[4];                // batch 1 per mode
  std::vector<CardRow> cards;
  Cost cost;
  std::vector<Assumption> assumptions;
  double borderline_factor = 1.25;    // estimate × this = conservative peak
};

Plan make_plan(const Model& model, const Options& options, const Catalog& catalog);

}  // namespace cardfit

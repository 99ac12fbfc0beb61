// "Make it fit": for a chosen card (and how many of it) on which the requested plan does not fit,
// the changes that make it fit, each re-planned exactly with the memory model (not guessed): its
// reserved bytes per card, the bytes it saves, whether it fits alone, what it costs in step time
// (the step FLOPs) and quality (a caveat and a citation); the best combination that fits when no
// single change does; and the longest sequence that fits at the requested batch on every card.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "plan.hpp"

namespace cardfit {

struct FitChange {
  std::string id;             // "grad_ckpt", "adamw8bit", "fused_optimizer", "lora", "qlora", "lora_targets",
                              // "lora_rank", "seq", "grad_accum", "zero3", "offload", "paged_optimizer",
                              // "serve_dtype", "kv_dtype", "serve_seq", "batch", "tensor"
  std::string title;          // for people: "Gradient checkpointing"
  std::string options;        // the option change as a JSON object text ({"grad_ckpt":true}); "{}" if none
  bool available = true;      // false: the planner does not model it (note says why); no numbers
  int64_t reserved_bytes = 0; // per card after the change (the fullest card of a split)
  int64_t saved_bytes = 0;    // the requested plan's reserved bytes minus reserved_bytes
  bool fits = false;          // this change alone fits (within the cards you have)
  int64_t cards = 1;          // cards it runs on (ZeRO-3 / tensor parallel: the fewest that hold it)
  int64_t max_batch = 0;      // the largest micro-batch one card holds after the change (0: none)
  double time_factor = 1;     // step FLOPs per token after the change / before (card-hours)
  double step_seconds = 0;    // one optimizer step (batch × grad_accum samples) on the card(s); 0: no peak
  std::string cost;           // what it costs: time and quality, in words
  std::string source;         // a citation where one exists
};

struct FitCombination {
  std::vector<std::string> ids;  // the changes, in the order applied
  std::string options;           // all of them as one JSON object text
  int64_t reserved_bytes = 0, saved_bytes = 0, cards = 1;
  bool fits = false;
  double time_factor = 1, step_seconds = 0;
};

struct FitSeq {
  const Card* card = nullptr;
  int64_t longest_seq = 0;  // the longest seq (serving: serve_seq) that fits at the batch; 0: none
};

struct FitAdvice {
  const Card* card = nullptr;
  int64_t cards = 1;             // how many of the card the user has (fit_cards)
  Mode mode = Mode::full;
  int64_t batch = 1, grad_accum = 1, seq = 0;
  int64_t capacity_bytes = 0;    // of one card
  int64_t reserved_bytes = 0;    // the requested plan, per card
  bool fits = false;             // the requested plan fits one card (each of the cards holds a replica)
  double step_seconds = 0;       // the requested plan's optimizer step on this card (0: no published peak)
  double mfu = 0;
  std::vector<FitChange> changes;
  std::optional<FitCombination> best;  // when no single change fits: the fewest changes that do
  int64_t seq_limit = 0;               // the longest seq searched (the model's context)
  std::vector<FitSeq> longest_seq;     // per card of the plan's table
};

/// The advice for `card` (options.fit_card) × options.fit_cards, from a plan made with the same
/// options. Every number is re-planned with MemoryModel at the changed options.
FitAdvice advise_fit(const Model& model, const Plan& plan, const Catalog& catalog, const Card& card);

}  // namespace cardfit

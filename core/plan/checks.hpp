// Findings about the architecture and the plan: each with a stable id, a severity, an
// explanation and a fix. Includes a real shape check of the whole graph ("will it forward-pass").
#pragma once
#include <string>
#include <vector>

#include "../model.hpp"
#include "cards.hpp"
#include "options.hpp"

namespace cardfit {

struct Finding {
  std::string id;        // "vocab-not-multiple-of-64"
  std::string severity;  // "error", "warning", "info"
  std::string message;
  std::string fix;
};

/// The shape walk: empty when every node's input width matches what feeds it.
std::vector<std::string> shape_errors(const Model& model);

struct Card;
/// `card`: the priced card, for the findings that depend on it (float8 needs fp8 tensor cores).
std::vector<Finding> run_checks(const Model& model, const Options& opt, int64_t seq, const Card* card = nullptr);

/// Checks of the cards the request names (card, fit_card, cards; the custom card): bf16 or
/// bf16-mixed on a card without bf16 tensor math (T4, V100, Titan RTX), flagged per card.
std::vector<Finding> card_checks(const Options& opt, const Catalog& catalog);

}  // namespace cardfit

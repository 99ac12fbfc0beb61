// Refusals that need the traced model: options and config facts that are nonsense for this model.
// Called once, after tracing and before planning, so a request that will be refused is refused
// before any planning work (docs/api.md "Input rules").
#pragma once
#include "../config.hpp"
#include "../model.hpp"
#include "cards.hpp"
#include "options.hpp"

namespace cardfit {

/// Throws Error (field_range / field_type / field_inconsistent naming the config path, or
/// option_value naming the option) for: a bad rope_scaling (not an object, unknown type, factor
/// not a positive number; top level and text_config), top-k above the expert count, LoRA targets
/// that match no linear module (or an empty list), a checkpoint_total below parameters / 16,
/// serve_seq beyond the model's context, an unknown card, and prices for an unknown card.
void validate_request(const Config& cfg, const Model& model, const Options& options, const Catalog& catalog);

}  // namespace cardfit

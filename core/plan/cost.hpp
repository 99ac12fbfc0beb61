// Roofline cost of a training run: FLOPs from the graph, time at the card's dense peak × MFU.
#pragma once
#include "plan.hpp"

namespace cardfit {

/// Forward FLOPs per token of the whole model at `seq` (attention with causal masking).
double forward_flops_per_token(const Model& model, int64_t seq, Precision precision);

/// Fills plan.cost from plan.cards (which must already be solved).
void cost_plan(const Model& model, const Catalog& catalog, Plan& plan);

}  // namespace cardfit

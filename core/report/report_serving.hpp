// The serving section of the core report (plan/serving_cost.hpp): the engine, the budget of every
// card and the throughput and cost roofline. Formats only.
#pragma once
#include "../plan/plan.hpp"
#include "json_writer.hpp"

namespace cardfit {

void serving_section(JsonWriter& w, const Plan& plan);

}  // namespace cardfit

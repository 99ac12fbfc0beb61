// The family registry: model_type → the function that traces it.
#pragma once
#include <string_view>
#include <vector>

#include "../config.hpp"
#include "../model.hpp"

namespace cardfit {

using TraceFn = Model (*)(const Config& cfg);

struct Family {
  std::string_view model_type;  // the config's "model_type"
  TraceFn trace;
};

/// All supported families, in the order they are documented.
const std::vector<Family>& family_registry();

/// Traces a config: its model_type's family, or the generic decoder (marked approximate) when the
/// model_type is unknown but the standard keys are present; otherwise Error(model_type_unknown).
/// It then records the facts every config may carry (read_common_facts).
Model trace_model(const Config& cfg);

/// rope_scaling, torch_dtype, pad_token_id and attn_logit_softcapping onto Model::facts.
void read_common_facts(const Config& cfg, Model& m);

}  // namespace cardfit

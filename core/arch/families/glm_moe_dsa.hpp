// GLM-5 (glm_moe_dsa); registry.cpp maps model_type to it. Apart from the other headers so that
// adding it rebuilds only the files that use it.
#pragma once
#include "../../config.hpp"
#include "../../model.hpp"

namespace cardfit::families {

Model glm_moe_dsa(const Config& cfg);  // GLM-5: latent attention with DSA's lightning indexer, GLM-4.5's MoE

}  // namespace cardfit::families

// Serving a quantized checkpoint as published: the weights' bytes at the format its
// quantization_config describes (Model::stored_format and stored_extras), tensor by tensor.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "../model.hpp"

namespace cardfit {

/// The served weights at the stored format (trace_model keeps it as Model::stored_weights); nothing when the checkpoint is not quantized or its format
/// is not one cardfit sizes exactly (then serve_dtype applies).
std::optional<StoredWeights> stored_weight_bytes(const Model& m);

}  // namespace cardfit

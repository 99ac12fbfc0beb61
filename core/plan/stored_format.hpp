// Serving a quantized checkpoint as published: the weights' bytes at the format its
// quantization_config describes (Model::stored_format and stored_extras), tensor by tensor.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "../model.hpp"

namespace cardfit {

struct StoredWeights {
  int64_t bytes = 0;   // every tensor the model class loads, at its stored dtype (MTP layers excluded)
  std::string label;   // "mxfp4 experts + bf16", for the weights component
};

/// The served weights at the stored format; nothing when the checkpoint is not quantized or its format
/// is not one cardfit sizes exactly (then serve_dtype applies).
std::optional<StoredWeights> stored_weight_bytes(const Model& m);

/// Bytes per element of a safetensors dtype ("BF16" 2, "U8" 1, "I32" 4, ...); 2 when unknown.
int64_t safetensors_dtype_bytes(const std::string& dtype);

}  // namespace cardfit

// The tensors a compressed-tensors checkpoint stores for each module its quantization_config converts
// (FP8 / INT8 naive, W4A16 pack-quantized, NVFP4), as Model::stored_extras (arch/stored_extras.hpp).
#pragma once
#include <string>

#include "../config.hpp"
#include "../model.hpp"

namespace cardfit {

/// Reads `q` (quant_method "compressed-tensors": config_groups, ignore, format, kv_cache_scheme) and
/// adds each converted module's stored tensors; `weight_dtype` is the safetensors dtype of the
/// unquantized weights (BF16), which default scales take. A format or strategy it cannot size
/// exactly lists nothing and says so in Model::notes.
void add_compressed_tensors_extras(const Config& q, Model& m, StoredDtype weight_dtype);

}  // namespace cardfit

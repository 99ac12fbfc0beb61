// The tensors a pre-quantized bitsandbytes checkpoint stores (the unsloth/*-bnb-4bit repos, 8-bit
// LLM.int8() saves), as Model::stored_extras (arch/stored_extras.hpp).
#pragma once
#include <string>

#include "../config.hpp"
#include "../model.hpp"

namespace cardfit {

/// Reads `q` (quant_method "bitsandbytes": load_in_4bit / load_in_8bit, bnb_4bit_quant_type,
/// bnb_4bit_use_double_quant, bnb_4bit_quant_storage, llm_int8_skip_modules); `torch_dtype` is the
/// config's ("bfloat16"), the dtype the weights had when quantized, which the quant_state JSON names.
void add_bitsandbytes_extras(const Config& q, Model& m, const std::string& torch_dtype);

/// The quant_state JSON bitsandbytes packs beside a 4-bit weight of `shape` (QuantState.as_dict(packed=True)
/// through pack_dict_to_tensor: json.dumps of the non-tensor fields), with `offset` standing for the
/// nested_offset text when double quantized.
std::string bnb_quant_state_json(const std::string& quant_type, int64_t blocksize, const std::string& dtype,
                                 const Shape& shape, bool nested, const std::string& offset);

}  // namespace cardfit

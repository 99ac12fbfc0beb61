// QLoRA on a pre-quantized bitsandbytes checkpoint: the base it trains on is the checkpoint's own
// quantization, not one chosen at load. transformers uses the checkpoint's quantization_config over one
// passed to from_pretrained (quantizers/auto.py merge_quantization_configs: "The quantization_config
// from the model will be used") and quantizer_bnb_4bit.py rebuilds each Linear4bit from the stored
// quant_state (Params4bit.from_prequantized: its quant_type, and its nested absmax when double
// quantized); read 2026-12-01. qlora_quant / double_quant given as options still win (a what-if).
#pragma once
#include <string>

#include "../model.hpp"
#include "options.hpp"

namespace cardfit {

/// `o` with qlora_quant and double_quant taken from the checkpoint (Model::stored_bnb) where the
/// options did not set them; `o` itself for any other model.
Options with_checkpoint_quant(const Model& m, const Options& o);

/// What with_checkpoint_quant took from the checkpoint, as a clause for the qlora and stored_format
/// assumptions ("" when it took nothing): "qlora_quant nf4 and double_quant true from the checkpoint's
/// quantization_config (bnb_4bit_quant_type, bnb_4bit_use_double_quant)".
std::string checkpoint_quant_clause(const Model& m, const Options& o);

}  // namespace cardfit

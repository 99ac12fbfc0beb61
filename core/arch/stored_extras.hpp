// What published checkpoints store beyond the tensors the model class loads: multi-token-prediction
// layers (which the causal-LM classes drop on load) and the storage of quantized weights (FP8 block
// scales, MXFP4 blocks and scales). Recorded as Model::stored_extras, exact tensor by tensor, so that
// plan/checkpoint.cpp can reconcile a checkpoint total with 0 unexplained.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../config.hpp"
#include "../model.hpp"

namespace cardfit {

/// DeepSeek-V3 / GLM-4.5 nextn layers, model.layers.{layers + j}.* for j < count: a copy of decoder layer
/// `source_layer` (its parameters and stored buffers) plus the layer's own embed_tokens, enorm, hnorm,
/// eh_proj [hidden, 2 × hidden], shared_head.norm and shared_head.head [vocab, hidden]. `layer_prefix`:
/// where the decoder layers are stored (GLM-OCR's under model.language_model.layers.).
void add_nextn_layers(Model& m, int64_t count, int64_t layers, int64_t source_layer, int64_t hidden, int64_t vocab,
                      const std::string& layer_prefix = "model.layers.");

/// Qwen3-Next / Qwen3.5 MTP, mtp.*: fc [hidden, 2 × hidden], pre_fc_norm_embedding, pre_fc_norm_hidden,
/// mtp.layers.{j}.* (a copy of the full-attention decoder layer `source_layer`, routed experts stored one
/// by one as experts.{e}.{gate,up,down}_proj.weight where the model fuses them) and norm; no embedding
/// or head of their own (the model's are shared).
void add_qwen_mtp_layers(Model& m, int64_t count, int64_t source_layer, int64_t hidden);

/// Nemotron-H MTP, mtp.layers.{j}.* for each entry of mtp_layers_block_type: a copy of the main-model
/// block `sources[j]` ("backbone.layers.5": its norm and mixer, stored buffers included); the first also
/// stores enorm, hnorm and eh_proj [hidden, 2 × hidden], the last final_layernorm; no embedding or head
/// of their own (vLLM's nemotron_h_mtp.py shares the model's).
void add_nemotron_h_mtp_layers(Model& m, const std::vector<std::string>& sources, int64_t hidden);

/// quantization_config.weight_block_size of an fp8 checkpoint ([rows, cols] of one scale's block),
/// FineGrainedFP8Config's 128 × 128 when absent; anything but two positive integers is a coded error
/// naming the field. `q` is the quantization_config itself.
struct Fp8Block {
  int64_t rows = 128, cols = 128;
};
Fp8Block fp8_weight_block(const Config& q);

/// The storage quantization_config describes (read from `cfg`, the config that carries it): sets
/// Model::stored_format to its quant_method and, for fp8 with block scales and for mxfp4, adds the
/// scale and block tensors of every weight it converts (the main model's and the MTP layers'); for
/// gptq / awq, compressed-tensors (arch/stored_compressed_tensors.hpp) and bitsandbytes
/// (arch/stored_bitsandbytes.hpp) those of the main model's linears.
void add_quantization_extras(const Config& cfg, Model& m);

/// Whether a modules_to_not_convert entry covers the tensor `name`: an entry with '*' is a glob over
/// the module path (model.layers.*.self_attn covers model.layers.3.self_attn.q_proj.weight); one
/// without is a substring of the name, as transformers' quantizers test it.
bool not_converted(const std::string& pattern, const std::string& name);

}  // namespace cardfit

// Generation on one or several devices as LitGPT's scripts place and allocate it (serve mode, hf
// engine): what each device holds and the transients that set its peak. Used when stack is litgpt
// or serve_parallel is set; the serve plan is then device 0's (where the scripts read
// torch.cuda.max_memory_allocated, and which holds the embedding and head). Sources, read at the
// commits of the tutorials' figures:
//   Lightning-AI/lit-gpt@6ba8a51 (2023-07-25) generate/base.py, lit_gpt/model.py, lit_gpt/utils.py
//     quantization(), quantize/bnb.py (one device: tutorials/quantize.md);
//   Lightning-AI/litgpt@51d5328 (2024-01-10) generate/sequentially.py, generate/tp.py,
//     lit_gpt/model.py build_kv_cache / KVCache (tutorials/inference.md), with Lightning@6dfa5cc
//     fabric/plugins/precision/bitsandbytes.py and bitsandbytes 0.40.0-0.42.0.
#pragma once
#include <cstdint>
#include <vector>

#include "../model.hpp"
#include "options.hpp"

namespace cardfit {

/// One device of the generation.
struct GenerateDevice {
  int64_t first_layer = 0, end_layer = 0;  // the repeated layers [first, end) it runs (tp: all)
  bool root = false;       // holds the embedding, final norm and head (layer_split: device 0; tp: every one)
  int64_t weights = 0;     // its weights (tp: its shards and the replicated rest)
  int64_t kv = 0;          // its KV cache per sequence, in the activation dtype
  int64_t kv_build = 0;    // the same cache as allocated before the first forward (layer_split: fp32)
  int64_t transient = 0;   // bitsandbytes: the widest quantized linear's copies (see load_transient)
  bool load_transient = false;  // true: int8 re-quantization at load (no KV yet); false: 4-bit prefill dequantization
};

/// The layout of the generation, and whether the policies are LitGPT's.
struct GenerateLayout {
  bool applies = false;  // serve mode under the hf engine with stack litgpt or serve_parallel set
  bool litgpt = false;   // LitGPT's allocation (KV heads, build dtype, quantized head, bnb transients)
  ServeParallel parallel = ServeParallel::none;
  int64_t devices = 1;
  std::vector<GenerateDevice> per_device;
};

/// Whether the options ask for this layout (serve mode is the caller's).
bool uses_generate_layout(const Options& opt);

/// The layout for `seq` tokens of context per sequence (LitGPT: max_returned_tokens, the prompt
/// plus max_new_tokens). Weights are priced by served_weight_bytes (memory.hpp).
GenerateLayout generate_layout(const Model& model, const Options& opt, int64_t seq);

/// A device's peak at `batch` sequences: the largest of the load, the cache as built, the prefill
/// (its KV, `work_per_sample` and, on a root device, `logits_per_sample`) and the 4-bit transient.
int64_t generate_device_peak(const GenerateDevice& d, int64_t batch, int64_t work_per_sample, int64_t logits_per_sample,
                             int64_t workspace);

/// serve_parallel's split must divide the model as the scripts require: sequentially.py raises
/// unless the layers divide by the devices; tp.py unless every sharded linear's dimension does.
/// Error(option_value, path "serve_devices") otherwise; serve_parallel under another engine is
/// refused the same way (path "serve_parallel").
void check_serve_parallel(const Model& model, const Options& opt);

}  // namespace cardfit

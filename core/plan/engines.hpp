// Serving as the engines do it: how vLLM, SGLang, TGI and llama.cpp size their KV cache on a card
// and how many sequences they then run at once, next to Hugging Face generate (the serve mode's own
// memory model). Each engine's arithmetic follows its source; docs/memory-model.md, "Serving
// engines", cites the files and versions.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../function_ref.hpp"
#include "cards.hpp"
#include "memory.hpp"

namespace cardfit {

/// One GGUF storage type: `block_bytes` bytes hold `block_elements` weights (ggml's block structs,
/// ggml/src/ggml-common.h). Bits per weight = block_bytes × 8 / block_elements.
struct GgufBlock {
  GgufType type;
  int64_t block_elements, block_bytes;
};
/// The tensor type's block (a _M / _S file type: its base tensor type's block).
GgufBlock gguf_block(GgufType type);
double gguf_bits_per_weight(GgufType type);

/// Bytes of a GGUF file of `type` for the model's tensors, tensor type by tensor type as
/// llama_model_quantize picks them (src/llama-quant.cpp, llama_tensor_get_type_impl): 1-D tensors
/// stay F32; the output (and a tied embedding) Q6_K; Q4_K_M / Q5_K_M give attn_v and ffn_down Q6_K
/// on the layers use_more_bits picks; a row not divisible by the block falls back. Layers
/// [0, gpu_layers) and, when `output_on_gpu`, everything outside the layers count as "gpu".
struct GgufWeights {
  int64_t total = 0, gpu = 0;
};
GgufWeights gguf_weights(const Model& model, GgufType type, int64_t gpu_layers, bool output_on_gpu);

/// The engine's knobs as resolved for one card (defaults that depend on the card filled in).
struct EngineKnobs {
  double memory_fraction = 0;          // vLLM gpu_memory_utilization, SGLang mem_fraction_static,
                                       // TGI cuda_memory_fraction × TGI_WIGGLE_ROOM; 1 for hf, llama.cpp
  int64_t max_seqs = 0;                // vLLM max_num_seqs, SGLang max_running_requests, TGI
                                       // max_concurrent_requests; 0: no cap (hf, llama.cpp)
  int64_t profile_tokens = 0;          // tokens of the profile / warmup forward (vLLM max_num_batched_tokens,
                                       // SGLang chunked_prefill_size, TGI max_batch_prefill_tokens, llama.cpp n_ubatch)
  int64_t cuda_graph_max_bs = 0;       // SGLang
  int64_t gpu_layers = 0;              // llama.cpp: repeated layers on the card
  bool output_on_gpu = true;           // llama.cpp
  bool flash_attention = true;         // llama.cpp: -fa (option attention eager: -fa off)
};

/// What the engine does with one card (per tensor-parallel rank): its budget, what it takes out
/// first, and the KV cache it allocates from the rest.
struct EngineBudget {
  EngineKnobs knobs;
  int64_t capacity_bytes = 0;       // the card's torch total_memory
  int64_t budget_bytes = 0;         // memory_fraction × capacity (hf: capacity)
  int64_t weights_bytes = 0;        // per rank
  int64_t activation_bytes = 0;     // peak of the profile / warmup forward (SGLang: its reserved estimate)
  int64_t cuda_graph_bytes = 0;     // taken from the budget (0 where the engine captures outside it)
  int64_t non_torch_bytes = 0;      // CUDA context, library handles, all-reduce buffers
  int64_t kv_bytes = 0;             // what is left for the KV cache (and recurrent state)
  int64_t block_tokens = 1;         // tokens per KV block (1: a token-level pool)
  int64_t block_bytes = 0;          // one block over every layer of the rank
  int64_t blocks = 0;
  int64_t kv_tokens = 0;            // blocks × block_tokens
  int64_t compute_bytes_per_sequence = 0;  // llama.cpp: its compute buffer's attention inputs and
                                           // scores for one slot's context (llamacpp_attention_buffer)
  int64_t sequence_bytes = 0;       // one sequence at max_model_len: its blocks (and recurrent state,
                                    // and compute_bytes_per_sequence)
  int64_t concurrency = 0;          // sequences of max_model_len tokens at once (capped by max_seqs)
  int64_t workload_batch = 0;       // sequences of prompt + output tokens at once (capped by max_seqs)
  bool fits = false;                // the weights and the profile run fit and leave room for one sequence
  bool kv_replicated = false;       // fewer KV heads than tp ranks: each rank keeps whole heads
};

/// KV cache bytes of one sequence held at `context` tokens on one rank of `tp` (sliding-window
/// layers hold their window; K/V heads split over the ranks, one whole head per rank when there
/// are fewer heads than ranks; an MLA latent is replicated), at `element_bytes` per element.
/// `block_tokens` > 1 rounds each layer's tokens up to whole blocks (a paged cache).
double kv_sequence_bytes(const Model& model, int64_t context, double element_bytes, int64_t tp,
                         int64_t block_tokens = 1, int64_t window_extra = 0);

/// llama.cpp runs flash attention (-fa auto, its default, on CUDA) unless the option attention is
/// eager (-fa off).
inline bool llamacpp_flash_attention(const Options& opt) { return opt.attention.value_or(Attention::flash) != Attention::eager; }

/// llama.cpp's compute buffer beyond the layers' activations for one slot of `context` tokens, as
/// its graph allocates it with a ubatch of `ubatch` tokens: the KQ mask input (f16 under flash
/// attention, f32 without) for the full and for the sliding layers, and without flash attention
/// one layer's f32 scores, n_kv × ubatch × heads. Grows with -c, so it is counted per slot.
int64_t llamacpp_attention_buffer(const Model& model, int64_t context, int64_t ubatch, bool flash);

/// The engine's budget on `card` for the plan's model and options. `serve` is the serve mode's
/// memory model (weights, KV per sequence, prefill working set); `hf_batch` the serve mode's
/// largest batch on this card (card solver), which the hf engine reports as its concurrency;
/// `working_set(tokens)` the transient bytes of one forward over that many tokens (the profile or
/// warmup run's activations).
EngineBudget engine_budget(const Model& model, const Options& opt, const MemoryModel& serve, const Card& card,
                           const Overheads& overheads, int64_t max_model_len, int64_t hf_batch,
                           FunctionRef<int64_t(int64_t)> working_set);

}  // namespace cardfit

// The option table (one entry per option) and its interpreter: validation, messages, storing.
#include "option_schema.hpp"

#include <array>
#include <nlohmann/json.hpp>
#include <string>

#include "../error.hpp"

namespace cardfit {
using nlohmann::json;

namespace {
// ---- how a validated value reaches its field
template <auto Field>
void put_int(Options& o, const json& v) { o.*Field = v.get<int64_t>(); }
template <auto Field>
void put_number(Options& o, const json& v) { o.*Field = v.get<double>(); }
template <auto Field>
void put_bool(Options& o, const json& v) { o.*Field = v.get<bool>(); }
template <auto Field>
void put_names(Options& o, const json& v) { o.*Field = v.get<std::vector<std::string>>(); }
template <auto Field>
void put_text(Options& o, const json& v) { o.*Field = v.get<std::string>(); }
template <auto Field>
void put_prices(Options& o, const json& v) {
  for (const auto& [id, usd] : v.items()) (o.*Field)[id] = usd.template get<double>();
}
template <auto Field, auto& Table>
void put_enum(Options& o, const json& v) {
  for (const auto& entry : Table)
    if (entry.name == v.get_ref<const std::string&>()) o.*Field = entry.value;
}
void put_serve_dtype(Options& o, const json& v) {
  put_enum<&Options::serve_dtype, weight_dtype_names>(o, v);
  o.serve_dtype_set = true;  // an explicit dtype, even bf16, replaces a quantized checkpoint's stored format
}
void put_qlora_quant(Options& o, const json& v) {
  put_enum<&Options::qlora_quant, quant_names>(o, v);
  o.qlora_quant_set = true;  // an explicit base, even nf4, replaces a bitsandbytes checkpoint's own
}
void put_double_quant(Options& o, const json& v) {
  put_bool<&Options::double_quant>(o, v);
  o.double_quant_set = true;
}
void put_kv_dtype(Options& o, const json& v) {
  put_enum<&Options::kv_dtype, weight_dtype_names>(o, v);
  o.kv_dtype_set = true;  // an explicit KV dtype, even bf16, overrides "the activation dtype"
}

// ---- accepted names, spelled only by each enum's table (options.hpp)
template <typename E, size_t N>
constexpr std::array<std::string_view, N> names_of(const EnumName<E> (&table)[N]) {
  std::array<std::string_view, N> out{};
  for (size_t i = 0; i < N; ++i) out[i] = table[i].name;
  return out;
}
constexpr auto mode_values = names_of(mode_names);
constexpr auto precision_values = names_of(precision_names);
constexpr auto optimizer_values = names_of(optimizer_names);
constexpr auto attention_values = names_of(attention_names);
constexpr auto serve_dtype_values = names_of(weight_dtype_names);
constexpr auto quant_values = names_of(quant_names);
constexpr auto optimizer_impl_values = names_of(optimizer_impl_names);
constexpr auto parallel_values = names_of(parallel_names);
constexpr auto stack_values = names_of(stack_names);
constexpr auto loss_values = names_of(loss_names);
constexpr auto master_weights_values = names_of(master_weights_names);
constexpr auto ckpt_policy_values = names_of(ckpt_policy_names);
constexpr auto checkpoint_dtype_values = [] {
  std::array<std::string_view, std::size(checkpoint_dtypes)> out{};
  for (size_t i = 0; i < out.size(); ++i) out[i] = enum_name(weight_dtype_names, checkpoint_dtypes[i]);
  return out;
}();
constexpr auto quant_scope_values = names_of(quant_scope_names);
constexpr auto bnb_version_values = names_of(bnb_version_names);
constexpr auto engine_values = names_of(engine_names);
constexpr auto serve_parallel_values = names_of(serve_parallel_names);
constexpr auto gguf_values = names_of(gguf_type_names);
constexpr auto gguf_cache_values = [] {
  std::array<std::string_view, std::size(gguf_cache_types)> out{};
  for (size_t i = 0; i < out.size(); ++i) out[i] = enum_name(gguf_type_names, gguf_cache_types[i]);
  return out;
}();
constexpr auto kv_dtype_values = [] {
  std::array<std::string_view, std::size(kv_dtypes)> out{};
  for (size_t i = 0; i < out.size(); ++i) out[i] = enum_name(weight_dtype_names, kv_dtypes[i]);
  return out;
}();

constexpr int64_t kMaxTokens = int64_t(1) << 24, kMaxCount = int64_t(1) << 20;
using T = OptionType;

// In the order of the page's form and of docs/api.md.
constexpr OptionSpec specs[] = {
    {.name = "mode", .type = T::enumeration, .group = "mode", .doc = "What is planned: a full fine-tune, LoRA, QLoRA or serving.",
     .flag = "--mode", .values = mode_values, .default_json = R"("full")", .store = put_enum<&Options::mode, mode_names>},
    // workload
    {.name = "seq", .type = T::integer, .group = "workload", .doc = "Training tokens per sample.", .flag = "--seq",
     .flag_arg = "N", .int_min = 1, .int_max = kMaxTokens,
     .default_note = "512, or 2048 for models of 1B+ parameters, capped at the context", .store = put_int<&Options::seq>},
    {.name = "batch", .type = T::integer, .group = "workload", .doc = "Samples per micro-batch.", .flag = "--batch",
     .flag_arg = "N", .int_min = 1, .int_max = kMaxCount, .default_json = "1", .store = put_int<&Options::batch>},
    {.name = "serve_seq", .type = T::integer, .group = "workload", .doc = "Serving context per sequence (prompt and output).",
     .flag = "--serve-seq", .flag_arg = "N", .int_min = 1, .int_max = kMaxTokens,
     .default_note = "`seq` if given, else the training length (4096 for models of 1B+ parameters)",
     .store = put_int<&Options::serve_seq>},
    {.name = "grad_accum", .type = T::integer, .group = "workload", .doc = "Micro-batches per optimizer step.",
     .flag = "--grad-accum", .flag_arg = "N", .int_min = 1, .int_max = kMaxCount, .default_json = "1",
     .store = put_int<&Options::grad_accum>},
    {.name = "images", .type = T::integer, .group = "workload",
     .doc = "Images per sample through a vision tower (training and serving); 0 plans the text alone.",
     .flag = "--images", .flag_arg = "N", .int_min = 0, .int_max = 4096,
     .default_note = "1 for a model with a vision tower", .store = put_int<&Options::images>},
    {.name = "audio_seconds", .type = T::integer, .group = "workload",
     .doc = "Seconds of audio per sample through an audio tower (training and serving); no effect without one.",
     .flag = "--audio-seconds", .flag_arg = "S", .int_min = 1, .int_max = 3600,
     .default_note = "the model's clip: Whisper's 30 s window, Qwen3-Omni 30 s",
     .store = put_int<&Options::audio_seconds>},
    // training
    {.name = "precision", .type = T::enumeration, .group = "training", .doc = "Training precision (mixed: fp32 master weights).",
     .flag = "--precision", .values = precision_values, .default_json = R"("bf16-mixed")",
     .store = put_enum<&Options::precision, precision_names>},
    {.name = "optimizer", .type = T::enumeration, .group = "training",
     .doc = "The optimizer whose states are held (muon: Muon on hidden weight matrices, AdamW on embeddings, head "
            "and vectors; none: forward and backward only).",
     .flag = "--optimizer",
     .values = optimizer_values, .default_json = R"("adamw")", .store = put_enum<&Options::optimizer, optimizer_names>},
    {.name = "attention", .type = T::enumeration, .group = "training",
     .doc = "The attention implementation (eager materialises the score matrix); llama.cpp: eager is -fa off.",
     .flag = "--attention", .values = attention_values,
     .default_note = "sdpa; eager for a model that caps attention logits (Gemma 2: transformers trains it eager); "
                     "llama.cpp: flash (its -fa auto enables it on CUDA)",
     .store = put_enum<&Options::attention, attention_names>},
    {.name = "grad_ckpt", .type = T::boolean, .group = "training",
     .doc = "Gradient checkpointing: keep only each block's input, recompute the rest.", .flag = "--grad-ckpt",
     .default_note = "on for QLoRA (PEFT prepare_model_for_kbit_training enables it), off otherwise",
     .store = put_bool<&Options::grad_ckpt>},
    {.name = "float8", .type = T::boolean, .group = "training",
     .doc = "torchao float8 training: every nn.Linear but the head runs in fp8 (Float8Linear).", .flag = "--float8",
     .default_json = "false", .store = put_bool<&Options::float8>},
    // stack and its policies (stacks.cpp): unset, a policy takes the stack's preset
    {.name = "stack", .type = T::enumeration, .group = "stack",
     .doc = "The training stack whose policies are planned (hf: the Hugging Face Trainer).", .flag = "--stack",
     .values = stack_values, .default_json = R"("hf")", .store = put_enum<&Options::stack, stack_names>},
    {.name = "loss", .type = T::enumeration, .group = "stack",
     .doc = "The loss over the logits: whole and upcast (full), in chunks of tokens, or fused with the head.",
     .flag = "--loss", .values = loss_values, .default_note = "the stack's (hf: full)",
     .store = put_enum<&Options::loss, loss_names>},
    {.name = "loss_chunks", .type = T::integer, .group = "stack",
     .doc = "Chunked loss, torchtune style: chunks per sample, the head run inside the loss per chunk.",
     .flag = "--loss-chunks", .flag_arg = "N", .int_min = 1, .int_max = kMaxTokens,
     .default_note = "the stack's (torchtune: 8)", .store = put_int<&Options::loss_chunks>},
    {.name = "loss_chunk_tokens", .type = T::integer, .group = "stack",
     .doc = "Chunked loss, LitGPT style: tokens per sequence per chunk of returned 16-bit logits.",
     .flag = "--loss-chunk-tokens", .flag_arg = "N", .int_min = 1, .int_max = kMaxTokens,
     .default_note = "the stack's (litgpt: 128)", .store = put_int<&Options::loss_chunk_tokens>},
    {.name = "master_weights", .type = T::enumeration, .group = "stack",
     .doc = "none: pure 16-bit training (bf16 weights, gradients, states; no autocast, no fp32 master).",
     .flag = "--master-weights", .values = master_weights_values, .default_note = "the stack's (hf: fp32)",
     .store = put_enum<&Options::master_weights, master_weights_names>},
    {.name = "optimizer_in_bwd", .type = T::boolean, .group = "stack",
     .doc = "Step each parameter in backward and free its gradient (torchtune optimizer_in_bwd).",
     .flag = "--optimizer-in-bwd", .flag_arg = "true|false", .default_note = "the stack's (hf: false)",
     .store = put_bool<&Options::optimizer_in_bwd>},
    {.name = "paged_optimizer", .type = T::boolean, .group = "stack",
     .doc = "bitsandbytes paged optimizer: states in unified memory, outside the torch allocator.",
     .flag = "--paged-optimizer", .flag_arg = "true|false", .default_note = "the stack's (hf: false)",
     .store = put_bool<&Options::paged_optimizer>},
    {.name = "optimizer_offload", .type = T::boolean, .group = "stack",
     .doc = "Optimizer states and step on the host (DeepSpeed offload_optimizer on one GPU).",
     .flag = "--optimizer-offload", .flag_arg = "true|false", .default_note = "false (no stack presets it)",
     .store = put_bool<&Options::optimizer_offload>},
    {.name = "activation_offload", .type = T::boolean, .group = "stack",
     .doc = "With grad_ckpt: saved activations offloaded to the host (torchtune OffloadActivations).",
     .flag = "--activation-offload", .flag_arg = "true|false", .default_note = "the stack's (hf: false; unsloth: true)",
     .store = put_bool<&Options::activation_offload>},
    {.name = "ckpt_every", .type = T::integer, .group = "stack",
     .doc = "With grad_ckpt: checkpoint every k-th layer (torchtune selective activation checkpointing).",
     .flag = "--ckpt-every", .flag_arg = "K", .int_min = 1, .int_max = 4096, .default_note = "1: every layer",
     .store = put_int<&Options::ckpt_every>},
    {.name = "ckpt_policy", .type = T::enumeration, .group = "stack",
     .doc = "With grad_ckpt: what a checkpointed layer keeps (layer: its input; selective_op: torchtitan's per-op save list).",
     .flag = "--ckpt-policy", .values = ckpt_policy_values, .default_note = "layer",
     .store = put_enum<&Options::ckpt_policy, ckpt_policy_names>},
    {.name = "compile", .type = T::boolean, .group = "stack", .doc = "torch.compile of the model and loss.",
     .flag = "--compile", .flag_arg = "true|false", .default_note = "the stack's (hf: false)",
     .store = put_bool<&Options::compile>},
    {.name = "packing", .type = T::boolean, .group = "stack",
     .doc = "Samples packed into rows of seq tokens (false: padded to the longest of the batch).",
     .flag = "--packing", .flag_arg = "true|false", .default_note = "false", .store = put_bool<&Options::packing>},
    {.name = "load_phase", .type = T::boolean, .group = "stack",
     .doc = "Plan the loading of the weights (dtype conversion, quantization) as a phase.",
     .flag = "--load-phase", .flag_arg = "true|false", .default_note = "the stack's (hf: false)",
     .store = put_bool<&Options::load_phase>},
    {.name = "checkpoint_dtype", .type = T::enumeration, .group = "stack",
     .doc = "The dtype of the stored weights the load phase reads.", .flag = "--checkpoint-dtype",
     .values = checkpoint_dtype_values, .default_note = "bf16",
     .store = put_enum<&Options::checkpoint_dtype, weight_dtype_names>},
    // LoRA and QLoRA
    {.name = "lora_rank", .type = T::integer, .group = "lora", .doc = "LoRA rank r of every adapter.", .flag = "--lora-rank",
     .flag_arg = "N", .int_min = 1, .int_max = 65536, .default_json = "16", .store = put_int<&Options::lora_rank>},
    {.name = "qlora_quant", .type = T::enumeration, .group = "lora",
     .doc = "How QLoRA stores the frozen base: bitsandbytes NF4/FP4, LLM.int8 or GPTQ int4.", .flag = "--qlora-quant",
     .values = quant_values,
     .default_note = "the checkpoint's (load_in_8bit: int8, else bnb_4bit_quant_type) where its config has a bitsandbytes quantization_config, else nf4",
     .store = put_qlora_quant},
    {.name = "quantize", .type = T::enumeration, .group = "lora",
     .doc = "Which linears QLoRA quantizes: all (every nn.Linear but the head) or only the LoRA-adapted ones (the rest 16-bit).",
     .flag = "--quantize", .values = quant_scope_values, .default_json = R"("all")",
     .store = put_enum<&Options::quantize, quant_scope_names>},
    {.name = "modules_to_save", .type = T::names, .group = "lora",
     .doc = "PEFT modules_to_save: modules trained in full next to the adapters (e.g. lm_head).",
     .flag = "--modules-to-save", .flag_arg = "a,b,...", .default_json = "[]", .default_note = "none",
     .expect = "be a list of module names", .store = put_names<&Options::modules_to_save>},
    {.name = "lora_targets", .type = T::names, .group = "lora", .doc = "Module names that get adapters (e.g. q_proj, v_proj).",
     .flag = "--lora-targets", .flag_arg = "q_proj,v_proj,...", .non_empty = true,
     .default_note = "every linear layer but the head (omit the option; [] is refused)",
     .expect = "be a list of module names", .store = put_names<&Options::lora_targets>},
    // serving
    {.name = "serve_dtype", .type = T::enumeration, .group = "serving", .doc = "The dtype of the served weights.",
     .flag = "--serve-dtype", .values = serve_dtype_values,
     .default_note = "the checkpoint's stored format where its config has a quantization_config (mxfp4, fp8, gptq, awq, compressed-tensors, bitsandbytes), else bf16",
     .store = put_serve_dtype},
    {.name = "kv_dtype", .type = T::enumeration, .group = "serving", .doc = "The dtype of the KV cache.", .flag = "--kv-dtype",
     .values = kv_dtype_values, .default_note = "the activation dtype (fp32 when serving fp32)", .store = put_kv_dtype},
    // serving engines (engines.hpp; docs/memory-model.md, "Serving engines")
    {.name = "engine", .type = T::enumeration, .group = "engines",
     .doc = "The serving engine whose memory budget, scheduler and throughput the serving section models.",
     .flag = "--engine", .values = engine_values, .default_json = R"("hf")",
     .store = put_enum<&Options::engine, engine_names>},
    {.name = "serve_parallel", .type = T::enumeration, .group = "engines",
     .doc = "hf engine: generation over serve_devices devices: layer_split gives each an equal share of the blocks (LitGPT generate/sequentially.py), tp shards the attention and MLP linears (generate/tp.py).",
     .flag = "--serve-parallel", .values = serve_parallel_values, .default_json = R"("none")",
     .store = put_enum<&Options::serve_parallel, serve_parallel_names>},
    {.name = "serve_devices", .type = T::integer, .group = "engines",
     .doc = "hf engine: devices of serve_parallel (the plan's peak is device 0's, which holds the embedding and head).",
     .flag = "--serve-devices", .flag_arg = "N", .int_min = 1, .int_max = 4096, .default_json = "1",
     .store = put_int<&Options::serve_devices>},
    {.name = "prompt_tokens", .type = T::integer, .group = "engines",
     .doc = "Prompt tokens per request of the serving throughput and cost.", .flag = "--prompt-tokens",
     .flag_arg = "N", .int_min = 1, .int_max = kMaxTokens, .default_json = "1024",
     .store = put_int<&Options::prompt_tokens>},
    {.name = "output_tokens", .type = T::integer, .group = "engines",
     .doc = "Output tokens per request of the serving throughput and cost.", .flag = "--output-tokens",
     .flag_arg = "N", .int_min = 1, .int_max = kMaxTokens, .default_json = "128",
     .store = put_int<&Options::output_tokens>},
    {.name = "bandwidth_efficiency", .type = T::number, .group = "engines",
     .doc = "Share of the card's peak memory bandwidth a decode step reads at (the decode roofline).",
     .flag = "--bandwidth-efficiency", .flag_arg = "X", .num_min = 0, .num_max = 1, .num_min_open = true,
     .default_json = "0.8", .store = put_number<&Options::bandwidth_efficiency>},
    {.name = "gpu_memory_utilization", .type = T::number, .group = "engines",
     .doc = "vLLM: the share of the card's memory the engine may use (weights, activations, KV cache).",
     .flag = "--gpu-memory-utilization", .flag_arg = "X", .num_min = 0, .num_max = 1, .num_min_open = true,
     .default_json = "0.9", .store = put_number<&Options::gpu_memory_utilization>},
    {.name = "max_num_seqs", .type = T::integer, .group = "engines",
     .doc = "vLLM: the most sequences the scheduler runs at once.", .flag = "--max-num-seqs", .flag_arg = "N",
     .int_min = 1, .int_max = kMaxCount,
     .default_note = "vLLM's for `vllm serve`: 1024 on cards of 70+ GiB other than the A100, else 256",
     .store = put_int<&Options::max_num_seqs>},
    {.name = "max_num_batched_tokens", .type = T::integer, .group = "engines",
     .doc = "vLLM: tokens per scheduler step (the profile run's size).", .flag = "--max-num-batched-tokens",
     .flag_arg = "N", .int_min = 1, .int_max = kMaxTokens,
     .default_note = "vLLM's for `vllm serve`: 8192 on cards of 70+ GiB other than the A100, else 2048",
     .store = put_int<&Options::max_num_batched_tokens>},
    {.name = "block_size", .type = T::integer, .group = "engines", .doc = "vLLM: tokens per KV cache block.",
     .flag = "--block-size", .flag_arg = "N", .int_min = 1, .int_max = 4096, .default_json = "16",
     .store = put_int<&Options::block_size>},
    {.name = "cuda_graph_bytes", .type = T::integer, .group = "engines",
     .doc = "vLLM: CUDA-graph memory taken out of the KV budget (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1).",
     .flag = "--cuda-graph-bytes", .flag_arg = "N", .int_min = 0, .int_max = int64_t(1) << 40,
     .default_json = "0", .store = put_int<&Options::cuda_graph_bytes>},
    {.name = "mem_fraction_static", .type = T::number, .group = "engines",
     .doc = "SGLang: the share of the card's memory for weights and the KV pool.", .flag = "--mem-fraction-static",
     .flag_arg = "X", .num_min = 0, .num_max = 1, .num_min_open = true,
     .default_note = "SGLang's, from the card's memory (server_args.py)", .store = put_number<&Options::mem_fraction_static>},
    {.name = "cuda_memory_fraction", .type = T::number, .group = "engines",
     .doc = "TGI: --cuda-memory-fraction, the share of the card's memory the shard may use.",
     .flag = "--cuda-memory-fraction", .flag_arg = "X", .num_min = 0, .num_max = 1, .num_min_open = true,
     .default_note = "1 (TGI's CUDA_MEMORY_FRACTION default, utils/dist.py)", .store = put_number<&Options::cuda_memory_fraction>},
    {.name = "max_batch_prefill_tokens", .type = T::integer, .group = "engines",
     .doc = "TGI: --max-batch-prefill-tokens, the warmup prefill's size.", .flag = "--max-batch-prefill-tokens",
     .flag_arg = "N", .int_min = 1, .int_max = kMaxTokens, .default_json = "4096",
     .store = put_int<&Options::max_batch_prefill_tokens>},
    {.name = "gguf", .type = T::enumeration, .group = "engines",
     .doc = "llama.cpp: the GGUF file type of the weights (the _M / _S mixes as llama-quantize makes them).",
     .flag = "--gguf", .values = gguf_values, .default_json = R"("q4_k_m")", .store = put_enum<&Options::gguf, gguf_type_names>},
    {.name = "cache_type_k", .type = T::enumeration, .group = "engines", .doc = "llama.cpp: -ctk, the K cache type.",
     .flag = "--cache-type-k", .values = gguf_cache_values, .default_json = R"("f16")",
     .store = put_enum<&Options::cache_type_k, gguf_type_names>},
    {.name = "cache_type_v", .type = T::enumeration, .group = "engines", .doc = "llama.cpp: -ctv, the V cache type.",
     .flag = "--cache-type-v", .values = gguf_cache_values, .default_json = R"("f16")",
     .store = put_enum<&Options::cache_type_v, gguf_type_names>},
    {.name = "n_gpu_layers", .type = T::integer, .group = "engines",
     .doc = "llama.cpp: -ngl, repeated layers offloaded to the card (more than the layers: the output too).",
     .flag = "--n-gpu-layers", .flag_arg = "N", .int_min = 0, .int_max = 100000,
     .default_note = "every layer and the output", .store = put_int<&Options::n_gpu_layers>},
    // cards and cost
    {.name = "card", .type = T::text, .group = "cost", .doc = "The priced card: an id of data/cards.json.", .flag = "--card",
     .flag_arg = "ID", .max_length = 200, .non_empty = true, .default_note = "the catalog's priced card (defaults.priced_card, a10g)",
     .expect = R"(be a card id such as "h100-sxm")", .store = put_text<&Options::card>},
    {.name = "gpus", .type = T::integer, .group = "cost", .doc = "Cards used for a run that fits one card; with parallel, the total ranks N.", .flag = "--gpus",
     .flag_arg = "N", .int_min = 1, .int_max = 4096, .default_json = "1", .store = put_int<&Options::gpus>},
    // multi-GPU training (core/plan/parallel.hpp; gpus above is N)
    {.name = "parallel", .type = T::enumeration, .group = "parallel",
     .doc = "Multi-GPU training strategy per rank: DDP, FSDP1, FSDP2 fully_shard, HSDP, DeepSpeed ZeRO-1/2/3.",
     .flag = "--parallel", .values = parallel_values, .default_json = R"("none")",
     .default_note = "none: one card (DDP buckets when gpus > 1, as before)", .store = put_enum<&Options::parallel, parallel_names>},
    {.name = "shard_group", .type = T::integer, .group = "parallel",
     .doc = "HSDP: ranks per shard group (FSDP over the group, replicas across groups); must divide gpus.",
     .flag = "--shard-group", .flag_arg = "N", .int_min = 1, .int_max = 4096,
     .default_note = "8 (one node), capped at gpus", .store = put_int<&Options::shard_group>},
    {.name = "reshard_after_forward", .type = T::integer, .group = "parallel",
     .doc = "FSDP: 1 reshard after forward (FULL_SHARD), 0 keep gathered (SHARD_GRAD_OP), k > 1 FSDP2 reshard to k ranks.",
     .flag = "--reshard-after-forward", .flag_arg = "K", .int_min = 0, .int_max = 4096, .default_json = "1",
     .store = put_int<&Options::reshard_after_forward>},
    {.name = "offload_optimizer", .type = T::boolean, .group = "parallel",
     .doc = "DeepSpeed offload_optimizer device cpu: fp32 master, optimizer states and fp32 gradients on the host.",
     .flag = "--offload-optimizer", .default_json = "false", .store = put_bool<&Options::offload_optimizer>},
    {.name = "offload_params", .type = T::boolean, .group = "parallel",
     .doc = "ZeRO-3 offload_param cpu, or FSDP CPUOffload(offload_params=True): sharded parameters on the host.",
     .flag = "--offload-params", .default_json = "false", .store = put_bool<&Options::offload_params>},
    {.name = "tp", .type = T::integer, .group = "parallel",
     .doc = "Tensor-parallel degree: training with parallel splits heads and MLP columns (Megatron); serving splits weights and KV heads over tp ranks per replica.",
     .flag = "--tp", .flag_arg = "N", .int_min = 1, .int_max = 4096, .default_json = "1", .store = put_int<&Options::tp>},
    {.name = "cp", .type = T::integer, .group = "parallel", .doc = "Context-parallel degree (sequence split, ring attention).",
     .flag = "--cp", .flag_arg = "N", .int_min = 1, .int_max = 4096, .default_json = "1", .store = put_int<&Options::cp>},
    {.name = "ep", .type = T::integer, .group = "parallel", .doc = "Expert-parallel degree (MoE experts split, all-to-all).",
     .flag = "--ep", .flag_arg = "N", .int_min = 1, .int_max = 4096, .default_json = "1", .store = put_int<&Options::ep>},
    {.name = "samples", .type = T::integer, .group = "cost", .doc = "Dataset size of the priced run, in samples.",
     .flag = "--samples", .flag_arg = "N", .int_min = 1, .int_max = int64_t(1) << 40, .default_json = "50000",
     .store = put_int<&Options::samples>},
    {.name = "epochs", .type = T::integer, .group = "cost", .doc = "Epochs of the priced run.", .flag = "--epochs",
     .flag_arg = "N", .int_min = 1, .int_max = 100000, .default_json = "10", .store = put_int<&Options::epochs>},
    {.name = "cost_batch", .type = T::integer, .group = "cost", .doc = "Batch of the priced run.", .flag = "--cost-batch",
     .flag_arg = "N", .int_min = 1, .int_max = kMaxCount, .default_json = "32", .store = put_int<&Options::cost_batch>},
    {.name = "mfu", .type = T::number, .group = "cost", .doc = "Model FLOPs utilisation of the priced run.", .flag = "--mfu",
     .flag_arg = "X", .num_min = 0, .num_max = 1, .num_min_open = true, .default_note = "the catalog default (0.40)",
     .store = put_number<&Options::mfu>},
    {.name = "prices", .type = T::map, .group = "cost", .doc = "USD per GPU-hour by card id, overriding the catalog.",
     .flag = "--prices", .flag_arg = "CARD=USD,...", .num_min = 0, .default_note = "the catalog's prices",
     .expect = "map card ids to USD per GPU-hour", .item_expect = "be a non-negative number (USD per GPU-hour)",
     .store = put_prices<&Options::prices>},
    {.name = "cards", .type = T::names, .group = "cost",
     .doc = "Only the cards I have: the card ids the card table keeps (\"custom\" for the custom card).",
     .flag = "--cards", .flag_arg = "ID,ID,...", .non_empty = true, .default_note = "every card of data/cards.json",
     .expect = R"(be a list of card ids such as ["t4", "rtx4090"])", .store = put_names<&Options::cards>},
    {.name = "custom_memory_bytes", .type = T::integer, .group = "cost",
     .doc = "A custom card (id \"custom\") of this many bytes a process can allocate (torch total_memory); it joins every table.",
     .flag = "--custom-memory-bytes", .flag_arg = "N", .int_min = int64_t(1) << 20, .int_max = int64_t(1) << 50,
     .default_note = "no custom card", .store = put_int<&Options::custom_memory_bytes>},
    {.name = "custom_name", .type = T::text, .group = "cost", .doc = "The custom card's name.", .flag = "--custom-name",
     .flag_arg = "NAME", .max_length = 60, .non_empty = true, .default_note = "\"Custom card\"",
     .expect = "be a short name", .store = put_text<&Options::custom_name>},
    {.name = "custom_bf16", .type = T::boolean, .group = "cost",
     .doc = "The custom card runs bf16 tensor math (false: fp16 only, like T4 and V100).", .flag = "--custom-bf16",
     .flag_arg = "true|false", .default_json = "true", .store = put_bool<&Options::custom_bf16>},
    {.name = "custom_tflops", .type = T::number, .group = "cost",
     .doc = "The custom card's dense 16-bit tensor peak in TFLOP/s (FP32 accumulate).", .flag = "--custom-tflops",
     .flag_arg = "X", .num_min = 0, .num_max = 1e6, .num_min_open = true, .default_note = "none: no time or cost",
     .store = put_number<&Options::custom_tflops>},
    {.name = "custom_bw_gbps", .type = T::number, .group = "cost", .doc = "The custom card's memory bandwidth in GB/s.",
     .flag = "--custom-bw-gbps", .flag_arg = "X", .num_min = 0, .num_max = 1e6, .num_min_open = true,
     .default_note = "none", .store = put_number<&Options::custom_bw_gbps>},
    {.name = "custom_usd_per_hr", .type = T::number, .group = "cost", .doc = "The custom card's price in USD per GPU-hour.",
     .flag = "--custom-usd-per-hr", .flag_arg = "USD", .num_min = 0, .num_max = 1e4, .default_note = "none: not priced",
     .store = put_number<&Options::custom_usd_per_hr>},
    {.name = "fit_card", .type = T::text, .group = "cost",
     .doc = "Make it fit: the card (id) to fit the plan on; the report gains a fit section of changes, each re-planned.",
     .flag = "--fit", .flag_arg = "CARD", .max_length = 200, .non_empty = true, .default_note = "none: no fit section",
     .expect = R"(be a card id such as "a10g")", .store = put_text<&Options::fit_card>},
    {.name = "fit_cards", .type = T::integer, .group = "cost", .doc = "How many of fit_card you have.", .flag = "--fit-cards",
     .flag_arg = "N", .int_min = 1, .int_max = 4096, .default_json = "1", .store = put_int<&Options::fit_cards>},
    // checkpoint
    {.name = "checkpoint_total", .type = T::integer, .group = "checkpoint",
     .doc = "Scalars in the published weights, reconciled with the traced parameters.", .flag = "--checkpoint-total",
     .flag_arg = "N", .int_min = 1, .int_max = INT64_MAX, .default_note = "none", .store = put_int<&Options::checkpoint_total>},
    {.name = "safetensors_header", .type = T::text, .group = "checkpoint",
     .doc = "The JSON header text of a model.safetensors (the CLI reads it from the file).", .flag = "--safetensors",
     .flag_arg = "FILE", .flag_reads = "safetensors_header", .default_note = "none", .expect = "be the file's JSON text",
     .store = put_text<&Options::safetensors_header>},
    {.name = "safetensors_index", .type = T::text, .group = "checkpoint", .doc = "The text of a model.safetensors.index.json.",
     .flag = "--safetensors-index", .flag_arg = "FILE", .flag_reads = "file", .default_note = "none",
     .expect = "be the file's JSON text", .store = put_text<&Options::safetensors_index>},
    // details
    {.name = "optimizer_impl", .type = T::enumeration, .group = "details",
     .doc = "torch.optim's implementation: foreach (a state-sized temporary), fused (none) or the for-loop.",
     .flag = "--optimizer-impl", .values = optimizer_impl_values, .default_json = R"("foreach")",
     .store = put_enum<&Options::optimizer_impl, optimizer_impl_names>},
    {.name = "lora_dropout", .type = T::number, .group = "details", .doc = "PEFT lora_dropout.", .flag = "--lora-dropout",
     .flag_arg = "P", .num_min = 0, .num_max = 0.99, .default_json = "0.05", .store = put_number<&Options::lora_dropout>},
    {.name = "dropout", .type = T::number, .group = "details", .doc = "The model's hidden and attention dropout.",
     .flag = "--dropout", .flag_arg = "P", .num_min = 0, .num_max = 0.99, .default_note = "the model type's",
     .store = put_number<&Options::dropout>},
    {.name = "decoder_seq", .type = T::integer, .group = "details", .doc = "Encoder-decoder: target tokens per sample.",
     .flag = "--decoder-seq", .flag_arg = "N", .int_min = 1, .int_max = kMaxTokens, .default_note = "`seq`",
     .store = put_int<&Options::decoder_seq>},
    {.name = "double_quant", .type = T::boolean, .group = "details",
     .doc = "bitsandbytes double quantization of the 4-bit constants (bnb_4bit_use_double_quant).", .flag = "--double-quant",
     .flag_arg = "true|false",
     .default_note = "the checkpoint's bnb_4bit_use_double_quant where its config has a bitsandbytes quantization_config, else true",
     .store = put_double_quant},
    {.name = "bnb_version", .type = T::enumeration, .group = "details",
     .doc = "bitsandbytes release: 0.39-0.43.1 keep each 4-bit linear's input for backward, 0.43.2+ do not.",
     .flag = "--bnb-version", .values = bnb_version_values, .default_json = R"("0.43.2+")",
     .store = put_enum<&Options::bnb_version, bnb_version_names>},
    {.name = "kbit_upcast", .type = T::boolean, .group = "details",
     .doc = "PEFT prepare_model_for_kbit_training: non-quantized weights to fp32.", .flag = "--kbit-upcast",
     .flag_arg = "true|false",
     .default_note = "the stack's (hf, unsloth, llamafactory: true; axolotl, torchtune: false)",
     .store = [](Options& o, const json& v) { o.kbit_upcast = v.get<bool>(); }},
    {.name = "autocast", .type = T::boolean, .group = "details",
     .doc = "torch.autocast wraps the forward; false: the model itself is cast (DeepSpeed fp16/bf16 engines).",
     .flag = "--autocast", .flag_arg = "true|false", .default_json = "true", .store = put_bool<&Options::autocast>},
    {.name = "deepspeed_bucket", .type = T::integer, .group = "details",
     .doc = "DeepSpeed ZeRO-1/2 reduce_bucket_size in elements.", .flag = "--deepspeed-bucket", .flag_arg = "N",
     .int_min = 1, .int_max = int64_t(1) << 36, .default_note = "not DeepSpeed", .store = put_int<&Options::deepspeed_bucket>},
    {.name = "cuda_context_bytes", .type = T::integer, .group = "details",
     .doc = "The CUDA context's bytes on each card, overriding the catalog.", .flag = "--cuda-context-bytes",
     .flag_arg = "N", .int_min = 0, .int_max = int64_t(1) << 40, .default_note = "data/cards.json",
     .store = put_int<&Options::cuda_context_bytes>},
    {.name = "allocator_reserve", .type = T::number, .group = "details",
     .doc = "The caching allocator's reserve as a fraction of the peak, overriding the catalog.",
     .flag = "--allocator-reserve", .flag_arg = "F", .num_min = 0, .num_max = 0.5, .default_note = "data/cards.json",
     .store = put_number<&Options::allocator_reserve>},
    {.name = "borderline_factor", .type = T::number, .group = "details",
     .doc = "The factor within which a fit is called borderline, overriding the measured one.",
     .flag = "--borderline-factor", .flag_arg = "F", .num_min = 1, .num_max = 4, .default_note = "docs/accuracy.md",
     .store = put_number<&Options::borderline_factor>},
};

constexpr OptionGroup groups[] = {
    {"mode", "Mode"},       {"workload", "Workload"},     {"training", "Training"},     {"lora", "LoRA and QLoRA"},
    {"stack", "Training stack"}, {"serving", "Serving"}, {"engines", "Serving engines"}, {"cost", "Cards and cost"}, {"parallel", "Multi-GPU"}, {"checkpoint", "Checkpoint"}, {"details", "Details"},
};

constexpr bool table_is_sound() {
  for (const auto& s : specs) {
    if (s.name.empty() || s.doc.empty() || s.flag.substr(0, 2) != "--" || s.store == nullptr) return false;
    if ((s.type == T::enumeration) != !s.values.empty()) return false;
    if (s.type == T::integer && s.int_min > s.int_max) return false;
    if (s.type == T::number && !(s.num_min < s.num_max)) return false;
    if (s.default_json.empty() && s.default_note.empty()) return false;  // every default is stated
    if ((s.type == T::names || s.type == T::text || s.type == T::map) && s.expect.empty()) return false;
    bool grouped = false;
    for (const auto& g : groups) grouped = grouped || g.id == s.group;
    if (!grouped) return false;
    for (const auto& t : specs)
      if (&t != &s && (t.name == s.name || t.flag == s.flag)) return false;
  }
  return true;
}
static_assert(table_is_sound(), "each option: unique name and flag, a doc, a group, a stated default");

std::string number_text(double x) {
  if (x == static_cast<double>(static_cast<int64_t>(x))) return std::to_string(static_cast<int64_t>(x));
  return json(x).dump();
}

const char* type_name(OptionType t) {
  switch (t) {
    case T::enumeration: return "enum";
    case T::integer: return "integer";
    case T::number: return "number";
    case T::boolean: return "boolean";
    case T::names: return "names";
    case T::map: return "map";
    case T::text: return "text";
  }
  return "text";
}

bool integer_in(const json& v, int64_t lo, int64_t hi) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    return u <= static_cast<uint64_t>(hi) && static_cast<int64_t>(u) >= lo;
  }
  return v.is_number_integer() && v.get<int64_t>() >= lo && v.get<int64_t>() <= hi;
}
}  // namespace

std::span<const OptionSpec> option_specs() { return specs; }
std::span<const OptionGroup> option_groups() { return groups; }

const OptionSpec* find_option(std::string_view name) {
  for (const auto& s : specs)
    if (s.name == name) return &s;
  return nullptr;
}

std::string bounded_text(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
  return std::string(text.substr(0, cut)) + "…";
}

std::string describe_value(const json& v) {
  switch (v.type()) {
    case json::value_t::string: return json(bounded_text(v.get_ref<const std::string&>(), 40)).dump();
    case json::value_t::array: return v.empty() ? "an empty array" : "an array";
    case json::value_t::object: return v.empty() ? "an empty object" : "an object";
    case json::value_t::boolean:
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
    case json::value_t::null: return v.dump();  // short by nature
    default: return "a value";
  }
}

void apply_option(const OptionSpec& s, const json& v, Options& out) {
  const std::string name(s.name);
  const auto fail = [&](const std::string& message) { throw Error(ErrorCode::option_value, message, name); };
  const auto must = [&](std::string_view what) { fail("Option " + name + " must " + std::string(what) + "."); };
  bool ok = false;
  switch (s.type) {
    case T::enumeration: {
      std::string allowed;
      for (auto value : s.values) {
        ok = ok || (v.is_string() && v.get_ref<const std::string&>() == value);
        allowed += (allowed.empty() ? "" : ", ") + std::string(value);
      }
      if (!ok) fail("Option " + name + " must be one of " + allowed + ", got " + describe_value(v) + ".");
      break;
    }
    case T::integer:
      if (!integer_in(v, s.int_min, s.int_max))
        fail("Option " + name + " must be an integer from " + std::to_string(s.int_min) + " to " +
             std::to_string(s.int_max) + ", got " + describe_value(v) + ".");
      break;
    case T::number: {
      const double x = v.is_number() ? v.get<double>() : 0;
      if (!v.is_number() || (s.num_min_open ? x <= s.num_min : x < s.num_min) || x > s.num_max)
        fail("Option " + name + " must be a number in " + (s.num_min_open ? "(" : "[") + number_text(s.num_min) + ", " +
             number_text(s.num_max) + "], got " + describe_value(v) + ".");
      break;
    }
    case T::boolean:
      if (!v.is_boolean()) must("be true or false");
      break;
    case T::names:
      if (!v.is_array()) must(s.expect);
      if (s.non_empty && v.empty())
        must(s.name == "cards" ? "name at least one card (omit it for every card)"
                               : "name at least one module (omit it for the default)");
      for (const auto& item : v)
        if (!item.is_string() || item.get_ref<const std::string&>().empty()) must(s.expect);
      break;
    case T::map:
      if (!v.is_object()) must(s.expect);
      for (const auto& [key, item] : v.items())
        if (!item.is_number() || item.get<double>() < s.num_min) {
          const std::string at = name + "." + bounded_text(key);
          throw Error(ErrorCode::option_value, "Option " + at + " must " + std::string(s.item_expect) + ".", at);
        }
      break;
    case T::text:
      if (!v.is_string() || (s.max_length > 0 && v.get_ref<const std::string&>().size() > size_t(s.max_length)) ||
          (s.non_empty && v.get_ref<const std::string&>().empty()))
        must(s.expect);
      break;
  }
  s.store(out, v);
}

json option_schema_json() {
  json options = json::array();
  for (const auto& s : specs) {
    json o = {{"name", s.name}, {"type", type_name(s.type)}, {"group", s.group}, {"doc", s.doc}, {"flag", s.flag}};
    if (!s.flag_arg.empty()) o["flag_arg"] = s.flag_arg;
    if (!s.flag_reads.empty()) o["flag_reads"] = s.flag_reads;
    if (s.type == T::enumeration) {
      o["values"] = json::array();
      for (auto v : s.values) o["values"].push_back(v);
    }
    if (s.type == T::integer) {
      o["min"] = s.int_min;
      o["max"] = s.int_max;
    }
    if (s.type == T::number) {
      o["min"] = s.num_min;
      o["max"] = s.num_max;
      o["min_exclusive"] = s.num_min_open;
    }
    if (s.type == T::map) o["item"] = {{"type", "number"}, {"min", s.num_min}};
    if (s.type == T::text && s.max_length > 0) o["max_length"] = s.max_length;
    o["default"] = s.default_json.empty() ? json(nullptr) : json::parse(s.default_json);
    if (!s.default_note.empty()) o["default_note"] = s.default_note;
    options.push_back(std::move(o));
  }
  json group_list = json::array();
  for (const auto& g : groups) group_list.push_back({{"id", g.id}, {"title", g.title}});
  return {{"options", std::move(options)}, {"groups", std::move(group_list)}};
}

}  // namespace cardfit

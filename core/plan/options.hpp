// Planning options: every assumption the planner makes is one of these, with a default.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cardfit {

enum class Mode { full, lora, qlora, serve };
enum class Precision { bf16_mixed, fp16_mixed, bf16, fp32 };
// muon: torch.optim.Muon on hidden 2-D weights, AdamW on the rest. none: forward + backward only.
enum class Optimizer { adamw, adamw8bit, adafactor, sgd, muon, none };
enum class Attention { sdpa, eager, flash };
enum class WeightDtype { bf16, fp8, int8, int4, fp16, fp32, nf4 };
/// How QLoRA stores the frozen base: bitsandbytes NF4 / FP4 (blockwise 64, optional double
/// quantization), bitsandbytes LLM.int8 (8-bit base, "LoRA int8"), or GPTQ int4 (group 128).
enum class QuantKind { nf4, fp4, int8, gptq };
/// torch.optim's implementation: foreach (the default on CUDA: one state-sized temporary at the
/// step), fused (no temporary), or the per-parameter for-loop (a temporary of the largest tensor).
enum class OptimizerImpl { foreach, fused, forloop };
/// Multi-GPU training per rank (core/plan/parallel.hpp): none (one card, or DDP when gpus > 1 as
/// before), DDP, FSDP1 (FULL_SHARD; reshard_after_forward 0: SHARD_GRAD_OP), FSDP2 fully_shard,
/// HSDP (FSDP1 HYBRID_SHARD over shard_group), DeepSpeed ZeRO-1/2/3.
enum class Parallel { none, ddp, fsdp, fsdp2, hsdp, zero1, zero2, zero3 };
/// A training stack: a named, versioned preset of the policies below (stacks.cpp holds the table).
enum class Stack { hf, torchtune, litgpt, unsloth, axolotl, llamafactory };
/// How the loss meets the logits: the whole tensor upcast to fp32 (transformers), in chunks of
/// tokens (torchtune, LitGPT), or fused with the head so the logits never exist whole (Liger).
enum class LossKind { full, chunked, fused };
/// Whether a 16-bit model without autocast keeps fp32 master weights (DeepSpeed's engines) or
/// trains purely in 16 bit (torchtune dtype=bf16, LitGPT bf16-true).
enum class MasterWeights { fp32, none };
/// What a checkpointed layer keeps for backward: its input only (layer), or also the outputs of the
/// ops torchtitan's per-op selective AC saves (selective_op: core/plan/selective_ac.hpp).
enum class CkptPolicy { layer, selective_op };
/// Which linears QLoRA quantizes: every nn.Linear but the head (bitsandbytes' replace_with_bnb_linear
/// with its default skip list), or only those LoRA adapts (the others load 16-bit, as
/// llm_int8_skip_modules does for the modules it names).
enum class QuantScope { all, adapted };
/// bitsandbytes releases by what MatMul4Bit keeps for backward: 0.39.0-0.43.1 keep the 4-bit
/// linear's input (ctx.tensors = (A, B)); 0.43.2 on keep only the quantized weight ((None, B),
/// commit 9e753741, 2024-07-16, PR #1270).
enum class BnbVersion { v0_43_2, v0_39 };
/// The serving engine whose memory budget and scheduler the serving section models (engines.hpp):
/// Hugging Face generate (the serve mode's own numbers), vLLM, SGLang, TGI, llama.cpp.
enum class Engine { hf, vllm, sglang, tgi, llamacpp };
/// Generation over several devices (serve mode, hf engine; serve_parallel.hpp): the blocks split
/// in equal shares (LitGPT generate/sequentially.py) or each linear sharded (generate/tp.py).
enum class ServeParallel { none, layer_split, tp };
/// GGUF storage types: a llama.cpp file type (weights; the _M/_S mixes of llama_model_quantize)
/// or a tensor type (llama.cpp's KV cache, -ctk / -ctv). engines.cpp holds their block sizes.
enum class GgufType { f32, f16, bf16, q8_0, q6_k, q5_k_m, q5_k_s, q5_1, q5_0, q4_k_m, q4_k_s, q4_1, q4_0, iq3_m, iq3_s };

/// Each enum's one spelling table: *_name() reads it and the option schema (option_schema.cpp)
/// offers exactly its names, in this order (the order error messages list them).
template <typename E>
struct EnumName {
  E value;
  std::string_view name;
};
inline constexpr EnumName<Mode> mode_names[] = {
    {Mode::full, "full"}, {Mode::lora, "lora"}, {Mode::qlora, "qlora"}, {Mode::serve, "serve"}};
inline constexpr EnumName<Precision> precision_names[] = {{Precision::bf16_mixed, "bf16-mixed"},
                                                          {Precision::fp16_mixed, "fp16-mixed"},
                                                          {Precision::bf16, "bf16"},
                                                          {Precision::fp32, "fp32"}};
inline constexpr EnumName<Optimizer> optimizer_names[] = {{Optimizer::adamw, "adamw"},
                                                          {Optimizer::adamw8bit, "adamw8bit"},
                                                          {Optimizer::adafactor, "adafactor"},
                                                          {Optimizer::sgd, "sgd"},
                                                          {Optimizer::muon, "muon"},
                                                          {Optimizer::none, "none"}};
inline constexpr EnumName<Attention> attention_names[] = {
    {Attention::sdpa, "sdpa"}, {Attention::eager, "eager"}, {Attention::flash, "flash"}};
inline constexpr EnumName<WeightDtype> weight_dtype_names[] = {
    {WeightDtype::bf16, "bf16"}, {WeightDtype::fp16, "fp16"}, {WeightDtype::fp32, "fp32"},
    {WeightDtype::fp8, "fp8"},   {WeightDtype::int8, "int8"}, {WeightDtype::int4, "int4"},
    {WeightDtype::nf4, "nf4"}};
/// The KV cache dtypes the planner models (a subset of weight_dtype_names, spelled by it).
inline constexpr WeightDtype kv_dtypes[] = {WeightDtype::bf16, WeightDtype::fp16, WeightDtype::fp32, WeightDtype::fp8};
inline constexpr EnumName<QuantKind> quant_names[] = {
    {QuantKind::nf4, "nf4"}, {QuantKind::fp4, "fp4"}, {QuantKind::int8, "int8"}, {QuantKind::gptq, "gptq"}};
inline constexpr EnumName<QuantScope> quant_scope_names[] = {{QuantScope::all, "all"}, {QuantScope::adapted, "adapted"}};
inline constexpr EnumName<BnbVersion> bnb_version_names[] = {{BnbVersion::v0_43_2, "0.43.2+"},
                                                            {BnbVersion::v0_39, "0.39-0.43.1"}};
inline constexpr EnumName<Parallel> parallel_names[] = {
    {Parallel::none, "none"},   {Parallel::ddp, "ddp"},     {Parallel::fsdp, "fsdp"},   {Parallel::fsdp2, "fsdp2"},
    {Parallel::hsdp, "hsdp"},   {Parallel::zero1, "zero1"}, {Parallel::zero2, "zero2"}, {Parallel::zero3, "zero3"}};
inline constexpr EnumName<OptimizerImpl> optimizer_impl_names[] = {
    {OptimizerImpl::foreach, "foreach"}, {OptimizerImpl::fused, "fused"}, {OptimizerImpl::forloop, "forloop"}};
inline constexpr EnumName<Stack> stack_names[] = {{Stack::hf, "hf"},         {Stack::torchtune, "torchtune"},
                                                  {Stack::litgpt, "litgpt"}, {Stack::unsloth, "unsloth"},
                                                  {Stack::axolotl, "axolotl"}, {Stack::llamafactory, "llamafactory"}};
inline constexpr EnumName<LossKind> loss_names[] = {
    {LossKind::full, "full"}, {LossKind::chunked, "chunked"}, {LossKind::fused, "fused"}};
inline constexpr EnumName<MasterWeights> master_weights_names[] = {{MasterWeights::fp32, "fp32"},
                                                                   {MasterWeights::none, "none"}};
inline constexpr EnumName<CkptPolicy> ckpt_policy_names[] = {{CkptPolicy::layer, "layer"},
                                                             {CkptPolicy::selective_op, "selective_op"}};
/// The checkpoint dtypes a load phase reads (spelled by weight_dtype_names).
inline constexpr WeightDtype checkpoint_dtypes[] = {WeightDtype::bf16, WeightDtype::fp16, WeightDtype::fp32};
inline constexpr EnumName<Engine> engine_names[] = {{Engine::hf, "hf"},
                                                    {Engine::vllm, "vllm"},
                                                    {Engine::sglang, "sglang"},
                                                    {Engine::tgi, "tgi"},
                                                    {Engine::llamacpp, "llamacpp"}};
inline constexpr EnumName<ServeParallel> serve_parallel_names[] = {
    {ServeParallel::none, "none"}, {ServeParallel::layer_split, "layer_split"}, {ServeParallel::tp, "tp"}};
inline constexpr EnumName<GgufType> gguf_type_names[] = {
    {GgufType::f32, "f32"},       {GgufType::f16, "f16"},       {GgufType::bf16, "bf16"},
    {GgufType::q8_0, "q8_0"},     {GgufType::q6_k, "q6_k"},     {GgufType::q5_k_m, "q5_k_m"},
    {GgufType::q5_k_s, "q5_k_s"}, {GgufType::q5_1, "q5_1"},     {GgufType::q5_0, "q5_0"},
    {GgufType::q4_k_m, "q4_k_m"}, {GgufType::q4_k_s, "q4_k_s"}, {GgufType::q4_1, "q4_1"},
    {GgufType::q4_0, "q4_0"},     {GgufType::iq3_m, "iq3_m"},   {GgufType::iq3_s, "iq3_s"}};
/// The KV cache types llama.cpp offers for -ctk / -ctv (a subset of gguf_type_names).
inline constexpr GgufType gguf_cache_types[] = {GgufType::f16,  GgufType::bf16, GgufType::f32, GgufType::q8_0,
                                                GgufType::q5_1, GgufType::q5_0, GgufType::q4_1, GgufType::q4_0};

/// The name of a value in its table (tables are complete, so a miss is impossible).
template <typename E, size_t N>
constexpr std::string_view enum_name(const EnumName<E> (&table)[N], E value) {
  for (const auto& entry : table)
    if (entry.value == value) return entry.name;
  return table[0].name;
}

const char* mode_name(Mode m);
const char* precision_name(Precision p);
const char* optimizer_name(Optimizer o);
const char* attention_name(Attention a);
const char* weight_dtype_name(WeightDtype w);
const char* quant_name(QuantKind q);
const char* optimizer_impl_name(OptimizerImpl i);
const char* quant_scope_name(QuantScope q);
const char* bnb_version_name(BnbVersion v);
const char* engine_name(Engine e);
const char* gguf_type_name(GgufType g);
const char* parallel_name(Parallel p);
inline constexpr Mode all_modes[] = {Mode::full, Mode::lora, Mode::qlora, Mode::serve};

struct Options {
  Mode mode = Mode::full;
  int64_t batch = 1;
  int64_t seq = 0;              // 0: default (512, or 2048 for models of 1B+ parameters, capped at the context)
  int64_t serve_seq = 0;        // 0: default (the training length, or 4096 for models of 1B+)
  int64_t lora_rank = 16;
  std::vector<std::string> lora_targets;  // empty: every linear but the head
  Optimizer optimizer = Optimizer::adamw;
  Precision precision = Precision::bf16_mixed;
  // Unset: the default of what runs (graph_costs.hpp grad_ckpt_of / attention_of): checkpointing on
  // for QLoRA (PEFT prepare_model_for_kbit_training), eager attention for a model that caps
  // attention logits (Gemma 2), sdpa otherwise. A value given always wins.
  std::optional<bool> grad_ckpt;
  std::optional<Attention> attention;
  WeightDtype serve_dtype = WeightDtype::bf16;
  bool serve_dtype_set = false;  // false: a quantized checkpoint serves at its stored format (arch/stored_format.hpp)
  WeightDtype kv_dtype = WeightDtype::bf16;  // bf16, fp16, fp32 or fp8 (see kv_dtype_set)
  bool kv_dtype_set = false;    // false: the KV cache takes the activation dtype (fp32 serving: fp32)
  int64_t gpus = 1;
  // Multi-GPU training (core/plan/parallel.hpp); gpus is the total rank count N.
  Parallel parallel = Parallel::none;
  int64_t shard_group = 0;            // hsdp: ranks per shard group (0: 8, one node, capped at gpus)
  int64_t reshard_after_forward = 1;  // FSDP: 1 True, 0 False (SHARD_GRAD_OP), k > 1 FSDP2's int
  bool offload_optimizer = false;     // DeepSpeed offload_optimizer device cpu
  bool offload_params = false;        // DeepSpeed ZeRO-3 offload_param cpu; FSDP CPUOffload(offload_params)
  int64_t tp = 1, cp = 1, ep = 1;     // tensor, context and expert parallel degrees
  std::string card;             // empty: defaults.priced_card of the catalog
  // Training details (docs/memory-model.md)
  double lora_dropout = 0.05;   // PEFT LoraConfig.lora_dropout (QLoRA paper and most recipes: 0.05)
  std::vector<std::string> modules_to_save;  // PEFT modules_to_save: full trainable copies ("lm_head")
  QuantKind qlora_quant = QuantKind::nf4;
  bool double_quant = true;     // bnb_4bit_use_double_quant (QLoRA recipe)
  bool qlora_quant_set = false;   // false: a bitsandbytes checkpoint's own quantization (plan/checkpoint_quant.hpp)
  bool double_quant_set = false;  // false: likewise its bnb_4bit_use_double_quant
  std::optional<bool> kbit_upcast;  // PEFT prepare_model_for_kbit_training: non-quantized params to fp32 (empty: the stack's)
  QuantScope quantize = QuantScope::all;   // QLoRA: quantize every linear but the head, or the adapted ones
  BnbVersion bnb_version = BnbVersion::v0_43_2;  // what bitsandbytes' MatMul4Bit keeps for backward
  bool float8 = false;          // torchao convert_to_float8_training: nn.Linear layers (not the head) in fp8
  int64_t grad_accum = 1;       // micro-batches per optimizer step (> 1: gradients live through forward)
  int64_t deepspeed_bucket = 0;  // DeepSpeed ZeRO-1/2 reduce_bucket_size (elements); 0: not DeepSpeed
  bool autocast = true;         // torch.autocast wraps the forward (Trainer --bf16/--fp16); false: the
                                // model itself is cast (DeepSpeed fp16/bf16 engines, model.half())
  OptimizerImpl optimizer_impl = OptimizerImpl::foreach;
  int64_t decoder_seq = 0;      // encoder-decoder: target tokens per sample (0: seq)
  std::optional<int64_t> images;  // images per sample through a vision tower (training and serving);
                                  // empty: 1 for a model with a vision tower; 0: a text-only plan
  std::optional<int64_t> audio_seconds;  // seconds of audio per sample through an audio tower; unset:
                                         // the model's traced clip (Whisper's 30 s window, Qwen3-Omni 30 s)
  std::optional<double> dropout;           // hidden and attention dropout (default: the model type's)
  std::optional<int64_t> cuda_context_bytes;   // override of the catalog default
  std::optional<double> allocator_reserve;     // override of the catalog default fraction
  std::optional<double> borderline_factor;     // override of the factor derived in docs/accuracy.md
  std::optional<int64_t> checkpoint_total;
  std::string safetensors_header;  // JSON header text of a model.safetensors
  std::string safetensors_index;   // text of model.safetensors.index.json
  // Cost
  int64_t epochs = 10, samples = 50000, cost_batch = 32;
  std::optional<double> mfu;       // empty: catalog default
  std::map<std::string, double> prices;  // card id → USD per GPU-hour, overriding the catalog
  // Training stack and its policies (stacks.hpp): each unset policy takes the stack's preset; a
  // set one wins over it. hf with nothing set is the model above, unchanged.
  Stack stack = Stack::hf;
  std::optional<LossKind> loss;
  std::optional<int64_t> loss_chunks;        // chunked loss: chunks per sample (torchtune num_output_chunks)
  std::optional<int64_t> loss_chunk_tokens;  // chunked loss: tokens per sequence per chunk (LitGPT)
  std::optional<MasterWeights> master_weights;
  std::optional<bool> optimizer_in_bwd, paged_optimizer, optimizer_offload, activation_offload;
  std::optional<int64_t> ckpt_every;         // gradient checkpointing of every k-th layer
  std::optional<CkptPolicy> ckpt_policy;     // what a checkpointed layer keeps (selective_ac.hpp)
  std::optional<bool> compile, packing, load_phase;
  std::optional<WeightDtype> checkpoint_dtype;  // the stored weights' dtype (load phase)
  // Serving engines (engines.hpp; docs/memory-model.md, "Serving engines"). Empty optionals take the
  // engine's own default, which may depend on the card (vLLM's and SGLang's do).
  Engine engine = Engine::hf;
  ServeParallel serve_parallel = ServeParallel::none;  // hf engine: generation over serve_devices
  int64_t serve_devices = 1;
  double gpu_memory_utilization = 0.9;             // vLLM
  std::optional<int64_t> max_num_seqs;             // vLLM
  std::optional<int64_t> max_num_batched_tokens;   // vLLM
  int64_t block_size = 16;                         // vLLM KV block, tokens
  int64_t cuda_graph_bytes = 0;                    // vLLM: CUDA-graph memory taken from the KV budget
  std::optional<double> mem_fraction_static;       // SGLang
  std::optional<double> cuda_memory_fraction;      // TGI (empty: 1.0)
  int64_t max_batch_prefill_tokens = 4096;         // TGI
  GgufType gguf = GgufType::q4_k_m;                // llama.cpp weights
  GgufType cache_type_k = GgufType::f16, cache_type_v = GgufType::f16;  // llama.cpp -ctk / -ctv
  std::optional<int64_t> n_gpu_layers;             // llama.cpp -ngl (empty: every layer and the output)
  int64_t prompt_tokens = 1024, output_tokens = 128;  // serving workload per request
  double bandwidth_efficiency = 0.8;               // share of peak memory bandwidth a decode step reads at
  // Cards (data/cards.json, docs/cards.md)
  std::vector<std::string> cards;  // "only the cards I have": card ids the card table keeps (empty: all)
  std::optional<int64_t> custom_memory_bytes;  // a custom card ("custom"): set = it joins every table
  std::string custom_name;         // its name (empty: "Custom card")
  bool custom_bf16 = true;         // it runs bf16 tensor math
  std::optional<double> custom_tflops;    // its dense 16-bit peak (TFLOP/s); empty: no throughput
  std::optional<double> custom_bw_gbps;   // its memory bandwidth (GB/s)
  std::optional<double> custom_usd_per_hr;  // its price (USD per GPU-hour); empty: not priced
  // "Make it fit" (plan/fit_advisor.hpp)
  std::string fit_card;            // empty: no fit section
  int64_t fit_cards = 1;           // how many of fit_card the user has

  bool operator==(const Options&) const = default;  // for tests: a schema default parses to Options{}
};

/// Parses the options JSON object (empty text = all defaults) by the option schema
/// (option_schema.hpp). Unknown names and bad values are Error(option_unknown / option_value) with
/// the option's name as path; a message never quotes more than a bounded excerpt of a value.
Options parse_options(std::string_view json_text);

}  // namespace cardfit

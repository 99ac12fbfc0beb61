// The stack preset table and the resolution of policies (preset, then the options set over it).
// Each row was read from the framework's source at the commit named in `version` (snapshots of
// 2026-04..08); the files and functions are in `source`. Only policies this planner models are
// listed; a framework's other defaults (its optimizer, gradient checkpointing) stay the options'.
#include "stacks.hpp"

#include <sstream>

#include "for_size.hpp"
#include "serve_parallel.hpp"

namespace cardfit {

namespace {
Policies row(LossKind loss, int64_t chunks, int64_t chunk_tokens, MasterWeights master, bool in_bwd, bool paged,
             bool act_offload, bool compile, bool load) {
  Policies p;
  p.loss = loss;
  p.loss_chunks = chunks;
  p.loss_chunk_tokens = chunk_tokens;
  p.master_weights = master;
  p.optimizer_in_bwd = in_bwd;
  p.paged_optimizer = paged;
  p.activation_offload = act_offload;
  p.compile = compile;
  p.load_phase = load;
  return p;
}
using L = LossKind;
using MW = MasterWeights;
// k-bit training without PEFT's fp32 upcast of the non-quantized weights. Axolotl calls
// prepare_model_for_kbit_training and then, for any LoRA/QLoRA adapter (needs_fa2_dtype), casts the
// norms and embedding modules (embed_tokens, lm_head) back to torch_dtype
// (src/axolotl/loaders/model.py ModelLoader._convert_embedding_modules_dtype after "LlamaRMSNorm
// layers are in fp32 after kbit_training"; the same loop in utils/models.py load_model since 2023-08;
// read 2026-12-01). torchtune never calls it: its QLoRA is torchao NF4Tensor inside LoRALinear
// (torchtune/modules/peft/lora.py quantize_base), the other weights stay in the recipe's dtype.
std::vector<StackRow> without_kbit_upcast(std::vector<StackRow> rows) {
  for (auto& r : rows)
    if (r.stack == Stack::axolotl || r.stack == Stack::torchtune) r.policies.kbit_upcast = false;
  return rows;
}
}  // namespace

const std::vector<StackRow>& stack_rows() {
  // One declarative row per stack: loss, chunks, chunk tokens, master weights, optimizer in
  // backward, paged optimizer, activation offload, compile, load phase.
  static const std::vector<StackRow> rows = without_kbit_upcast({
      {Stack::hf, row(L::full, 8, 0, MW::fp32, false, false, false, false, false), "transformers 4.46+",
       "transformers loss/loss_utils.py ForCausalLMLoss (logits.float() of the whole tensor); Trainer "
       "mixed precision (fp32 weights under torch.autocast)"},
      {Stack::torchtune, row(L::chunked, 8, 0, MW::none, true, true, false, false, true),
       "pytorch/torchtune@bd2a0fc (2026-04-23)",
       "recipes/configs/llama3/8B_full_single_device.yaml (loss LinearCrossEntropyLoss, optimizer "
       "bitsandbytes.optim.PagedAdamW8bit, optimizer_in_bwd True, compile False, dtype bf16); "
       "torchtune/modules/loss/cross_entropy_loss.py LinearCrossEntropyLoss (num_output_chunks=8, "
       "logits.float() per chunk); recipes/full_finetune_single_device.py (dtype bf16: weights, gradients "
       "and optimizer states in bf16; optimizer_in_bwd frees each gradient after its step)"},
      {Stack::litgpt, row(L::chunked, 0, 128, MW::fp32, false, false, false, false, true),
       "Lightning-AI/litgpt@2685705 (2026-06-29)",
       "litgpt/utils.py chunked_cross_entropy (chunk_size=128, cross_entropy in the logits dtype) and "
       "get_default_supported_precision (training: bf16-mixed); litgpt/finetune/lora.py "
       "(model(input_ids, lm_head_chunk_size=128))"},
      {Stack::unsloth, row(L::fused, 8, 0, MW::fp32, false, false, true, true, true),
       "unslothai/unsloth@015bdef (2026-08-22)",
       "unsloth/models/llama.py CausalLM forward (unsloth_fused_ce_loss, torch_compile=True: logits never "
       "returned) and get_peft_model (use_gradient_checkpointing=\"unsloth\": checkpointed inputs offloaded "
       "to the host)"},
      {Stack::axolotl, row(L::full, 8, 0, MW::fp32, false, false, false, false, true),
       "axolotl-ai-cloud/axolotl@067b021 (2026-07-24)",
       "src/axolotl/utils/schemas/config.py (the Hugging Face Trainer's loss unless the cut_cross_entropy "
       "or liger plugins are enabled; activation_offloading and sample_packing off by default)"},
      {Stack::llamafactory, row(L::full, 8, 0, MW::fp32, false, false, false, false, true),
       "hiyouga/LLaMA-Factory@ff6d4d1 (2026-08-18)",
       "src/llamafactory/hparams/model_args.py (enable_liger_kernel False, use_unsloth_gc False) and "
       "data_args.py (packing off): the Hugging Face Trainer's loss and precision"},
  });
  return rows;
}

const StackRow& stack_row(Stack s) {
  for (const auto& r : stack_rows())
    if (r.stack == s) return r;
  return stack_rows().front();
}

Policies resolve_policies(const Options& o) {
  Policies p = stack_row(o.stack).policies;
  if (o.loss) p.loss = *o.loss;
  // A chunking set explicitly chooses its style: a chunk count (torchtune) or tokens per chunk (LitGPT).
  if (o.loss_chunk_tokens) {
    p.loss_chunk_tokens = *o.loss_chunk_tokens;
    if (!o.loss_chunks) p.loss_chunks = 0;
  }
  if (o.loss_chunks) {
    p.loss_chunks = *o.loss_chunks;
    if (!o.loss_chunk_tokens) p.loss_chunk_tokens = 0;
  }
  if (o.master_weights) p.master_weights = *o.master_weights;
  if (o.optimizer_in_bwd) p.optimizer_in_bwd = *o.optimizer_in_bwd;
  if (o.paged_optimizer) p.paged_optimizer = *o.paged_optimizer;
  if (o.optimizer_offload) p.optimizer_offload = *o.optimizer_offload;
  if (o.activation_offload) p.activation_offload = *o.activation_offload;
  if (o.ckpt_every) p.ckpt_every = *o.ckpt_every;
  if (o.ckpt_policy) p.ckpt_policy = *o.ckpt_policy;
  if (o.compile) p.compile = *o.compile;
  if (o.packing) p.packing = *o.packing;
  if (o.load_phase) p.load_phase = *o.load_phase;
  if (o.checkpoint_dtype) p.checkpoint_dtype = *o.checkpoint_dtype;
  if (sharded_qlora(o)) p.kbit_upcast = false;
  if (o.kbit_upcast) p.kbit_upcast = *o.kbit_upcast;
  // Gradients freed during backward cannot accumulate (torchtune refuses optimizer_in_bwd with
  // gradient_accumulation_steps > 1): the planner keeps the accumulating model then.
  if (o.grad_accum > 1) p.optimizer_in_bwd = false;
  return p;
}

bool sharded_qlora(const Options& o) {
  if (o.mode != Mode::qlora) return false;
  // DeepSpeed's 16-bit engine casts the module after prepare_model_for_kbit_training's upcast.
  if (o.parallel == Parallel::zero1 || o.parallel == Parallel::zero2) return o.precision != Precision::fp32;
  return o.parallel == Parallel::fsdp || o.parallel == Parallel::hsdp || o.parallel == Parallel::fsdp2 ||
         o.parallel == Parallel::zero3;
}

bool keeps_fp32_master(const Options& o, const Policies& p) {
  return !o.autocast && o.precision != Precision::fp32 && p.master_weights != MasterWeights::none;
}

bool uses_stack_policies(const Options& o) {
  return o.stack != Stack::hf || o.loss || o.loss_chunks || o.loss_chunk_tokens || o.master_weights ||
         o.optimizer_in_bwd || o.paged_optimizer || o.optimizer_offload || o.activation_offload || o.ckpt_every || o.ckpt_policy ||
         o.compile || o.packing || o.load_phase || o.checkpoint_dtype;
}

Options effective_options(const Options& o) {
  const Policies p = resolve_policies(o);
  Options e = o;
  // Empty means PEFT's upcast (value_or(true)); only a preset without it is written in.
  if (!o.kbit_upcast && !p.kbit_upcast) e.kbit_upcast = false;
  if (p.master_weights == MasterWeights::none && o.precision != Precision::fp32) {
    e.precision = Precision::bf16;
    e.autocast = false;
  }
  return e;
}

namespace {
// What a generation under LitGPT's scripts or serve_parallel assumes (serve_parallel.cpp holds the
// arithmetic and its sources).
CARDFIT_FOR_SIZE void generation_assumptions(const Options& o, std::vector<PolicyAssumption>& out) {
  if (o.mode != Mode::serve || !uses_generate_layout(o)) return;
  const std::string seq_src = "Lightning-AI/litgpt@51d5328 (2024-01-10) generate/sequentially.py, generate/tp.py; "
                              "lit-gpt@6ba8a51 (2023-07-25) generate/base.py";
  if (o.serve_parallel != ServeParallel::none)
    out.push_back({"serve_parallel",
                   o.serve_parallel == ServeParallel::layer_split
                       ? "Layer split: block i on device i / (layers / devices) (layer_to_device); the embedding, final "
                         "norm, head and the rope and mask caches on device 0, whose max_memory_allocated the script "
                         "prints and the plan reports; serving.devices lists every device."
                       : "Tensor parallel: each attention qkv and MLP linear split column- or row-wise over the devices "
                         "(tensor_parallel_linear), n_head and n_query_groups divided by them; embedding, norms and "
                         "head replicated; every device alike.",
                   "serve_parallel", std::string(enum_name(serve_parallel_names, o.serve_parallel)) + " over " +
                                         std::to_string(o.serve_devices) + " devices",
                   seq_src});
  if (o.stack != Stack::litgpt) return;
  out.push_back({"litgpt_kv_cache",
                 "LitGPT's KV cache: k and v of (1, heads, max_seq_length, head_size) per layer, heads = 1 when "
                 "n_query_groups is 1 and n_head otherwise (grouped keys are expanded before the cache); "
                 "max_seq_length = serve_seq, the prompt plus max_new_tokens; the layer split builds it in fp32 "
                 "(no dtype, outside the precision context) and casts it to the activations' dtype on the first "
                 "forward, so its fp32 size is held first.",
                 "serve_seq", std::to_string(o.serve_seq) + " tokens",
                 "litgpt@51d5328 lit_gpt/model.py CausalSelfAttention.build_kv_cache, KVCache.forward; "
                 "lit-gpt@6ba8a51 lit_gpt/model.py GPT.build_kv_caches"});
  if (o.serve_dtype == WeightDtype::nf4 || o.serve_dtype == WeightDtype::int8)
    out.push_back({"litgpt_bnb",
                   o.serve_dtype == WeightDtype::nf4
                       ? "bitsandbytes 4-bit, head included (every nn.Linear is swapped); a prompt of more than one "
                         "token dequantizes each weight to fp16 and casts it to bf16 (MatMul4Bit.forward): the widest "
                         "linear's 4 bytes per element at prefill. bf16 activations assumed (LitGPT's bf16-true)."
                       : "bitsandbytes LLM.int8 (InferenceLinear8bitLt), head included; loading re-quantizes each "
                         "weight from a CUDA fp16 copy into row- and column-major int8 while the old int8 weight is "
                         "held: the widest linear's 4 bytes per element at load.",
                   "serve_dtype", std::string(weight_dtype_name(o.serve_dtype)),
                   "bitsandbytes 0.40.0-0.42.0 nn/modules.py Params4bit.cuda, autograd/_functions.py MatMul4Bit; "
                   "lit-gpt@6ba8a51 lit_gpt/utils.py quantization, quantize/bnb.py; Lightning@6dfa5cc "
                   "fabric/plugins/precision/bitsandbytes.py _convert_layers, _Linear4bit.quantize"});
}
}  // namespace

// Text, once per plan: compiled for size (for_size.hpp).
CARDFIT_FOR_SIZE std::vector<PolicyAssumption> stack_assumptions(const Options& o, int64_t paged_state_bytes) {
  std::vector<PolicyAssumption> out;
  generation_assumptions(o, out);
  if (!uses_stack_policies(o)) return out;
  const Policies p = resolve_policies(o);
  const StackRow& r = stack_row(o.stack);
  const std::string src = std::string(r.version) + ": " + std::string(r.source);
  // The source of one policy: the stack's row, or the option that overrode it.
  auto from = [&](bool set) { return set ? std::string("option (over the stack's preset)") : src; };
  auto add = [&](std::string id, std::string text, std::string option, std::string value, std::string source) {
    out.push_back({std::move(id), std::move(text), std::move(option), std::move(value), std::move(source)});
  };
  add("stack", "Training stack whose policies the plan uses (each policy below; an option set wins over it).", "stack",
      std::string(enum_name(stack_names, o.stack)) + " (" + std::string(r.version) + ")", std::string(r.source));
  std::string loss_text, loss_value = std::string(enum_name(loss_names, p.loss));
  switch (p.loss) {
    case LossKind::full:
      loss_text = "The whole logits tensor upcast to fp32 for the loss; log_softmax keeps its fp32 output (12 bytes "
                  "per logit in backward).";
      break;
    case LossKind::chunked:
      if (p.loss_chunk_tokens > 0) {
        loss_value += ", " + std::to_string(p.loss_chunk_tokens) + " tokens per chunk";
        loss_text = "LitGPT chunked_cross_entropy: the head runs in chunks of tokens whose 16-bit logits the model "
                    "returns as a list (all alive through the loss and its backward); cross_entropy in the logits' "
                    "dtype (fp32 under autocast) keeps each chunk's log_softmax output; backward holds one chunk's "
                    "gradients at a time.";
      } else {
        loss_value += ", " + std::to_string(p.loss_chunks) + " chunks";
        loss_text = "torchtune LinearCrossEntropyLoss: the head runs inside the loss on one chunk of tokens at a "
                    "time, each chunk's logits upcast to fp32; no whole logits tensor; each chunk's fp32 "
                    "log_softmax output is kept for backward, which holds one chunk's gradients at a time.";
      }
      if (p.compile)
        loss_text += " Compiled: the min-cut partitioner keeps each row's logsumexp (fp32) instead of the "
                     "log_softmax output and recomputes the softmax in backward (assumed for the loss only).";
      break;
    case LossKind::fused:
      loss_text = "Fused linear cross-entropy (Liger LigerFusedLinearCrossEntropyLoss): the logits never exist "
                  "whole; forward computes the input gradient (tokens × hidden, 16-bit) and an fp32 loss per "
                  "token, over chunks of 2^ceil(log2(tokens / ceil(vocab / hidden))) tokens of 16-bit logits "
                  "(planned at twice tokens / ceil(vocab / hidden) per sample, an upper bound); Cut Cross-Entropy "
                  "holds less (a logsumexp per token, tiles in SRAM). A trained head's weight gradient is allocated "
                  "in Liger's forward (zeros_like(weight)), so it is held from the loss on.";
      break;
  }
  add("loss", loss_text, "loss", loss_value,
      from(o.loss.has_value()) + "; Liger src/liger_kernel/ops/fused_linear_cross_entropy.py "
                                 "fused_linear_cross_entropy_forward; apple/ml-cross-entropy cut_cross_entropy/cce.py");
  add("master_weights",
      p.master_weights == MasterWeights::none
          ? "Pure 16-bit training: bf16 weights, gradients and optimizer states, norms and loss in bf16, no "
            "autocast, no fp32 master copy (torchtune dtype=bf16, LitGPT bf16-true)."
          : "fp32 master weights: under autocast the weights themselves (mixed precision); without autocast a "
            "16-bit model keeps an fp32 copy in the optimizer (DeepSpeed's engines).",
      "master_weights", std::string(enum_name(master_weights_names, p.master_weights)), from(o.master_weights.has_value()));
  add("optimizer_in_bwd",
      p.optimizer_in_bwd ? "Optimizer in backward: each parameter steps as soon as its gradient is accumulated and the "
                           "gradient is freed, so no full gradient set exists (one block's, plus one tensor's "
                           "optimizer temporary); off with gradient accumulation."
                         : "The optimizer steps after backward over the full set of gradients.",
      "optimizer_in_bwd", p.optimizer_in_bwd ? "true" : "false",
      from(o.optimizer_in_bwd.has_value()) + "; torchtune training/memory.py register_optim_in_bwd_hooks");
  add("paged_optimizer",
      p.paged_optimizer
          ? "bitsandbytes paged optimizer: the states of tensors of 1e5+ elements in CUDA unified memory "
            "(cudaMallocManaged), outside the torch allocator: not in max_memory_allocated, not in the peak, and "
            "paged out to host memory when the card is full, so they do not decide the fit (value: their bytes); "
            "smaller tensors' states stay in the allocator; 32-bit states are fp32 whatever the parameter's "
            "dtype. No foreach temporary. Only AdamW (32- and 8-bit) has a paged bitsandbytes version: other "
            "optimizers are planned unpaged."
          : "Optimizer states in the torch allocator.",
      "paged_optimizer", p.paged_optimizer ? std::to_string(paged_state_bytes) + " bytes paged" : "false",
      from(o.paged_optimizer.has_value()) + "; bitsandbytes optim/optimizer.py Optimizer8bit.get_state_buffer "
                                            "(is_paged: F.get_paged), Optimizer2State.init_state");
  add("optimizer_offload",
      p.optimizer_offload ? "Optimizer offload (DeepSpeed offload_optimizer device cpu, ZeRO-Offload on one GPU): "
                            "states, fp32 master and the step on the host; the GPU keeps the 16-bit weights and "
                            "one block's gradients until they are copied out (DeepSpeed: its reduce buckets)."
                          : "Optimizer states and the step on the GPU.",
      "optimizer_offload", p.optimizer_offload ? "true" : "false",
      from(o.optimizer_offload.has_value()) + "; DeepSpeed runtime/zero/stage_1_and_2.py (cpu_offload)");
  add("activation_offload",
      p.activation_offload ? "Activation offload (torchtune OffloadActivations; Unsloth's offloaded checkpointing), "
                             "with grad_ckpt only (torchtune refuses it without): what blocks save for backward "
                             "goes to host memory; the GPU holds the running block's and, in backward, the next "
                             "block's (prefetched); weights' casts stay."
                           : "Saved activations stay on the GPU.",
      "activation_offload", p.activation_offload ? "true" : "false",
      from(o.activation_offload.has_value()) + "; torchtune training/_activation_offloading.py OffloadActivations");
  add("ckpt_every",
      "With grad_ckpt: every k-th layer is checkpointed (torchtune selective AC: checkpoint_wrapper counts "
      "layers from 1 and wraps those with count % k == 0); k = 1: every layer.",
      "ckpt_every", std::to_string(p.ckpt_every), from(o.ckpt_every.has_value()) + "; torchtune training/activations.py checkpoint_wrapper");
  // Only when asked for: the plans of the stacks without it list what they listed before.
  if (p.ckpt_policy == CkptPolicy::selective_op)
    add("ckpt_policy",
        "With grad_ckpt: torchtitan's per-op selective checkpointing. Each checkpointed layer keeps its input and "
        "the outputs of the ops on the save list: aten.mm except every second call (counted per layer forward: "
        "a Llama layer keeps wq, wv, w1 and w2's outputs), the SDPA flash/efficient output and its fp32 "
        "logsumexp, max (float8 amax: scalars) and reduce_scatter (tensor parallel). Float8Linear counts "
        "(torchao calls torch.mm on its Float8Tensors: the policy sees aten.mm before the subclass runs "
        "_scaled_mm; torchao eab345c / 0afa4c1 float8_linear.py); biased linears (addmm) and grouped experts "
        "are not on the list. With compile, an output "
        "backward never reads (an mm read only by a residual add) is not kept (the min-cut partitioner saves "
        "what backward reads). Not modelled: the abs on 9dec370's list, kept in eager float8 only.",
        "ckpt_policy", "selective_op",
        from(o.ckpt_policy.has_value()) +
            "; torchtitan 9dec370 (2024-12-26) torchtitan/parallelisms/parallelize_llama.py _save_list, "
            "_apply_ac_to_transformer_block; e7c0cae (2025-06-11) torchtitan/models/llama3/parallelize_llama.py");
  add("compile",
      p.compile ? "torch.compile: known: the min-cut partitioner (torch/_functorch/partitioners.py) recomputes cheap "
                  "pointwise ops in backward instead of saving them; assumed: the blocks' saved activations are "
                  "those of eager mode (an upper bound), only the compiled loss changes."
                : "Eager mode.",
      "compile", p.compile ? "true" : "false", from(o.compile.has_value()));
  add("packing",
      p.packing ? "Sequence packing: samples packed into rows of exactly seq tokens, so the plan's seq is every row's."
                : "Padding: variable-length data is padded to the longest sample of its batch; the plan is at seq, "
                  "so seq must be the longest batch's length.",
      "packing", p.packing ? "true" : "false", from(o.packing.has_value()));
  std::ostringstream load;
  load << "Load phase: weights converted tensor by tensor from the " << weight_dtype_name(p.checkpoint_dtype)
       << " checkpoint (the tensor being converted lives in both dtypes); a quantized load holds a 16-bit copy "
          "of the tensor bitsandbytes is quantizing (and prepare_model_for_kbit_training's fp32 upcast holds the "
          "16-bit source of the tensor it casts). Conversion assumed on the GPU; adapters and optimizer states "
          "come later.";
  if (p.load_phase)
    add("load_phase", load.str(), "load_phase", weight_dtype_name(p.checkpoint_dtype),
        from(o.load_phase.has_value()) + "; bitsandbytes nn/modules.py Params4bit._quantize");
  add("kbit_upcast",
      p.kbit_upcast ? "k-bit training: prepare_model_for_kbit_training casts the non-quantized weights (embeddings, "
                      "norms, head) to fp32."
      : sharded_qlora(o) && (o.parallel == Parallel::zero1 || o.parallel == Parallel::zero2)
          ? "k-bit training under ZeRO-1/2: the non-quantized weights (embeddings, norms, head) end 16-bit; "
            "prepare_model_for_kbit_training upcasts them, then DeepSpeed's engine casts the module to its 16-bit "
            "dtype (_configure_distributed_model: module.bfloat16() / half())."
      : sharded_qlora(o) ? "k-bit training under FSDP: the non-quantized weights (embeddings, norms, head) stay 16-bit; "
                           "TRL never calls prepare_model_for_kbit_training for sharded QLoRA (is_sharded_qlora), "
                           "FSDP1 flattens a unit's 4-bit storage and norms into one FlatParameter of one dtype, and "
                           "torchtune (FSDP2) never upcasts."
                    : "k-bit training: the non-quantized weights (embeddings, norms, head) stay 16-bit (axolotl casts "
                      "them back after prepare_model_for_kbit_training; torchtune never calls it).",
      "kbit_upcast", p.kbit_upcast ? "true" : "false",
      from(o.kbit_upcast.has_value()) + "; axolotl src/axolotl/loaders/model.py _convert_embedding_modules_dtype; "
                                "torchtune/modules/peft/lora.py LoRALinear quantize_base; trl trainer/sft_trainer.py "
                                "is_sharded_qlora (f2cd577); deepspeed runtime/engine.py _configure_distributed_model");
  return out;
}

}  // namespace cardfit

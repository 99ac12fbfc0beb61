// Training stacks as data: each stack (Hugging Face Trainer, torchtune, LitGPT, Unsloth, Axolotl,
// LLaMA-Factory) is one row of policies, read from the framework's source (file, function, version
// in stacks.cpp). Each policy is also its own option; an option that is set wins over the row.
// How each policy moves memory: docs/memory-model.md#stacks.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "options.hpp"

namespace cardfit {

/// The policies one plan uses, after the stack's preset and the options set over it.
struct Policies {
  LossKind loss = LossKind::full;
  int64_t loss_chunks = 8;         // chunked, torchtune style: chunks per sample (0: use loss_chunk_tokens)
  int64_t loss_chunk_tokens = 0;   // chunked, LitGPT style: tokens per sequence per chunk
  MasterWeights master_weights = MasterWeights::fp32;
  bool optimizer_in_bwd = false;
  bool paged_optimizer = false;
  bool optimizer_offload = false;
  bool activation_offload = false;
  int64_t ckpt_every = 1;          // with grad_ckpt: every k-th checkpointable layer (k = 1: all)
  CkptPolicy ckpt_policy = CkptPolicy::layer;  // with grad_ckpt: what a checkpointed layer keeps
  bool compile = false;
  bool packing = false;
  bool load_phase = false;
  WeightDtype checkpoint_dtype = WeightDtype::bf16;
  bool kbit_upcast = true;         // k-bit training: the non-quantized weights in fp32 (PEFT)
};

/// One stack's row: its policies and where they were read.
struct StackRow {
  Stack stack;
  Policies policies;
  std::string_view version;  // the framework release / commit the row was read from
  std::string_view source;   // files and functions, for the report's assumptions
};

/// The preset table, one row per Stack in stack_names order.
const std::vector<StackRow>& stack_rows();
const StackRow& stack_row(Stack s);

/// The stack's row with every policy the options set written over it.
Policies resolve_policies(const Options& opt);

/// Whether anything differs from today's hf model (a stack other than hf or a policy option set):
/// only then does the plan list the stack's assumptions (the hf plan is unchanged, word for word).
bool uses_stack_policies(const Options& opt);
/// QLoRA under a sharding strategy: FSDP1 (fsdp, hsdp, the HF recipe with bnb_4bit_quant_storage,
/// where TRL skips prepare_model_for_kbit_training, as for DeepSpeed ZeRO-3, zero3) or FSDP2 (fsdp2,
/// torchtune's recipe, which never calls it), or ZeRO-1/2 in 16 bit (DeepSpeed's engine casts the
/// upcast module back to its 16-bit dtype): kbit_upcast defaults to false.
bool sharded_qlora(const Options& opt);
/// Whether training in 16 bit without autocast keeps an fp32 master copy inside the optimizer
/// (DeepSpeed's fp16/bf16 engines; pure 16-bit, master_weights none, keeps none), given the
/// effective options (effective_options) or the raw ones, and their policies.
bool keeps_fp32_master(const Options& opt, const Policies& p);
/// Whether an optimizer can be sharded over ranks: not Muon, which orthogonalises each weight
/// matrix whole (validate.cpp refuses it under the sharding strategies; no ZeRO cut offers it).
inline bool optimizer_shardable(Optimizer o) { return o != Optimizer::muon; }

/// The options the memory model plans with: pure 16-bit training (master_weights none) is
/// precision bf16 with autocast off, and no fp32 master copy in the optimizer.
Options effective_options(const Options& opt);

/// One assumption line per policy the plan used: {id, text, option, value, source}.
struct PolicyAssumption {
  std::string id, text, option, value, source;
};
std::vector<PolicyAssumption> stack_assumptions(const Options& opt, int64_t paged_state_bytes);

}  // namespace cardfit

// Per-node and per-block arithmetic over the traced graph: forward FLOPs, and the bytes PyTorch's
// autograd keeps from the forward of each op until its backward (which tensors, in which dtype,
// under torch.autocast), plus each block's transient working set. Not the memory plan itself
// (memory.hpp walks the phases of the step over these numbers). Every rule: docs/memory-model.md.
#pragma once
#include <cstdint>
#include <vector>

#include "../model.hpp"
#include "options.hpp"

namespace cardfit {

/// Bytes of one element of the compute dtype (bf16/fp16 under autocast, fp32 otherwise).
int64_t compute_bytes(Precision p);

/// Dropout probabilities of the model: the option if given, else the model type's published
/// default (GPT-2, BERT, T5, BART, OPT, GPT-BigCode: 0.1; modern decoders: 0).
struct Dropouts {
  double hidden = 0, attention = 0, activation = 0, embedding = 0;
};
Dropouts model_dropouts(const Model& m, const Options& opt);

/// How the tensors of one training (or serving) step are typed and which weights train.
struct StepSetup {
  Mode mode = Mode::full;
  bool train = true;          // false: serving (no_grad, nothing saved)
  bool autocast = true;       // torch.autocast active (mixed precision; pure bf16 under Trainer --bf16)
  int compute = 2;            // bytes of the dtype matmuls run in
  int master = 4;             // bytes of a trainable full-fine-tune weight (and its gradient)
  int base = 2;               // bytes of frozen 16/32-bit weights (LoRA base; QLoRA non-quantized)
  int stream = 4;             // bytes of the embedding output and the residual stream
  int norm_param = 4;         // bytes of the norm weights
  bool train_base = true;     // full fine-tune: every weight trains
  bool quantized = false;     // QLoRA: linear weights quantized
  QuantKind quant = QuantKind::nf4;
  bool lora = false;
  int64_t lora_rank = 16;
  double lora_dropout = 0;
  bool grad_ckpt = false;
  Attention attention = Attention::sdpa;
  Dropouts dropout;
  int64_t images = 0;         // images per sample: what a vision block runs over
  const Options* options = nullptr;
};
StepSetup make_setup(const Model& m, const Options& opt, Mode mode);
// The setup keeps a pointer to the options: a temporary would leave it dangling.
StepSetup make_setup(const Model& m, Options&& opt, Mode mode) = delete;

/// Whether the model has blocks over image tokens (a vision tower).
bool has_vision(const Model& m);
/// Images per sample: the option `images`, else 1 for a model with a vision tower (0 otherwise).
int64_t images_per_sample(const Model& m, const Options& opt);

/// The gradient checkpointing a training step in `mode` runs with: the option when given, else on
/// for QLoRA (PEFT prepare_model_for_kbit_training: use_gradient_checkpointing=True by default
/// calls gradient_checkpointing_enable()), off otherwise.
bool grad_ckpt_of(const Options& opt, Mode mode);
/// Whether the default comes from the mode (QLoRA) rather than the option: for the assumption text.
bool grad_ckpt_defaulted_on(const Options& opt, Mode mode);
/// Why a step in `mode` runs the attention it does, in order: the option when given; the model class
/// has no SDPA path, so transformers falls back to eager (GPT-Neo, DeepSeek-V4; generation too);
/// training a model that caps attention logits (Gemma 2's attn_logit_softcapping: transformers releases
/// from v4.42 swapped the default sdpa for eager, current ones warn when training with anything but
/// eager; SDPA ignores the cap), eager; sdpa otherwise. The plan and its assumption text both read it.
enum class AttentionWhy { option, no_sdpa, soft_cap, sdpa };
AttentionWhy attention_why(const Model& m, const Options& opt, Mode mode);
/// The attention implementation that reason gives.
Attention attention_of(const Model& m, const Options& opt, Mode mode);

/// Whether PEFT's LoRA wraps this node (the options' target names, else the node's default). An
/// nn.Linear, or by name only (never by default: PEFT's "all-linear" leaves the output embeddings
/// out) the vocabulary head (lora.Linear around it) or an nn.Embedding (lora.Embedding).
bool is_lora_target(const Node& n, const Options& opt);
/// The adapter's in and out features: r × (in + out) parameters. A Linear (the head too): A is
/// r × in, B out × r. An Embedding: lora_embedding_A is r × num_embeddings, lora_embedding_B
/// embedding_dim × r (PEFT lora.Embedding.update_layer).
struct LoraDims {
  int64_t in = 0, out = 0;
};
LoraDims lora_dims(const Node& n);
/// Whether QLoRA quantizes this node under the options: an nn.Linear that is not the head
/// (is_quantized_linear), and with quantize = adapted only one LoRA wraps.
bool is_quantized(const Node& n, const Options& opt);
/// Whether torchao's convert_to_float8_training swaps this node for a Float8Linear: a full
/// fine-tune's nn.Linear modules but the head (torchtitan's recipes filter the output layer).
bool is_float8_linear(const Node& n, const Options& opt, Mode mode);
/// Whether the node is in PEFT modules_to_save (a trainable full copy of it).
bool is_saved_module(const Node& n, const Options& opt);
/// Whether QLoRA quantizes this node's weight (an nn.Linear that is not the head).
bool is_quantized_linear(const Node& n);

/// Tokens each sample runs through a block: the encoder length, or for the decoder half of an
/// encoder-decoder model the target length; for a vision block, images × its tokens per image.
int64_t block_tokens(const Model& m, size_t block, int64_t seq, int64_t decoder_seq, int64_t images);
/// Tokens per sample of one node's output: its block's, except vision nodes that run on another
/// count per image (CLIP's patch conv, a pooled token).
int64_t node_tokens(const Model& m, size_t block, size_t node, int64_t seq, int64_t decoder_seq, int64_t images);
/// The length of one sequence that an attention node of this block attends within: the source
/// length for cross attention, one image's tokens in a vision block (each image is its own
/// sequence), else the block's tokens.
int64_t attention_context(const Model& m, size_t block, const Node& node, int64_t seq, int64_t decoder_seq);
/// Whether gradient checkpointing wraps this block (gradient_checkpointing_enable() reaches every
/// encoder that supports it: the repeated decoder/encoder layers and a vision tower's layers).
bool checkpointable(const Block& b);
/// Per block, whether a training step in `mode` records its ops for backward. Autograd records an
/// op (and keeps what its backward reads) only when one of its inputs requires grad. Text blocks
/// always are in training; a vision tower is from its first block holding a trainable parameter
/// (full fine-tune: all; LoRA: an adapter or a modules_to_save copy) on, since pixel_values never
/// require grad; a block that sees no tokens (images = 0) never runs.
std::vector<char> recorded_blocks(const Model& m, const Options& opt, Mode mode, int64_t images);

/// Forward FLOPs of `node` per token at context `seq` (multiply-add = 2 FLOPs; causal attention
/// counts only the unmasked half; sliding windows limit the span; MoE counts the active experts).
double forward_flops_per_token(const Node& node, int64_t seq);

/// One block, per sample (batch 1), in bytes.
struct BlockCost {
  int64_t saved = 0;        // kept by autograd from the forward until the block's backward
  int64_t fixed = 0;        // batch-independent tensors kept as long (GPTQ's dequantized weights,
                            // the 16-bit cast of a frozen fp32 head)
  int64_t input = 0;        // the block's input (what gradient checkpointing keeps)
  int64_t forward = 0;      // working set of its forward beyond what is saved
  int64_t backward = 0;     // gradients in flight during its backward
  // Batch-independent: the largest weight a quantized linear dequantizes while it runs, in its
  // forward and in its backward (bitsandbytes 4-bit and GPTQ in both; LLM.int8 only in backward).
  int64_t dequant_forward = 0;
  int64_t dequant_backward = 0;
  std::vector<int64_t> node_saved;  // saved bytes attributed to each node (graph display)
};

/// Walks one block's ops in order, tracking each tensor's dtype and identity (q/k/v share their
/// input unless autocast casts it separately for each), and returns what it saves and needs.
BlockCost block_cost(const Model& m, size_t block, const StepSetup& s, int64_t seq, int64_t decoder_seq);

}  // namespace cardfit

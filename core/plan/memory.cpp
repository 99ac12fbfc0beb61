// Training and serving memory as a simulation of the moments of a PyTorch step: every block's
// forward, the loss, every block's backward in reverse, the optimizer step. At each moment the
// live bytes are resident state + what autograd keeps + what is in flight; the peak is the
// largest. Formulas and sources: docs/memory-model.md.
#include "memory.hpp"
#include "recurrent_state.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <unordered_map>

#include "graph_costs.hpp"
#include "largest_holding.hpp"
#include "selective_ac.hpp"
#include "serve_parallel.hpp"
#include "stacks.hpp"
#include "step_events.hpp"

namespace cardfit {

namespace {
int64_t mul(int64_t a, int64_t b) { return checked_mul(a, b, "a memory term"); }
int64_t add(int64_t a, int64_t b) { return checked_add(a, b, "a memory term"); }
int64_t bytes_of(double x) { return int64_t(std::ceil(x)); }

enum C {
  kWeights, kAdapters, kStates, kGrads, kCast, kActs, kCkpt, kRecompute, kLogits, kWork, kOptTemp,
  kKv, kSsm, kWorkspace, kDdp
};

// bitsandbytes' blockwise 8-bit optimizers: tensors of at least 4096 elements keep uint8 states
// with an fp32 absmax per 256-element block; smaller ones keep fp32 states.
int64_t adam8bit_state(int64_t n) {
  if (n < 4096) return mul(n, 8);
  const int64_t blocks = (n + 255) / 256;
  return add(mul(n, 2), mul(blocks, 8));
}

// HF Adafactor (beta1 None): factored fp32 second moments of rows and columns for tensors of 2+
// dimensions, a full fp32 second moment for vectors.
// A trainable tensor's shape ([experts,] rows, columns at most), inline: a MemoryModel makes one per
// trainable tensor on every build, and a heap-allocated Shape each was a tenth of a LoRA re-plan.
class TrainShape {
 public:
  TrainShape(std::initializer_list<int64_t> dims) {
    for (int64_t d : dims) {
      dims_[rank_++] = d;
      numel_ = checked_mul(numel_, d, "a tensor's element count");  // as numel(Shape)
    }
  }
  size_t size() const { return rank_; }
  int64_t back() const { return dims_[rank_ - 1]; }
  int64_t operator[](size_t i) const { return dims_[i]; }
  int64_t numel() const { return numel_; }

 private:
  std::array<int64_t, 3> dims_{};
  size_t rank_ = 0;
  int64_t numel_ = 1;
};

int64_t adafactor_state(const TrainShape& shape) {
  const int64_t n = shape.numel();
  if (shape.size() < 2) return mul(n, 4);
  return mul(add(n / shape.back(), n / shape[shape.size() - 2]), 4);
}

// One trainable tensor: its shape and the bytes of one element (the gradient and the AdamW /
// momentum states take the parameter's dtype, as torch.optim does). hidden_matrix: a hidden
// layer's weight matrix (a stack of them for experts), which Muon steps; torch.optim.Muon takes 2-D
// parameters only and its docs leave embeddings, the head and vectors to AdamW.
struct Trainable {
  TrainShape shape;
  int bytes = 4;
  bool hidden_matrix = false;
};

// torch.optim.Muon's step on one matrix (torch/optim/_muon.py @098e03f: nesterov True, use_addmm
// False): the update grad.lerp(buf) in the gradient's dtype, then Newton-Schulz in bf16 on X (its
// short side s): at `X = a * X + gram_update @ X` X, a * X, the product and their sum (4 x 2mn)
// beside the s x s gram matrix and its update (2 x 2s^2); the gram line peaks lower (2mn + 10s^2).
// An expert stack is stepped an expert at a time (torch's Muon refuses 3-D tensors).
int64_t muon_step_temporary(const TrainShape& shape, int bytes) {
  const int64_t rows = shape[shape.size() - 2], cols = shape.back(), s = std::min(rows, cols);
  return add(mul(mul(rows, cols), bytes + 8), mul(mul(s, s), 4));
}

// master: the fp32 master copy, apart from the states, so that a per-rank model partitions each
// once (parallel.cpp); the single card holds states + master.
struct OptimizerCost {
  int64_t states = 0, master = 0, temporaries = 0;
  int64_t held() const { return add(states, master); }
};

// fp32_master: the model runs in 16 bit without autocast (DeepSpeed's fp16/bf16 engines): the
// optimizer keeps an fp32 master copy and fp32 states of every trainable tensor (its fused Adam
// needs no temporary) and flattens the 16-bit gradients into fp32 at the step.
OptimizerCost optimizer_cost(const Options& opt, const std::vector<Trainable>& ts, bool fp32_master) {
  OptimizerCost c;
  int64_t largest = 0, sum = 0, muon_temp = 0;
  // Muon: a momentum buffer per hidden matrix; every other tensor is AdamW's.
  auto muon_steps = [&](const Trainable& t) { return opt.optimizer == Optimizer::muon && t.hidden_matrix; };
  if (fp32_master && opt.optimizer != Optimizer::none) {
    for (const auto& t : ts) {
      const int64_t n = t.shape.numel();
      c.master = add(c.master, mul(n, 4));
      c.temporaries = add(c.temporaries, mul(n, 4));  // fp32 gradients at the step
      switch (opt.optimizer) {
        case Optimizer::adamw: c.states = add(c.states, mul(n, 8)); break;
        case Optimizer::adamw8bit: c.states = add(c.states, adam8bit_state(n)); break;
        case Optimizer::adafactor: c.states = add(c.states, adafactor_state(t.shape)); break;
        case Optimizer::sgd: c.states = add(c.states, mul(n, 4)); break;
        case Optimizer::muon:
          c.states = add(c.states, mul(n, muon_steps(t) ? 4 : 8));
          if (muon_steps(t)) muon_temp = std::max(muon_temp, muon_step_temporary(t.shape, 4));
          break;
        case Optimizer::none: break;
      }
    }
    c.temporaries = add(c.temporaries, muon_temp);
    return c;
  }
  for (const auto& t : ts) {
    const int64_t n = t.shape.numel(), b = mul(n, t.bytes);
    if (muon_steps(t)) {
      c.states = add(c.states, b);  // momentum_buffer: zeros_like(grad)
      muon_temp = std::max(muon_temp, muon_step_temporary(t.shape, t.bytes));
      continue;
    }
    sum = add(sum, b);
    largest = std::max(largest, n);
    switch (opt.optimizer) {
      case Optimizer::adamw:
      case Optimizer::muon: c.states = add(c.states, mul(b, 2)); break;
      case Optimizer::adamw8bit: c.states = add(c.states, adam8bit_state(n)); break;
      case Optimizer::adafactor: c.states = add(c.states, adafactor_state(t.shape)); break;
      case Optimizer::sgd: c.states = add(c.states, b); break;
      case Optimizer::none: break;
    }
  }
  switch (opt.optimizer) {
    case Optimizer::adamw:
    case Optimizer::muon:
      // foreach: torch._foreach_sqrt(exp_avg_sqs) materialises one state-sized list; the
      // for-loop version one tensor's worth; fused none. Muon's and AdamW's steps run one after
      // the other.
      if (opt.optimizer_impl == OptimizerImpl::foreach) c.temporaries = sum;
      else if (opt.optimizer_impl == OptimizerImpl::forloop) c.temporaries = mul(largest, 4);
      c.temporaries = std::max(c.temporaries, muon_temp);
      break;
    case Optimizer::adafactor:
      // Per parameter: grad², the row×column reconstruction and the scaled update, in fp32.
      c.temporaries = mul(largest, 12);
      break;
    default:
      break;
  }
  return c;
}

// bitsandbytes 4-bit: two weights per byte, one absmax per 64 weights: fp32, or with double
// quantization 8-bit plus an fp32 scale per 256 blocks (QLoRA paper §3).
int64_t four_bit_total(bool double_quant, double n) {
  return bytes_of(n / 2 + (double_quant ? n / 64 + n / 64 / 256 * 4 : n / 64 * 4));
}

// Quantized storage of `weights` elements of linear layers (bytes), and the label of the base.
int64_t quantized_bytes(QuantKind q, bool double_quant, int64_t weights, int64_t rows, int64_t in_rows) {
  const double n = double(weights);
  switch (q) {
    case QuantKind::nf4:
    case QuantKind::fp4:
      return four_bit_total(double_quant, n);
    case QuantKind::int8:
      // LLM.int8: one byte per weight and an fp32 scale per output row (SCB).
      return add(weights, mul(rows, 4));
    case QuantKind::gptq:
      // GPTQ int4, group 128: packed int32 qweight, fp16 scales and packed zeros per group, and
      // an int32 g_idx per input row.
      return add(bytes_of(n / 2 + n / 128 * 2 + n / 128 / 2), mul(in_rows, 4));
  }
  return weights;
}

const char* component_id(int c, Mode mode) {
  switch (c) {
    case kWeights: return "weights";
    case kAdapters: return "adapters";
    case kStates: return "optimizer_states";
    case kGrads: return "gradients";
    case kCast: return "weight_cast_cache";
    case kActs: return "activations";
    case kCkpt: return "checkpoints";
    case kRecompute: return "recompute";
    case kLogits: return "logits";
    case kWork: return mode == Mode::serve ? "prefill_working_set" : "working_set";
    case kOptTemp: return "optimizer_temporaries";
    case kKv: return "kv_cache";
    case kSsm: return "ssm_state";
    case kWorkspace: return "library_workspace";
    case kDdp: return "ddp_buckets";
  }
  return "other";
}

std::string component_label(int c, Mode mode, const Options& opt) {
  switch (c) {
    case kAdapters: return opt.modules_to_save.empty() ? "LoRA adapters" : "LoRA adapters and trainable copies";
    case kStates: return std::string("Optimizer states (") + optimizer_name(opt.optimizer) + ")";
    case kGrads: return "Gradients";
    case kCast: return mode == Mode::full ? "Autocast weight copies" : "Dequantized / cast weights";
    case kActs: return "Activations saved for backward";
    case kCkpt: return "Checkpointed block inputs";
    case kRecompute: return "Recomputed block (checkpointing)";
    case kLogits: return mode == Mode::serve ? "Last-token logits" : "Logits and loss buffers";
    case kWork: return mode == Mode::serve ? "Prefill working set" : "Working set (in flight)";
    case kOptTemp: return "Optimizer temporaries";
    case kKv: return "KV cache";
    case kSsm: return "SSM state";
    case kWorkspace: return "cuBLAS workspace";
    case kDdp: return "DDP / DeepSpeed gradient buckets";
  }
  return "Weights";
}

// block_cost memoised on everything it reads: the block's cost class (block_cost_classes,
// model.hpp: its structural signature and a vision block's predecessor), and the per-node answers
// of the options that match names (lora_targets, modules_to_save). The model's dims, the setup and
// the lengths are those of the memo. Blocks of one class (the repeated layers) cost one call.
class BlockCostMemo {
 public:
  BlockCostMemo(const Model& m, const StepSetup& s, int64_t seq, int64_t dseq)
      : m_(m), s_(s), seq_(seq), dseq_(dseq),
        own_classes_(m.cost_class.size() == m.blocks.size() ? std::vector<int32_t>{} : block_cost_classes(m)),
        classes_(own_classes_.empty() ? m.cost_class : own_classes_),
        by_names_(!s.options->lora_targets.empty() || !s.options->modules_to_save.empty()),
        by_class_(by_names_ ? 0 : m.blocks.size(), -1) {}
  const BlockCost& operator()(size_t bi) {
    const int32_t cls = classes_[bi];
    if (!by_names_) {
      int64_t& slot = by_class_[size_t(cls)];
      if (slot < 0) slot = fresh(bi);
      return costs_[size_t(slot)];
    }
    std::string key = std::to_string(cls) + ':';
    const Options& opt = *s_.options;
    for (const Node& n : m_.blocks[bi].nodes) key += char('0' + int(is_lora_target(n, opt)) + 2 * int(is_saved_module(n, opt)));
    const auto [it, added] = index_.try_emplace(std::move(key), int64_t(costs_.size()));
    if (added) fresh(bi);
    return costs_[size_t(it->second)];
  }

 private:
  int64_t fresh(size_t bi) {
    costs_.push_back(block_cost(m_, bi, s_, seq_, dseq_));
    return int64_t(costs_.size()) - 1;
  }
  const Model& m_;
  const StepSetup& s_;
  int64_t seq_, dseq_;
  const std::vector<int32_t> own_classes_;  // only for a model built without trace_model
  const std::vector<int32_t>& classes_;
  const bool by_names_;
  std::vector<int64_t> by_class_;           // class -> index in costs_ (no name-matching options)
  std::unordered_map<std::string, int64_t> index_;
  std::vector<BlockCost> costs_;
};

// ---- Stack policies (stacks.hpp; docs/memory-model.md#stacks) ----------------------------------

// Per-sample bytes of the loss under a chunked or fused policy: at the loss (forward), at the
// backward of the loss, and the logits' gradient at the head's backward. v: logits per sample
// (tokens × vocab), lc: the logits' bytes, hidden: the head's input width.
struct LossBytes {
  int64_t forward = 0, backward = 0, grad = 0;
};
LossBytes policy_loss_bytes(const Policies& pol, int64_t tokens, int64_t vocab, int64_t hidden, int lc, bool autocast) {
  LossBytes l;
  const int64_t v = mul(tokens, vocab);
  if (pol.loss == LossKind::fused) {
    // Liger fused_linear_cross_entropy_forward: an fp32 loss per token and the input gradient
    // (tokens × hidden, 16-bit) made in forward, over chunks of next_power_of_2(ceil(BT / inc))
    // tokens of 16-bit logits, inc = ceil(vocab / hidden): under 2 × ceil(tokens / inc) per sample.
    const int64_t inc = (vocab + hidden - 1) / std::max<int64_t>(1, hidden);
    const int64_t chunk = mul(2 * ((tokens + inc - 1) / std::max<int64_t>(1, inc)), vocab);
    const int64_t grad_in = mul(mul(tokens, hidden), lc);
    l.forward = add(add(mul(tokens, 4), grad_in), mul(chunk, lc));
    l.backward = grad_in;  // the input gradient, scaled by the loss's gradient; no logits
    return l;
  }
  // Chunked: a chunk holds f = chunk tokens / tokens of the logits (rounded up to whole tokens).
  const bool litgpt = pol.loss_chunk_tokens > 0;
  const int64_t chunk_tokens = litgpt ? std::min(tokens, pol.loss_chunk_tokens)
                                      : (tokens + std::max<int64_t>(1, pol.loss_chunks) - 1) / std::max<int64_t>(1, pol.loss_chunks);
  const int64_t cv = mul(chunk_tokens, vocab);
  // torchtune upcasts each chunk (logits.float()); LitGPT runs in the logits' dtype (fp32 under
  // autocast, whose cast list holds log_softmax).
  const int u = litgpt ? (autocast ? 4 : lc) : 4;
  // Kept for backward: each chunk's log_softmax output, or compiled its logsumexp per token.
  const int64_t kept = pol.compile ? mul(tokens, 4) : mul(v, u);
  // LitGPT's model returns every chunk's 16-bit logits as a list, alive through the loss.
  const int64_t whole = litgpt ? mul(v, lc) : 0;
  // The chunk being computed: its 16-bit logits and (upcast) its fp32 copy.
  l.forward = add(add(kept, whole), mul(cv, u != lc ? lc + u : lc));
  // One chunk's backward: its incoming and produced gradients (in u), and the 16-bit one if cast;
  // the head runs per chunk, so its logits gradient is that chunk's, counted here.
  l.backward = add(add(kept, whole), mul(cv, 2 * u + (u != lc ? lc : 0)));
  l.grad = 0;
  return l;
}

// The load phase: every weight in its training form, plus the tensor being converted. Full and
// LoRA: the largest tensor in the checkpoint's dtype when it differs from the training dtype.
// QLoRA: the 16-bit copy bitsandbytes quantizes from (Params4bit._quantize) of the largest
// quantized linear, or PEFT's fp32 upcast of the largest other tensor (its 16-bit source).
MemoryModel::Event load_event(const Model& m, const StepSetup& s, const Policies& pol, int64_t total_weights) {
  MemoryModel::Event e;
  const int ckb = pol.checkpoint_dtype == WeightDtype::fp32 ? 4 : 2;
  int64_t temp = 0;
  if (s.quantized) {
    for (const auto& b : m.blocks)
      for (const auto& n : b.nodes)
        if (is_quantized_linear(n)) temp = std::max(temp, mul(mul(n.in, n.out), 2));
        else if (s.base == 4 && n.params > 0) temp = std::max(temp, mul(n.params, 2));
  } else {
    const int target = s.mode == Mode::full ? s.master : s.base;
    if (ckb != target)
      for (const auto& t : m.tensors)
        if (t.tied_to.empty()) temp = std::max(temp, mul(t.each(), ckb));  // one tensor at a time
  }
  e.what = "load (weights converted tensor by tensor)";
  e.fixed[kWeights] = total_weights;
  e.fixed[kCast] = temp;
  return e;
}

// ---- LoRA adapters and the quantized / float8 linears (docs/memory-model.md §4) ----------------

// r × (in + out) per stored expert: A and B of lora.Linear (the head too), or lora_embedding_A
// (r × num_embeddings) and lora_embedding_B (embedding_dim × r) of lora.Embedding.
int64_t lora_adapter_params(const Node& n, int64_t rank) {
  const LoraDims d = lora_dims(n);
  return mul(rank, mul(d.in + d.out, n.experts));
}

// The adapter's trainable tensors, as PEFT creates them (the optimizer's per-tensor rules read the
// shapes), in `bytes` per element.
void add_adapter_tensors(const Node& n, int64_t rank, int bytes, std::vector<Trainable>& out) {
  const LoraDims d = lora_dims(n);
  const int64_t e = n.experts;
  const bool hidden = n.op == Op::linear;  // not the head's or an embedding's (Muon: AdamW's)
  out.push_back({TrainShape{e * rank, d.in}, bytes, hidden});
  out.push_back({TrainShape{e * d.out, rank}, bytes, hidden});
}

// What autocast casts to 16 bit of an fp32 adapter per step: both matrices of lora.Linear; of
// lora.Embedding only B (F.embedding is not an autocast op, so A is looked up in fp32, and the
// fp32 rows are cast when they meet B in the matmul).
int64_t adapter_cast_elements(const Node& n, int64_t rank) {
  if (n.op == Op::embedding || n.op == Op::position_embedding) return mul(rank, lora_dims(n).out);
  return lora_adapter_params(n, rank);
}

// Whether autocast's weight cache holds a 16-bit copy of this full fine-tune weight: a linear's,
// unless torchao's Float8Linear runs it (its forward calls no F.linear: the fp32 weight goes
// straight to its fp8 cast, which is not cached).
bool weight_is_cast(const Node& n, const Options& opt, Mode mode) {
  return (n.op == Op::linear || n.op == Op::head || n.op == Op::router) && !is_float8_linear(n, opt, mode);
}

}  // namespace

FourBitBytes four_bit_bytes(bool double_quant, int64_t weights) {
  // bitsandbytes quantize_4bit packs (n + 1) // 2 bytes; the constants are the rest of the total.
  const int64_t data = (weights + 1) / 2;
  return {data, four_bit_total(double_quant, double(weights)) - data};
}

namespace {
// Whether serving at `wd` quantizes routed-expert weights the model class holds as bare parameters
// (fused stacks such as Qwen3.5-MoE's experts.gate_up_proj, or DeepSeek-V4's per-expert w1 / w2 / w3):
// FP8 always (transformers integrations/finegrained_fp8.py FP8Experts, vLLM Fp8MoEMethod), GPTQ int4
// always (its checkpoints quantize every expert's linears, arch/expert_parts.hpp), bitsandbytes
// nf4 / int8 only in the serving engines (vLLM's BitsAndBytesMoEMethod runs them as FusedMoE layers;
// transformers' bitsandbytes replaces nn.Linear modules only, as QLoRA trains them).
bool quantizes_bare_experts(WeightDtype wd, Engine engine) {
  if (wd == WeightDtype::fp8 || wd == WeightDtype::int4) return true;
  return engine != Engine::hf;
}
}  // namespace

bool bare_expert_weight(const Tensor& t) {
  const std::string_view name = t.name;
  return !t.linear && t.role == Role::expert && t.shape.size() >= 2 &&
         (t.expert_axes != ExpertAxes::none || (name.size() > 7 && name.substr(name.size() - 7) == ".weight"));
}

int64_t served_weight_bytes(const Tensor& t, int64_t n, const Options& opt, bool quantize_head) {
  const WeightDtype wd = opt.serve_dtype;
  const bool q = (t.linear && (quantize_head || t.role != Role::head)) ||
                 (bare_expert_weight(t) && quantizes_bare_experts(wd, opt.engine));
  if (wd == WeightDtype::fp32) return mul(n, 4);
  if (!q || wd == WeightDtype::bf16 || wd == WeightDtype::fp16) return mul(n, 2);
  if (wd == WeightDtype::fp8) return n;  // per-tensor scales: negligible
  // One matrix's input width: a fused [experts, in, out] stack reads x @ W[e].
  const int64_t in = t.expert_axes == ExpertAxes::in_out ? t.shape[1] : t.shape.back();
  if (wd == WeightDtype::int8) return quantized_bytes(QuantKind::int8, false, n, n / in, 0);  // a scale a row
  const int64_t matrices = t.shape.size() == 3 ? t.shape[0] : 1;
  if (wd == WeightDtype::int4) return quantized_bytes(QuantKind::gptq, false, n, 0, mul(in, matrices));  // g_idx [in] each
  return quantized_bytes(QuantKind::nf4, opt.double_quant, n, 0, 0);
}

int64_t kv_bytes_per_element(const Options& opt) {
  if (opt.kv_dtype_set) {
    switch (opt.kv_dtype) {
      case WeightDtype::fp8: return 1;
      case WeightDtype::fp32: return 4;
      default: return 2;
    }
  }
  return opt.serve_dtype == WeightDtype::fp32 ? 4 : 2;
}

int64_t allocator_reserve(int64_t peak, double f) {
  if (f <= 0) return 0;
  return bytes_of(double(peak) * f / (1 - f));
}

int64_t lora_parameter_count(const Model& m, const Options& opt) {
  int64_t n = 0;
  for (const auto& b : m.blocks)
    for (const auto& node : b.nodes)
      if (is_lora_target(node, opt)) n = add(n, lora_adapter_params(node, opt.lora_rank));
  return n;
}

void MemoryModel::add_event(Event e) {
  finish_event(e);
  events_.push_back(e);
}

MemoryModel::MemoryModel(const Model& m, const Options& given, Mode mode, int64_t seq, const Overheads& ov)
    : mode_(mode), seq_(seq), ov_(ov) {
  // The stack's policies; pure 16-bit training plans as bf16 without autocast (stacks.hpp).
  const Policies pol = resolve_policies(given);
  const Options opt = effective_options(given);
  const StepSetup s = make_setup(m, opt, mode);
  for (int c = 0; c < kComponents; ++c) labels_[size_t(c)] = component_label(c, mode, opt);
  optimizer_shardable_ = cardfit::optimizer_shardable(opt.optimizer);
  const size_t nb = m.blocks.size();
  const int64_t dseq = opt.decoder_seq > 0 ? opt.decoder_seq : seq;
  blocks_.assign(nb, BlockMemory{});
  for (const auto& b : m.blocks) block_names_.push_back(b.name);

  // The vocabulary head (the widest one, should a model have two) and where it lives.
  int head_block = -1;
  const Node* head = nullptr;
  for (size_t bi = 0; bi < nb; ++bi)
    for (const auto& n : m.blocks[bi].nodes)
      if (n.vocab_head && (!head || n.out > head->out)) {
        head = &n;
        head_block = int(bi);
      }

  // ---- Serving ------------------------------------------------------------------------------
  if (mode == Mode::serve) {
    phase_names_ = {"prefill", "decode"};
    const WeightDtype wd = opt.serve_dtype;
    int64_t w = 0;
    // A quantized checkpoint serves as published unless serve_dtype is given (arch/stored_format.hpp).
    const std::optional<StoredWeights> stored = opt.serve_dtype_set ? std::nullopt : m.stored_weights;
    if (stored) w = stored->bytes;
    else for (const auto& t : m.tensors)
      if (t.tied_to.empty()) w = add(w, mul(served_weight_bytes(t, t.each(), opt, false), t.copies));
    labels_[kWeights] = stored ? "Weights (as stored: " + stored->label + ")"
                               : std::string("Weights (") + weight_dtype_name(wd) + ")";
    const int64_t kvb = kv_bytes_per_element(opt);
    int64_t kv = 0;
    for (const auto& b : m.blocks)
      for (const auto& n : b.nodes)
        if (caches_kv(b, n)) {
          const int64_t held = n.attn.cross ? (n.attn.context > 0 ? n.attn.context : seq)
                                           : (n.attn.window > 0 ? std::min(n.attn.window, seq) : seq);
          kv = add(kv, mul(held, mul(n.attn.cache_dim, kvb)));
          // DeepSeek-V4 CSA / HCA: one compressed entry per compress_ratio tokens beside the window.
          if (n.attn.compress_ratio > 0) kv = add(kv, mul(seq / n.attn.compress_ratio, mul(n.attn.compressed_dim, kvb)));
        }
    kv_ = kv;
    // Mamba layers: conv state [inner, conv_kernel] + SSM state [inner, state] per sequence, in the
    // activation dtype (transformers' MambaCache / HybridMambaAttentionDynamicCache allocate them
    // in the model's dtype; kv_dtype does not apply to them).
    const Dims& d = m.dims;
    // Gated delta net / Mamba-2 nodes carry their own state sizes and dtypes (recurrent_state.hpp).
    const int64_t ssm = add(mul(mul(d.ssm_layers, d.ssm_inner), mul(d.ssm_state + d.ssm_conv_kernel, s.compute)),
                            recurrent_state_bytes(m, s.compute));
    // Prefill: the widest block's transient tensors, then the last token's logits (16-bit and
    // the fp32 copy generate() takes). A vision tower runs first, over batch × images × its
    // tokens per image, and its transients are freed before the language model runs.
    int64_t work = 0;
    BlockCostMemo serve_cost(m, s, seq, dseq);
    for (size_t bi = 0; bi < nb; ++bi) {
      const BlockCost& bc = serve_cost(bi);
      work = std::max(work, bc.forward);
      blocks_[bi].acts = 0;
      blocks_[bi].work = bc.forward;
    }
    logits_ = head ? mul(head->out, s.compute + 4) : 0;
    Event prefill, decode;
    prefill.phase = 0;
    prefill.what = "prefill";
    decode.phase = 1;
    decode.what = "decode";
    for (Event* e : {&prefill, &decode}) {
      e->fixed[kWeights] = w;
      e->fixed[kWorkspace] = kLibraryWorkspace;
      e->per_sample[kKv] = kv;
      e->per_sample[kSsm] = ssm;
    }
    prefill.per_sample[kWork] = work;
    prefill.per_sample[kLogits] = logits_;
    // LitGPT's generation, or a split over devices (serve_parallel.hpp): device 0's share.
    const GenerateLayout layout = generate_layout(m, opt, seq);
    const GenerateDevice* d0 = layout.applies ? &layout.per_device.front() : nullptr;
    if (d0) {
      kv_ = d0->kv;
      for (Event* e : {&prefill, &decode}) {
        e->fixed[kWeights] = d0->weights;
        e->per_sample[kKv] = d0->kv;
      }
      if (!d0->load_transient) prefill.fixed[kWork] = d0->transient;
    }
    add_event(prefill);
    add_event(decode);
    if (d0 && d0->kv_build != d0->kv) {
      // sequentially.py's fp32 caches, all allocated before the first forward casts them.
      Event built;
      built.phase = 0;
      built.what = "KV cache allocated (fp32, before the first forward)";
      built.fixed[kWeights] = d0->weights;
      built.fixed[kWorkspace] = kLibraryWorkspace;
      built.per_sample[kKv] = d0->kv_build;
      add_event(built);
    }
    if (d0 && d0->load_transient) {
      // The int8 re-quantization at load, before any cache exists: a phase of its own.
      phase_names_.push_back("load");
      Event load;
      load.phase = int(phase_names_.size()) - 1;
      load.what = "load (bitsandbytes int8 quantization of the widest linear)";
      load.fixed[kWeights] = d0->weights;
      load.fixed[kWork] = d0->transient;
      add_event(load);
    }
    // Per-block weights for pipeline cuts of a served model.
    const int64_t total = std::max<int64_t>(1, m.parameter_count());
    for (size_t bi = 0; bi < nb; ++bi) {
      int64_t p = 0;
      for (const auto& n : m.blocks[bi].nodes) p = add(p, n.params);
      blocks_[bi].weights = blocks_[bi].state = int64_t(double(w) * double(p) / double(total));
      int64_t block_kv = 0;
      for (const auto& n : m.blocks[bi].nodes)
        if (caches_kv(m.blocks[bi], n)) {
          const int64_t held = n.attn.cross ? (n.attn.context > 0 ? n.attn.context : seq)
                                           : (n.attn.window > 0 ? std::min(n.attn.window, seq) : seq);
          block_kv = add(block_kv, mul(held, mul(n.attn.cache_dim, kvb)));
          if (n.attn.compress_ratio > 0)
            block_kv = add(block_kv, mul(seq / n.attn.compress_ratio, mul(n.attn.compressed_dim, kvb)));
        }
      blocks_[bi].acts = block_kv;
    }
    return;
  }

  // ---- Training ------------------------------------------------------------------------------
  phase_names_ = {"forward_end", "backward", "optimizer_step"};
  const bool full = mode == Mode::full;
  const int c = s.compute;
  const bool ckpt_all = s.grad_ckpt;
  const bool cast_cache = full && s.autocast && s.master == 4 && c == 2;
  const int adapter_bytes = s.autocast ? 4 : s.base;  // PEFT keeps adapters fp32 (autocast_adapter_dtype)

  // Which blocks run (a vision tower sees no tokens at images = 0) and which autograd records
  // (a frozen vision tower runs without keeping anything: nothing before it requires grad).
  const std::vector<char> recorded = recorded_blocks(m, opt, mode, s.images);
  std::vector<char> used(nb, 1);
  for (size_t bi = 0; bi < nb; ++bi) used[bi] = block_tokens(m, bi, seq, dseq, s.images) > 0;

  // Per-block state: weights, adapters, trainable tensors, casts. A block that does not run keeps
  // its weights (and adapters) but never gets a gradient, so torch.optim (which skips parameters
  // whose grad is None) makes no states for it, and autocast never casts its weights.
  std::vector<Trainable> trainables;
  std::vector<int64_t> weights(nb, 0), adapters(nb, 0), grads(nb, 0), casts(nb, 0);
  std::vector<std::vector<Trainable>> block_trainables(nb);
  int64_t quantized_weights = 0, idle_trainable = 0;
  for (size_t bi = 0; bi < nb; ++bi) {
    for (const auto& n : m.blocks[bi].nodes) {
      const bool quant = s.quantized && is_quantized(n, opt);
      const int64_t wel = n.op == Op::linear || n.op == Op::head ? mul(mul(n.in, n.out), n.experts) : 0;
      if (full) {
        weights[bi] = add(weights[bi], mul(n.params, s.master));
      } else if (quant) {
        const int64_t qw = std::min(wel, n.params);
        quantized_weights = add(quantized_weights, qw);
        weights[bi] = add(weights[bi], add(quantized_bytes(s.quant, opt.double_quant, qw, mul(n.out, n.experts),
                                                           mul(n.in, n.experts)),
                                           mul(n.params - qw, s.base)));
      } else {
        weights[bi] = add(weights[bi], mul(n.params, s.base));
      }
      // A node under torch.no_grad() gets no gradient, so AdamW never makes its states; its
      // parameters still require grad (counted as trainable, as blocks that do not run are).
      if (full && n.no_grad) idle_trainable = add(idle_trainable, n.params);
      if (full && n.params > 0 && !n.no_grad) {
        // Trainable tensors, roughly as stored (one matrix per linear, vectors for norms/biases).
        if (n.op == Op::linear || n.op == Op::head || n.op == Op::router) {
          // The weight matrix (a router's is [experts, in]: wel counts only the linears'), then the
          // rest (biases, scales) as one vector. A node whose parameters are fewer than its matrix
          // does not own it (a tied head keeps only its bias): the matrix trains at its owner.
          const int64_t matrix = n.op == Op::router ? mul(n.in, n.out) : wel;
          const int64_t wl = matrix <= n.params ? matrix : 0;
          if (wl > 0)
            block_trainables[bi].push_back({n.experts > 1 ? TrainShape{n.experts, n.out, n.in} : TrainShape{n.out, n.in},
                                            s.master, n.op != Op::head});
          if (n.params > wl) block_trainables[bi].push_back({TrainShape{n.params - wl}, s.master});
        } else if (n.op == Op::embedding || n.op == Op::position_embedding) {
          block_trainables[bi].push_back({TrainShape{n.params / std::max<int64_t>(1, n.out), n.out}, s.master});
        } else {
          block_trainables[bi].push_back({TrainShape{n.params}, s.master});
        }
      }
      if (cast_cache && weight_is_cast(n, opt, mode))
        casts[bi] = add(casts[bi], mul(mul(mul(n.in, n.out), n.experts), 2));
      if (!full && s.lora && is_lora_target(n, opt)) {
        add_adapter_tensors(n, s.lora_rank, adapter_bytes, block_trainables[bi]);
        const int64_t ap = lora_adapter_params(n, s.lora_rank);
        adapters[bi] = add(adapters[bi], mul(ap, adapter_bytes));
        if (s.autocast && adapter_bytes == 4 && c == 2) casts[bi] = add(casts[bi], mul(adapter_cast_elements(n, s.lora_rank), 2));
      }
      if (!full && is_saved_module(n, opt)) {
        // PEFT modules_to_save: a trainable copy of the module, in the base's dtype.
        const int64_t p = n.op == Op::head ? add(mul(n.in, n.out), n.params > mul(n.in, n.out) ? n.params - mul(n.in, n.out) : 0)
                                           : n.params;
        const int bytes = s.quantized ? 2 : s.base;
        block_trainables[bi].push_back({TrainShape{p}, bytes});
        adapters[bi] = add(adapters[bi], mul(p, bytes));
      }
    }
    if (!used[bi]) {
      for (const auto& t : block_trainables[bi]) idle_trainable = add(idle_trainable, t.shape.numel());
      block_trainables[bi].clear();
      casts[bi] = 0;
    }
    for (const auto& t : block_trainables[bi]) {
      grads[bi] = add(grads[bi], mul(t.shape.numel(), t.bytes));
      trainables.push_back(t);
    }
  }
  // A tied head: its gradient is allocated when the head's backward runs (before the embedding's).
  if (full && head && head->tied_to.valid()) {
    const int64_t g = mul(mul(head->in, head->out), s.master);
    const auto owner = size_t(head->tied_to.block);
    if (grads[owner] >= g) {
      grads[owner] -= g;
      grads[size_t(head_block)] = add(grads[size_t(head_block)], g);
    }
  }
  int64_t total_weights = 0, total_adapters = 0, total_grads = 0;
  for (size_t bi = 0; bi < nb; ++bi) {
    total_weights = add(total_weights, weights[bi]);
    total_adapters = add(total_adapters, adapters[bi]);
    total_grads = add(total_grads, grads[bi]);
  }
  trainable_ = idle_trainable;
  for (const auto& t : trainables) trainable_ = add(trainable_, t.shape.numel());
  const bool fp32_master = keeps_fp32_master(opt, pol);
  OptimizerCost oc = optimizer_cost(opt, trainables, fp32_master);
  labels_[kWeights] = full ? (s.master == 4 ? "Weights (fp32 master)" : "Weights (bf16)")
                        : mode == Mode::lora ? (s.base == 4 ? "Frozen base (fp32)" : "Frozen base (bf16)")
                                             : std::string("Frozen base (") + quant_name(s.quant) + ")";

  std::vector<BlockCost> bc(nb);
  std::vector<bool> ckpt(nb, false);
  StepSetup unrecorded = s;
  unrecorded.train = false;
  BlockCostMemo recorded_cost(m, s, seq, dseq), unrecorded_cost(m, unrecorded, seq, dseq);
  for (size_t bi = 0; bi < nb; ++bi) {
    bc[bi] = recorded[bi] ? recorded_cost(bi) : unrecorded_cost(bi);
    if (!used[bi]) bc[bi] = BlockCost{};
    if (!recorded[bi]) bc[bi].backward = 0;  // no backward runs through it
    ckpt[bi] = ckpt_all && checkpointable(m.blocks[bi]) && recorded[bi];
  }
  if (pol.ckpt_every > 1) {
    // torchtune checkpoint_wrapper: counts the wrapped layers from 1, checkpoints count % k == 0.
    int64_t count = 0;
    for (size_t bi = 0; bi < nb; ++bi)
      if (ckpt[bi]) ckpt[bi] = ++count % pol.ckpt_every == 0;
  }

  // Logits and loss (transformers >= 4.46: the loss upcasts the 16-bit logits to fp32, and
  // log_softmax keeps its fp32 output; backward holds that output, its incoming gradient and the
  // gradient it produces).
  int64_t lf = 0, lb = 0, lg = 0;
  if (head) {
    const int64_t t = block_tokens(m, size_t(head_block), seq, dseq, s.images);
    const int64_t v = mul(t, head->out);
    const int lc = s.autocast ? c : (full ? s.master : s.base);
    if (s.autocast || lc == 4) {
      lf = mul(v, lc + (lc != 4 ? 4 : 0) + 4);
      lb = mul(v, 12);
    } else {
      // No autocast: log_softmax runs in the logits' own 16-bit dtype.
      lf = mul(v, 2 * lc);
      lb = mul(v, 3 * lc);
    }
    lg = mul(v, lc);
    if (pol.loss != LossKind::full) {
      const LossBytes l = policy_loss_bytes(pol, t, head->out, head->in, lc, s.autocast);
      lf = l.forward;
      lb = l.backward;
      lg = l.grad;
    }
  }
  logits_ = std::max(lf, lb);

  // Where the optimizer's bytes live (stacks.hpp): paged states outside the allocator, offloaded
  // ones on the host; gradients leave block by block when the step runs in backward or offloaded.
  TrainingStepBytes step;
  step.grads_per_block = pol.optimizer_in_bwd || pol.optimizer_offload;
  // torchtune refuses activation offloading without checkpointing (full_finetune_single_device),
  // and Unsloth's offload is part of its checkpointing: it applies under grad_ckpt only.
  step.offload_acts = pol.activation_offload && s.grad_ckpt;
  if (pol.optimizer_offload) {
    oc = OptimizerCost{};
  } else if (pol.paged_optimizer && (opt.optimizer == Optimizer::adamw || opt.optimizer == Optimizer::adamw8bit)) {
    // bitsandbytes PagedAdamW / PagedAdamW8bit: Optimizer8bit.get_state_buffer pages the states
    // of tensors of 1e5+ elements, smaller ones stay in the torch allocator; 32-bit states are
    // fp32 whatever the parameter's dtype (Optimizer2State.init_state). One kernel: no temporary.
    std::vector<Trainable> large, small;
    for (Trainable t : trainables) {
      t.bytes = 4;
      (t.shape.numel() >= 100000 ? large : small).push_back(t);
    }
    paged_ = optimizer_cost(opt, large, fp32_master).held();
    const OptimizerCost kept = optimizer_cost(opt, small, fp32_master);
    oc = OptimizerCost{kept.states, kept.master, 0};
  }
  step.accum = opt.grad_accum > 1 && !step.grads_per_block;
  Event& base = step.base;
  base.fixed[kWeights] = total_weights;
  base.fixed[kAdapters] = total_adapters;
  base.fixed[kStates] = oc.held();
  master_ = oc.master;
  base.fixed[kWorkspace] = kLibraryWorkspace;
  if (step.accum) base.fixed[kGrads] = total_grads;
  // DistributedDataParallel (gpus > 1) keeps gradient buckets: one more copy of the gradients
  // (gradient_as_bucket_view=False, the default), allocated when the model is wrapped.
  if (opt.gpus > 1) base.fixed[kDdp] = total_grads;
  // DeepSpeed ZeRO-1/2 (contiguous_gradients, overlap_comm) allocates two 16-bit buffers of
  // reduce_bucket_size elements at each backward (DeepSpeedZeroOptimizer.backward).
  step.ds_buckets = mul(opt.deepspeed_bucket, 4);
  step.head_block = head_block;
  step.logits_forward = lf;
  // Liger's forward allocates the trained head's weight gradient (zeros_like(weight)) before the
  // backward, which then hands it to the head as its gradient (counted with the gradients there).
  if (head && pol.loss == LossKind::fused && (full || is_saved_module(*head, opt)))
    step.head_grad_early = mul(mul(head->in, head->out), full ? s.master : (s.quantized ? 2 : s.base));
  step.logits_backward = lb;
  step.logits_grad = lg;
  step.total_grads = total_grads;
  step.optimizer_temporaries = oc.temporaries;
  step.blocks.resize(nb);
  for (size_t bi = 0; bi < nb; ++bi) {
    BlockStepBytes& b = step.blocks[bi];
    b.used = used[bi];
    b.recorded = recorded[bi];
    b.ckpt = ckpt[bi];
    b.input = bc[bi].input;
    // torchtitan's op policy: the saved outputs stay until the block's recompute replays them.
    if (ckpt[bi] && pol.ckpt_policy == CkptPolicy::selective_op)
      b.ckpt_kept = op_sac_kept(m, bi, s, seq, dseq, pol.compile);
    b.saved = bc[bi].saved;
    b.fixed = bc[bi].fixed;
    b.casts = casts[bi];
    b.forward = bc[bi].forward;
    b.backward = bc[bi].backward;
    b.dequant_forward = bc[bi].dequant_forward;
    b.dequant_backward = bc[bi].dequant_backward;
    b.grads = grads[bi];
    if (pol.optimizer_in_bwd && !pol.optimizer_offload && !pol.paged_optimizer && !block_trainables[bi].empty()) {
      // One optimizer per parameter (torchtune): the step's temporary is that of one tensor.
      for (const Trainable& t : block_trainables[bi])
        b.step_temp = std::max(b.step_temp, optimizer_cost(opt, {t}, fp32_master).temporaries);
    }
  }
  if (pol.optimizer_in_bwd) step.optimizer_temporaries = 0;
  events_ = training_events(step);
  if (pol.load_phase) {
    // The load comes first: its phase is "load", the step's phases follow.
    phase_names_.insert(phase_names_.begin(), "load");
    for (auto& e : events_) ++e.phase;
    Event load = load_event(m, s, pol, total_weights);
    finish_event(load);
    events_.insert(events_.begin(), load);
  }

  // Per-block profile for multi-card cuts.
  const int64_t total_trainable_bytes = std::max<int64_t>(1, total_grads);
  for (size_t bi = 0; bi < nb; ++bi) {
    BlockMemory& b = blocks_[bi];
    const double share = double(grads[bi]) / double(total_trainable_bytes);
    b.weights = add(weights[bi], adapters[bi]);
    b.gradients = grads[bi];
    b.optimizer = int64_t(double(oc.held() + oc.temporaries) * share);
    b.state = add(add(b.weights, b.gradients), add(b.optimizer, ckpt[bi] ? 0 : add(casts[bi], bc[bi].fixed)));
    int64_t p16 = 0;
    for (const auto& n : m.blocks[bi].nodes) p16 = add(p16, mul(n.params, 2));
    b.gathered = full ? p16 : 0;
    b.acts = ckpt[bi] ? add(bc[bi].input, step.blocks[bi].ckpt_kept) : bc[bi].saved;
    b.work = add(std::max(bc[bi].forward, bc[bi].backward), ckpt[bi] ? bc[bi].saved : 0);
    b.work_fixed = add(std::max(bc[bi].dequant_forward, bc[bi].dequant_backward),
                       ckpt[bi] ? add(casts[bi], bc[bi].fixed) : 0);
    if (int(bi) == head_block) b.work = add(b.work, logits_);
  }
}

const MemoryModel::Event& MemoryModel::peak_event(int64_t batch) const {
  const Event* best = &events_.front();
  int64_t best_bytes = -1;
  for (const auto& e : events_) {
    const int64_t bytes = add(e.fixed_total, mul(e.per_sample_total, batch));
    if (bytes > best_bytes) {
      best_bytes = bytes;
      best = &e;
    }
  }
  return *best;
}

int64_t MemoryModel::peak(int64_t batch) const {
  const Event& e = peak_event(batch);
  return add(e.fixed_total, mul(e.per_sample_total, batch));
}

int64_t MemoryModel::reserved(int64_t batch) const { return reserved_for(peak(batch)); }

int64_t MemoryModel::reserved_for(int64_t p) const {
  return add(add(p, allocator_reserve(p, ov_.allocator_reserve_fraction)), ov_.cuda_context_bytes);
}

double MemoryModel::scaled_bytes(const Event& e, int64_t batch, const std::array<double, 15>& scale, int64_t extra) {
  double bytes = double(extra);
  for (int c = 0; c < kComponents; ++c)
    bytes += scale[size_t(c)] * (double(e.fixed[size_t(c)]) + double(e.per_sample[size_t(c)]) * double(batch));
  return bytes;
}

int64_t MemoryModel::peak_scaled(int64_t batch, const std::array<double, 15>& scale, int64_t extra) const {
  double best = 0;
  for (const auto& e : events_) best = std::max(best, scaled_bytes(e, batch, scale, extra));
  return int64_t(std::ceil(best));
}

int64_t MemoryModel::largest_peak(int64_t capacity) const {
  // reserved_for(p) >= p (context and reserve are never negative), so the answer is in [0, capacity].
  if (capacity < 0 || reserved_for(0) > capacity) return -1;
  // reserved_for(p) = p + ceil(p f / (1 - f)) + context, so p = (capacity - context)(1 - f) but for
  // the rounding: the search starts there.
  const double f = std::max(0.0, ov_.allocator_reserve_fraction);
  const double guess = double(capacity - ov_.cuda_context_bytes) * (1 - f);
  return largest_holding(0, capacity, guess >= 0 && guess < double(capacity) ? int64_t(guess) : 0,
                         [&](int64_t p) { return reserved_for(p) <= capacity; });
}

int64_t MemoryModel::largest_batch(int64_t peak_limit, int64_t limit) const {
  if (limit < 1) return 0;
  int64_t best = limit;
  for (const auto& e : events_) {
    // fixed + b × per_sample <= peak_limit, for b = 1 first (written so nothing overflows).
    if (e.fixed_total > peak_limit - e.per_sample_total) return 0;
    if (e.per_sample_total > 0) best = std::min(best, (peak_limit - e.fixed_total) / e.per_sample_total);
  }
  return best;
}

MemoryPlan MemoryModel::at(int64_t batch) const {
  MemoryPlan plan;
  plan.mode = mode_;
  plan.batch = batch;
  plan.seq = seq_;
  plan.trainable_params = trainable_;
  std::vector<int64_t> phase_peak(phase_names_.size(), 0);
  for (const auto& e : events_)
    phase_peak[size_t(e.phase)] = std::max(phase_peak[size_t(e.phase)], add(e.fixed_total, mul(e.per_sample_total, batch)));
  for (size_t i = 0; i < phase_names_.size(); ++i) plan.phases.push_back({phase_names_[i], phase_peak[i]});
  const Event& e = peak_event(batch);
  plan.peak_phase = phase_names_[size_t(e.phase)];
  plan.peak_event = moment_name(e);
  plan.peak_bytes = add(e.fixed_total, mul(e.per_sample_total, batch));
  for (int c = 0; c < kComponents; ++c) {
    if (!listed(c)) continue;
    if (listed_if_fixed(c) && e.fixed[c] == 0) continue;
    const int64_t bytes = add(e.fixed[c], mul(e.per_sample[c], batch));
    plan.components.push_back({component_id(c, mode_), labels_[size_t(c)], bytes});
  }
  const int64_t reserve = allocator_reserve(plan.peak_bytes, ov_.allocator_reserve_fraction);
  plan.overheads = {{"allocator_reserve", "Caching-allocator reserve", reserve},
                    {"cuda_context", "CUDA context and kernels", ov_.cuda_context_bytes}};
  plan.reserved_bytes = add(add(plan.peak_bytes, reserve), ov_.cuda_context_bytes);
  return plan;
}

std::string MemoryModel::moment_name(const Event& e) const {
  return e.what ? std::string(e.what)
         : e.block >= 0 ? (e.phase == 0 ? "forward of " : "backward of ") + block_names_[size_t(e.block)]
                        : phase_names_[size_t(e.phase)];
}

std::string MemoryModel::component_id_of(int c) const { return component_id(c, mode_); }

bool MemoryModel::listed(int c) const {
  const bool serve_only = c == kKv || c == kSsm;
  return (mode_ == Mode::serve) == serve_only || c == kWeights || c == kWork || c == kLogits || c == kWorkspace;
}

MemoryPlan plan_memory(const Model& m, const Options& opt, Mode mode, int64_t batch, int64_t seq,
                       const Overheads& ov) {
  return MemoryModel(m, opt, mode, seq, ov).at(batch);
}

}  // namespace cardfit

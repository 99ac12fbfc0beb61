// Training and serving memory as a simulation of the phases of a PyTorch step.
#include "memory.hpp"

#include <algorithm>
#include <cmath>

#include "graph_costs.hpp"

namespace cardfit {

namespace {

bool is_lora_target(const Node& n, const Options& opt) {
  if (n.op != Op::linear) return false;
  if (opt.lora_targets.empty()) return n.lora;
  const std::string leaf = n.name.substr(n.name.rfind('.') + 1);
  return std::find(opt.lora_targets.begin(), opt.lora_targets.end(), leaf) != opt.lora_targets.end();
}

struct ParamSplit {
  int64_t total = 0;        // all parameters, tied counted once
  int64_t linear = 0;       // weights of linear layers (quantized by QLoRA, cast by autocast)
  int64_t head_linear = 0;  // the LM head's weight (tied: the embedding's storage)
  int64_t big_tensors = 0;  // parameters in tensors of >= 4096 elements (bitsandbytes 8-bit states)
  int64_t matrix_factored = 0;  // Adafactor's factored second moments (rows + cols per matrix)
};

ParamSplit split_params(const Model& m) {
  ParamSplit p;
  for (const auto& t : m.tensors) {
    if (t.role == Role::head) p.head_linear = checked_add(p.head_linear, t.count());
    if (!t.tied_to.empty()) continue;
    const int64_t n = t.count();
    p.total = checked_add(p.total, n);
    if (t.linear && t.role != Role::head) p.linear = checked_add(p.linear, n);
    if (n >= 4096) p.big_tensors = checked_add(p.big_tensors, n);
    if (t.shape.size() >= 2) {
      const int64_t cols = t.shape.back(), rows = n / cols;
      p.matrix_factored = checked_add(p.matrix_factored, rows + cols);
    } else {
      p.matrix_factored = checked_add(p.matrix_factored, n);
    }
  }
  return p;
}

int64_t mul(int64_t a, int64_t b) { return checked_mul(a, b, "a memory term"); }
int64_t add(int64_t a, int64_t b) { return checked_add(a, b, "a memory term"); }
int64_t bytes_of(double x) { return int64_t(std::ceil(x)); }

// Optimizer state bytes for `n` trainable parameters stored in `param_bytes`.
int64_t optimizer_state_bytes(Optimizer o, const ParamSplit& p, int64_t n, int64_t param_bytes, bool all_params) {
  switch (o) {
    case Optimizer::adamw:
      return mul(n, 2 * param_bytes);
    case Optimizer::adamw8bit: {
      // bitsandbytes: 8-bit states (2 per param) with an fp32 absmax per 256-element block for
      // tensors of at least 4096 elements; smaller tensors keep fp32 states.
      const int64_t big = all_params ? p.big_tensors : n, small = n - big;
      return add(add(mul(big, 2), bytes_of(double(big) * 2 * 4 / 256)), mul(small, 8));
    }
    case Optimizer::adafactor:
      return mul(all_params ? p.matrix_factored : n, 4);
    case Optimizer::sgd:
      return mul(n, param_bytes);
  }
  return 0;
}

struct Activations {
  int64_t layers = 0;   // saved by all blocks except the head
  int64_t one_layer = 0;  // the largest single block (recomputed under checkpointing)
  int64_t checkpoints = 0;  // block inputs kept under gradient checkpointing
  int64_t logits_forward = 0, logits_backward = 0;
};

Activations activations(const Model& m, const Options& opt, int64_t batch, int64_t seq, bool frozen) {
  StepShape s{batch, seq, opt.precision, opt.attention, frozen};
  Activations a;
  const int64_t tokens = mul(batch, seq);
  for (const auto& b : m.blocks) {
    const int64_t saved = block_saved_bytes(b, s);
    a.layers = add(a.layers, saved);
    a.one_layer = std::max(a.one_layer, saved);
    if (b.layer >= 0) a.checkpoints = add(a.checkpoints, mul(tokens, m.dims.hidden * residual_bytes(opt.precision)));
  }
  // Logits in the compute dtype, the fp32 upcast and the fp32 log-softmax kept by cross-entropy;
  // in backward, the fp32 gradient of the log-softmax and of the upcast logits.
  const int64_t v = mul(tokens, m.dims.vocab);
  a.logits_forward = add(mul(v, compute_bytes(opt.precision)), mul(v, 8));
  a.logits_backward = mul(v, 8);
  return a;
}

}  // namespace

int64_t lora_parameter_count(const Model& m, const Options& opt) {
  int64_t n = 0;
  for (const auto& b : m.blocks)
    for (const auto& node : b.nodes)
      if (is_lora_target(node, opt))
        n = add(n, mul(opt.lora_rank, mul(node.in + node.out, node.experts)));
  return n;
}

MemoryModel::MemoryModel(const Model& m, const Options& opt, Mode mode, int64_t seq, const Overheads& ov)
    : opt_(opt), mode_(mode), seq_(seq), ov_(ov) {
  const ParamSplit p = split_params(m);
  if (mode == Mode::serve) {
    const double wb = opt.serve_dtype == WeightDtype::bf16 ? 2 : opt.serve_dtype == WeightDtype::int4 ? 0.5 : 1;
    // int4/int8/fp8 quantize the linear weights (group-wise scales: one fp16 per 128 weights);
    // embeddings and norms stay in bf16.
    weights_ = mul(p.total, 2);
    if (opt.serve_dtype != WeightDtype::bf16)
      weights_ = add(add(bytes_of(double(p.linear) * wb), mul(p.total - p.linear, 2)), bytes_of(double(p.linear) * 2 / 128));
    const int64_t kv_elem = opt.kv_dtype == WeightDtype::fp8 ? 1 : 2;
    for (const auto& b : m.blocks)
      for (const auto& n : b.nodes)
        if (n.op == Op::attention && n.attn.causal && !n.attn.cross) {
          const int64_t held = n.attn.window > 0 ? std::min(n.attn.window, seq) : seq;
          kv_ = add(kv_, mul(held, mul(n.attn.cache_dim, kv_elem)));
        }
    // Prefill: the largest block's transient activations and the last token's fp32 logits.
    StepShape s{1, seq, Precision::bf16, Attention::sdpa, true};
    for (const auto& b : m.blocks) working_ = std::max(working_, block_saved_bytes(b, s));
    working_ = add(working_, mul(m.dims.vocab, 4));
    return;
  }
  const bool mixed = opt.precision == Precision::bf16_mixed || opt.precision == Precision::fp16_mixed;
  const int64_t master = opt.precision == Precision::bf16 ? 2 : 4;
  const Activations a = activations(m, opt, 1, seq, mode != Mode::full);
  int64_t train_bytes = master;
  if (mode == Mode::full) {
    weights_ = mul(p.total, master);
    trainable_ = p.total;
    if (mixed) cast_cache_ = mul(add(p.linear, p.head_linear), 2);  // autocast's 16-bit weight copies
  } else {
    // LoRA: the frozen base in bf16. QLoRA: linear weights in NF4 (0.5 B) with double-quantized
    // constants (1 B per 64 weights + 4 B per 256 blocks); embeddings, norms and head in bf16.
    if (mode == Mode::lora) {
      weights_ = mul(p.total, 2);
    } else {
      weights_ = add(add(bytes_of(double(p.linear) * 0.5), bytes_of(double(p.linear) / 64 + double(p.linear) / 64 / 256 * 4)),
                     mul(p.total - p.linear, 2));
      int64_t largest = 0;
      for (const auto& b : m.blocks)
        for (const auto& n : b.nodes)
          if (n.op == Op::linear) largest = std::max(largest, mul(n.in, mul(n.out, n.experts)));
      cast_cache_ = mul(largest, 2);  // one dequantized weight at a time
    }
    trainable_ = lora_parameter_count(m, opt);
    train_bytes = 4;  // PEFT keeps adapters in fp32 under autocast
  }
  adapters_ = mode == Mode::full ? 0 : mul(trainable_, train_bytes);
  grads_ = mul(trainable_, train_bytes);
  states_ = optimizer_state_bytes(opt.optimizer, p, trainable_, train_bytes, mode == Mode::full);
  // torch's foreach AdamW materialises one temporary the size of a state (sqrt of exp_avg_sq).
  opt_temp_ = opt.optimizer == Optimizer::adamw ? mul(trainable_, train_bytes) : 0;
  head_grad_ = mode == Mode::full ? mul(p.head_linear, train_bytes) : 0;
  acts_ = opt.grad_ckpt ? add(a.checkpoints, a.one_layer) : a.layers;
  logits_fwd_ = a.logits_forward;
  logits_bwd_ = a.logits_backward;
}

MemoryPlan MemoryModel::at(int64_t batch) const {
  MemoryPlan plan;
  plan.mode = mode_;
  plan.batch = batch;
  plan.seq = seq_;
  plan.trainable_params = trainable_;
  auto& c = plan.components;
  if (mode_ == Mode::serve) {
    const int64_t kv = mul(kv_, batch), working = mul(working_, batch);
    c = {{"weights", std::string("Weights (") + weight_dtype_name(opt_.serve_dtype) + ")", weights_},
         {"kv_cache", "KV cache", kv},
         {"prefill_working_set", "Prefill working set", working}};
    plan.phases = {{"decode", add(weights_, kv)}, {"prefill", add(add(weights_, kv), working)}};
  } else {
    const int64_t acts = mul(acts_, batch), lf = mul(logits_fwd_, batch), lb = mul(logits_bwd_, batch);
    const int64_t resident = add(add(weights_, adapters_), states_);
    const int64_t fwd = add(add(add(resident, cast_cache_), acts), lf);
    const int64_t bwd = add(add(fwd, lb), head_grad_);
    const int64_t step = add(add(resident, grads_), opt_temp_);
    plan.phases = {{"forward_end", fwd}, {"backward", bwd}, {"optimizer_step", step}};
    const bool at_step = step >= bwd;
    c = {{"weights", mode_ == Mode::full ? "Weights" : mode_ == Mode::lora ? "Frozen base (bf16)" : "Frozen base (NF4)", weights_},
         {"adapters", "LoRA adapters", adapters_},
         {"optimizer_states", std::string("Optimizer states (") + optimizer_name(opt_.optimizer) + ")", states_},
         {"weight_cast_cache", mode_ == Mode::qlora ? "Dequantized weight" : "Autocast weight copies", at_step ? 0 : cast_cache_},
         {"activations", opt_.grad_ckpt ? "Activations (checkpointed)" : "Activations", at_step ? 0 : acts},
         {"logits", "Logits and loss", at_step ? 0 : add(lf, lb)},
         {"gradients", "Gradients", at_step ? grads_ : head_grad_},
         {"optimizer_temporaries", "Optimizer temporaries", at_step ? opt_temp_ : 0}};
  }
  auto peak = std::max_element(plan.phases.begin(), plan.phases.end(),
                               [](const Phase& x, const Phase& y) { return x.bytes < y.bytes; });
  plan.peak_phase = peak->name;
  plan.peak_bytes = peak->bytes;
  const int64_t reserve = bytes_of(double(plan.peak_bytes) * ov_.allocator_reserve_fraction);
  plan.reserved_bytes = add(add(plan.peak_bytes, reserve), ov_.cuda_context_bytes);
  c.push_back({"allocator_reserve", "Allocator reserve", reserve});
  c.push_back({"cuda_context", "CUDA context", ov_.cuda_context_bytes});
  return plan;
}

MemoryPlan plan_memory(const Model& m, const Options& opt, Mode mode, int64_t batch, int64_t seq,
                       const Overheads& ov) {
  return MemoryModel(m, opt, mode, seq, ov).at(batch);
}

}  // namespace cardfit

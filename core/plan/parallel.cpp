// Per-rank memory of multi-GPU training. Each rule names the framework code it was read from
// (PyTorch torch/distributed/fsdp, DeepSpeed deepspeed/runtime/zero at commit edaa722, 2026-08-22);
// docs/memory-model.md "Multi-GPU" has the same rules in prose.
#include "parallel.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "../error.hpp"
#include "graph_costs.hpp"
#include "stacks.hpp"

namespace cardfit {

namespace {
using M = MemoryModel;
using R = RankModel;

int64_t add(int64_t a, int64_t b) { return checked_add(a, b, "a per-rank memory term"); }
int64_t mul(int64_t a, int64_t b) { return checked_mul(a, b, "a per-rank memory term"); }
// a × num / den, rounded up, exact in 128 bits (den > 0).
int64_t scale_exact(int64_t a, int64_t num, int64_t den) {
  if (den <= 0) return 0;
  const __int128 x = (__int128(a) * num + den - 1) / den;
  return x > INT64_MAX ? throw Error(ErrorCode::overflow, "A per-rank memory term exceeds 64 bits.") : int64_t(x);
}
std::string num_text(double x) {
  const int64_t i = int64_t(x);
  return double(i) == x ? std::to_string(i) : std::to_string(x);
}
int64_t scale_by(int64_t bytes, double f) { return f == 1.0 ? bytes : int64_t(std::ceil(double(bytes) * f)); }

// DeepSpeed defaults (deepspeed/runtime/zero/config.py, DeepSpeedZeroConfig).
constexpr int64_t kReduceBucket = 500000000;        // reduce_bucket_size 5e8
constexpr int64_t kPrefetchBucket = 50000000;       // stage3_prefetch_bucket_size 5e7
constexpr int64_t kMaxLive = 1000000000;            // stage3_max_live_parameters 1e9
constexpr int64_t kMaxReuse = 1000000000;           // stage3_max_reuse_distance 1e9
constexpr int64_t kPersistence = 100000;            // stage3_param_persistence_threshold 1e5
constexpr int64_t kSubGroup = 1000000000;           // sub_group_size 1e9
constexpr int64_t kNodeCards = 8;

bool is_fsdp(Parallel p) { return p == Parallel::fsdp || p == Parallel::fsdp2 || p == Parallel::hsdp; }
bool is_zero(Parallel p) { return p == Parallel::zero1 || p == Parallel::zero2 || p == Parallel::zero3; }
bool is_fsdp1(Parallel p) { return p == Parallel::fsdp || p == Parallel::hsdp; }  // FlatParameter units

// What DeepSpeedZeroOptimizer.step (stage_1_and_2.py, v0.9.0 and edaa722) holds beyond the rank's
// state at its three moments, in order: the norm (get_grad_norm_direct: g.data.double() of each
// in-partition gradient, one tensor at a time, the 16-bit gradients live), the flatten
// (self.flatten(averaged_gradients).to(fp32): the flat 16-bit copy and the fp32 partition, the
// gradients live) and the optimizer (averaged_gradients freed; the fp32 partition and the
// optimizer's temporaries). The plan takes the largest.
struct StepMoment {
  int64_t grads = 0, fp32 = 0, copies = 0;
  int64_t total() const { return add(add(grads, fp32), copies); }
};
StepMoment zero12_step(int64_t grads16, int64_t flat16, int64_t fp32, int64_t norm_copy, int64_t optimizer_temps) {
  const StepMoment norm{grads16, 0, norm_copy}, flat{grads16, fp32, flat16},
      optimizer{0, add(fp32, optimizer_temps), 0};
  StepMoment best = norm;
  for (const StepMoment& m : {flat, optimizer})
    if (m.total() > best.total()) best = m;
  return best;
}

[[noreturn]] void bad(const std::string& field, const std::string& message) {
  throw Error(ErrorCode::option_value, message, field);
}
}  // namespace

ParallelLayout parallel_layout(const Model& m, const Options& o, Parallel strategy, int64_t gpus) {
  ParallelLayout l;
  l.strategy = strategy;
  l.gpus = gpus;
  l.tp = o.tp;
  l.cp = o.cp;
  l.ep = o.ep;
  l.reshard_after_forward = o.reshard_after_forward;
  l.offload_optimizer = o.offload_optimizer;
  l.offload_params = o.offload_params;
  // The single-card optimizer offload (a stack policy) and the per-rank one are one DeepSpeed
  // setting modelled twice; planning both would drop the states from the ranks' host bytes.
  if (o.optimizer_offload.value_or(false))
    bad("optimizer_offload", "Option optimizer_offload is the single-card offload; with parallel set, use offload_optimizer "
                             "(the per-rank offload of the master weights, states and fp32 gradients).");
  const std::string n = std::to_string(gpus);
  if (gpus % (l.tp * l.cp) != 0)
    bad(l.tp > 1 ? "tp" : "cp", "Options tp × cp (" + std::to_string(l.tp) + " × " + std::to_string(l.cp) +
                                    ") must divide gpus (" + n + ").");
  l.dp = gpus / (l.tp * l.cp);
  if (l.ep > 1) {
    if (m.dims.experts <= 0) bad("ep", "Option ep needs a mixture-of-experts model; this one has no experts.");
    if (m.dims.experts % l.ep != 0)
      bad("ep", "Option ep (" + std::to_string(l.ep) + ") must divide the model's experts (" +
                    std::to_string(m.dims.experts) + ").");
    if (l.dp % l.ep != 0)
      bad("ep", "Option ep (" + std::to_string(l.ep) + ") must divide the data-parallel ranks gpus / (tp × cp) = " +
                    std::to_string(l.dp) + " (expert-parallel ranks come from the data-parallel group).");
  }
  if (l.tp > 1) {
    // Megatron-LM splits attention heads and KV groups over TP ranks (num_query_groups %
    // tensor_model_parallel_size == 0 is asserted): KV heads are not replicated.
    if (m.dims.heads <= 0 || m.dims.heads % l.tp != 0)
      bad("tp", "Option tp (" + std::to_string(l.tp) + ") must divide the attention heads (" +
                    std::to_string(m.dims.heads) + ").");
    const int64_t kv = m.dims.kv_heads > 0 ? m.dims.kv_heads : m.dims.heads;
    if (kv % l.tp != 0)
      bad("tp", "Option tp (" + std::to_string(l.tp) + ") must divide the KV heads (" + std::to_string(kv) +
                    "): Megatron-LM splits KV groups over TP ranks and does not replicate them.");
    if (m.dims.intermediate > 0 && m.dims.intermediate % l.tp != 0)
      bad("tp", "Option tp (" + std::to_string(l.tp) + ") must divide the MLP width (" +
                    std::to_string(m.dims.intermediate) + ").");
  }
  if (l.cp > 1 && o.seq > 0 && o.seq % (2 * l.cp) != 0)
    bad("cp", "Option cp (" + std::to_string(l.cp) + "): seq (" + std::to_string(o.seq) +
                  ") must be a multiple of 2 × cp (load-balanced ring attention splits it into 2 × cp chunks).");
  l.shard = l.dp;
  // FSDP shards over the data-parallel and context-parallel ranks together: CP ranks hold the same
  // parameters, so torchtitan applies fully_shard on the flattened "dp_shard_cp" mesh (HSDP:
  // ("dp_replicate", "dp_shard_cp")); torchtitan/models/llama3/infra/parallelize.py parallelize_llama,
  // read 2026-12-01. ZeRO partitions over lay.dp as before.
  if (is_fsdp(strategy)) l.shard = l.dp * l.cp;
  if (strategy == Parallel::hsdp) {
    const int64_t ranks = l.dp * l.cp;
    l.shard = o.shard_group > 0 ? o.shard_group : std::min<int64_t>(kNodeCards, ranks);
    if (ranks % l.shard != 0)
      bad("shard_group", "Option shard_group (" + std::to_string(l.shard) + ") must divide the data-parallel × " +
                             "context-parallel ranks (" + std::to_string(ranks) + ").");
  } else if (o.shard_group > 0 && o.parallel == strategy) {
    bad("shard_group", "Option shard_group applies to parallel hsdp only.");
  }
  if (l.reshard_after_forward > 1) {
    if (strategy != Parallel::fsdp2 && o.parallel == strategy)
      bad("reshard_after_forward", "Option reshard_after_forward > 1 (an int) is FSDP2's (parallel fsdp2).");
    if (l.shard % l.reshard_after_forward != 0 && o.parallel == strategy)
      bad("reshard_after_forward", "Option reshard_after_forward (" + std::to_string(l.reshard_after_forward) +
                                       ") must divide the shard ranks (" + std::to_string(l.shard) + ").");
  }
  if (o.parallel == strategy && sharded_qlora(o) && strategy == Parallel::fsdp2 && o.qlora_quant != QuantKind::nf4)
    bad("qlora_quant", "QLoRA under FSDP2 (parallel fsdp2) is planned as torchtune's: torchao NF4Tensor weights "
                       "sharded on dim 0 with their scalers; qlora_quant must be nf4.");
  if (o.parallel == strategy && sharded_qlora(o) && (is_fsdp1(strategy) || strategy == Parallel::zero3)) {
    // FSDP1 flattens a unit's parameters into one FlatParameter of one floating dtype
    // (_flat_param.py _validate_tensors_to_flatten): bitsandbytes 4-bit storage in
    // bnb_4bit_quant_storage can join the unit's 16-bit norms; int8 and GPTQ's int32 cannot, and
    // prepare_model_for_kbit_training's fp32 norms cannot sit beside 16-bit storage.
    // ZeRO-3 partitions floating-point parameters (partition_parameters.py), the storage included.
    if (o.qlora_quant != QuantKind::nf4 && o.qlora_quant != QuantKind::fp4)
      bad("qlora_quant", "QLoRA under FSDP (parallel fsdp, hsdp) or ZeRO-3 needs a bitsandbytes 4-bit base (qlora_quant "
                         "nf4 or fp4, stored in bnb_4bit_quant_storage): each unit or parameter is sharded as one "
                         "floating-point tensor.");
    if (is_fsdp1(strategy) && o.kbit_upcast.value_or(false))
      bad("kbit_upcast", "QLoRA under FSDP (parallel fsdp, hsdp) keeps the non-quantized weights 16-bit (kbit_upcast "
                         "false): FSDP flattens a unit's 4-bit storage and norms into one tensor of one dtype, so "
                         "TRL skips prepare_model_for_kbit_training for sharded QLoRA.");
  }
  if (o.parallel == strategy && sharded_qlora(o) && (strategy == Parallel::zero1 || strategy == Parallel::zero2) &&
      o.kbit_upcast.value_or(false))
    bad("kbit_upcast", "QLoRA under ZeRO-1/2 in 16 bit keeps the non-quantized weights 16-bit (kbit_upcast false): "
                       "DeepSpeed's engine casts the module to its 16-bit dtype (module.bfloat16() or half()) after "
                       "prepare_model_for_kbit_training's upcast.");
  if (o.parallel == strategy) {
    if (l.offload_params && !(strategy == Parallel::zero3 || is_fsdp(strategy)))
      bad("offload_params", "Option offload_params needs parallel zero3 (offload_param) or fsdp/fsdp2/hsdp (CPUOffload).");
    if (l.offload_optimizer && !is_zero(strategy))
      bad("offload_optimizer", std::string("Option offload_optimizer is DeepSpeed's (parallel zero1, zero2, zero3)") +
                                   (is_fsdp(strategy) ? "; FSDP offloads parameters with their gradients and optimizer: "
                                                        "offload_params." : "."));
  }
  return l;
}

RankModel::RankModel(const Model& m, const Options& opt, const MemoryModel& single, const ParallelLayout& lay)
    : single_(single), lay_(lay) {
  // QLoRA (DDP, FSDP1; plan_parallel): the adapters train as LoRA's; the 4-bit base is the single
  // card's, whole on every DDP replica, flattened and sharded per unit under FSDP1.
  lora_ = opt.mode == Mode::lora || opt.mode == Mode::qlora;
  peft_fsdp1_ = lora_ && is_fsdp1(lay.strategy);
  const bool qlora = opt.mode == Mode::qlora;
  // QLoRA whose 4-bit storage a rank counts as stored data beside a whole QuantState: sharded as
  // 16-bit elements in FSDP1's FlatParameters and ZeRO-3's partitions (PEFT's recipes,
  // bnb_4bit_quant_storage bf16), whole in ZeRO-1/2's model in its own bytes (uint8 by default).
  const bool zero12 = lay.strategy == Parallel::zero1 || lay.strategy == Parallel::zero2;
  const bool stored_4bit = qlora && (peft_fsdp1_ || lay.strategy == Parallel::zero3 || zero12);
  // QLoRA: the setup the single card's model was built with (memory.cpp plans effective_options).
  const Options setup_options = qlora ? effective_options(opt) : opt;  // named: the setup points at it
  const StepSetup s = make_setup(m, setup_options, lora_ ? opt.mode : Mode::full);
  // memory.cpp: without autocast, mixed precision keeps an fp32 master inside the optimizer's states.
  lora_master_ = lora_ && keeps_fp32_master(opt, resolve_policies(opt));
  // LoRA: the optimizer's master, states and gradients are over the adapters only (the HF Trainer
  // hands DeepSpeed the parameters that require grad); their single-card dtype is the adapters'.
  master_ = lora_ ? (s.autocast ? 4 : s.base) : s.master;
  accum_ = opt.grad_accum > 1;
  compute_ = s.compute;
  flat_bytes_ = qlora ? s.compute : s.base;  // QLoRA: bnb_4bit_quant_storage, the compute dtype
  const auto& events = single.events();
  // A load phase (stacks.hpp load_phase) comes first and shifts the step's phases by one; the
  // step's state is read from its first forward moment, after the load.
  phase_offset_ = !single.phase_names().empty() && single.phase_names().front() == "load" ? 1 : 0;
  const M::Event* first = &events.front();
  for (const auto& e : events)
    if (e.phase == phase_offset_) {
      first = &e;
      break;
    }
  base_weights_ = first->fixed[M::kWeightsC];
  adapter_weights_ = first->fixed[M::kAdaptersC];
  weights_ = add(base_weights_, adapter_weights_);
  states_ = first->fixed[M::kStatesC];
  single_master_ = single.master_bytes();
  // DeepSpeed with torch_adam: torch.optim.AdamW; torch 1.13 defaults foreach to False (the
  // single-tensor loop), which optimizer_impl forloop stands for. Otherwise FusedAdam, no temporary.
  torch_adam_ = opt.optimizer == Optimizer::adamw && opt.optimizer_impl == OptimizerImpl::forloop;
  for (const auto& e : events)
    if (e.phase == 2 + phase_offset_) {
      grads_ = e.fixed[M::kGradsC];
      temps_ = e.fixed[M::kOptTempC];
    }
  const Parallel st = lay.strategy;
  const size_t nb = m.blocks.size();
  elems_.assign(nb, 0);
  shard_.assign(nb, 0);
  gather_.assign(nb, 0);
  module_.assign(nb, 0);
  unit_.assign(nb, 0);
  train_.assign(nb, 0);
  std::map<int, int64_t> expert_by_layer;  // this rank's experts (after ep), per layer
  // LoRA under FSDP2, per layer: adapter elements, and their dim-0 shards and all-gather outputs.
  // PEFT's lora_A is an nn.Linear(in, r) (weight r × in: dim 0 is the rank), lora_B an
  // nn.Linear(r, out) (weight out × r); each is its own DTensor, chunked on dim 0 over the shard
  // ranks and padded to ceil(dim0 / N) rows (_fully_shard/_fsdp_param.py _init_sharded_param).
  std::map<int, int64_t> train_by_layer;
  std::map<int, std::pair<int64_t, int64_t>> adapter_by_layer;
  for (size_t b = 0; b < nb; ++b) {
    block_names_.push_back(m.blocks[b].name);
    unit_[b] = m.blocks[b].layer >= 0;
    for (const auto& n : m.blocks[b].nodes) {
      full_elems_ = add(full_elems_, n.params);
      // Megatron TP: column/row-parallel linears and the vocab-parallel embedding and head split
      // over tp; norms, routers and biases of replicated layers stay whole. MoE experts over ep.
      int64_t e = n.params;
      if (stored_4bit && is_quantized(n, opt)) {
        // bitsandbytes packs the 4-bit data into bnb_4bit_quant_storage elements (the compute dtype:
        // FSDP1 flattens it with the unit's norms, ZeRO-3 partitions it); the QuantState is a plain
        // attribute of the Params4bit, which neither shards (fsdp_qlora train.py: "FSDP only syncs
        // parameters and buffers"): whole on every rank.
        const int64_t qw = std::min(mul(mul(n.in, n.out), n.experts), n.params);
        const FourBitBytes fb = four_bit_bytes(opt.double_quant, qw);
        e = add(ceil_div(fb.data, flat_bytes_), n.params - qw);
        quant_constants_ = add(quant_constants_, fb.constants);
        storage_elems_ = add(storage_elems_, ceil_div(fb.data, flat_bytes_));
        storage_bytes_ = add(storage_bytes_, fb.data);
      } else if (n.experts > 1) {
        e = ceil_div(e, lay.ep);
        expert_by_layer[m.blocks[b].layer] += e;
      } else if (n.op == Op::linear || n.op == Op::head || n.op == Op::embedding) {
        e = ceil_div(e, lay.tp);
      }
      // A LoRA adapter (memory.cpp lora_adapter_params: r × (in + out) per expert) is a parameter of
      // its module: partitioned and gathered with it, and the only one that trains.
      if (lora_ && is_lora_target(n, opt)) {
        const LoraDims d = lora_dims(n);
        largest_grad_ = std::max(largest_grad_, mul(opt.lora_rank, std::max(d.in, d.out)));  // lora_A or lora_B
        const int64_t a = mul(opt.lora_rank, mul(d.in + d.out, n.experts));
        if (!peft_fsdp1_) e = add(e, a);  // FSDP1 under the HF Trainer: the adapters are units of their own
        train_[b] = add(train_[b], a);
        train_by_layer[m.blocks[b].layer] += a;
        const int64_t ns = lay.shard, r = opt.lora_rank;
        // FSDP1: lora_A and lora_B are FlatParameters of their own, each padded to a multiple of the
        // ranks (memory.cpp add_adapter_tensors: experts × r by in, experts × out by r).
        const int64_t sh =
            peft_fsdp1_ ? add(ceil_div(mul(mul(n.experts, r), d.in), ns), ceil_div(mul(mul(n.experts, d.out), r), ns))
                        : mul(add(mul(ceil_div(r, ns), d.in), mul(ceil_div(d.out, ns), r)), n.experts);
        adapter_by_layer[m.blocks[b].layer].first += sh;
        adapter_by_layer[m.blocks[b].layer].second += mul(sh, ns);
        full_elems_ = add(full_elems_, a);
      }
      elems_[b] = add(elems_[b], e);
      module_[b] = std::max(module_[b], e);
    }
    total_train_ = add(total_train_, train_[b]);
    total_elems_ = add(total_elems_, elems_[b]);
  }
  // Full fine-tune: the largest trainable tensor (a tied head is its embedding); TP splits it.
  if (!lora_) {
    for (const auto& t : m.tensors)
      if (t.tied_to.empty()) largest_grad_ = std::max(largest_grad_, ceil_div(t.each(), lay.tp));
    if (m.tensors.empty())
      for (int64_t e : module_) largest_grad_ = std::max(largest_grad_, e);
  }
  const int64_t ns = lay.shard;
  // Per-tensor sharding (FSDP2 dim-0 chunks, ZeRO-3 per-parameter partitions) needs the tensors
  // grouped as the blocks are; with TP/EP, or where the grouping does not match, flat per block.
  std::map<int, int64_t> block_sum;
  for (size_t b = 0; b < nb; ++b) block_sum[m.blocks[b].layer] += elems_[b];
  // (QLoRA's storage is not its tensors' element count: ZeRO-3 then partitions per block.)
  bool per_tensor = lay.tp == 1 && lay.ep == 1 && (st == Parallel::fsdp2 || st == Parallel::zero3) && !stored_4bit;
  if (per_tensor) {
    // Summed per layer in a vector indexed by layer + 1 (a model may hold tens of thousands of
    // expert tensors, and the smallest-N search builds one rank model per probe).
    int max_layer = -1;
    for (const auto& t : m.tensors) max_layer = std::max(max_layer, t.layer);
    for (const auto& [layer, e] : block_sum) max_layer = std::max(max_layer, layer);
    std::vector<int64_t> tensor_sum(size_t(max_layer + 2), 0);
    for (const auto& t : m.tensors)
      if (t.tied_to.empty() && t.layer >= -1) tensor_sum[size_t(t.layer + 1)] += t.count();
    if (lora_ && st == Parallel::fsdp2)  // the adapters are tensors of their layers too
      for (const auto& [layer, a] : train_by_layer)
        if (layer >= -1 && size_t(layer + 1) < tensor_sum.size()) tensor_sum[size_t(layer + 1)] += a;
    std::vector<int64_t> blocks_by_layer(tensor_sum.size(), 0);
    for (const auto& [layer, e] : block_sum)
      if (layer >= -1) blocks_by_layer[size_t(layer + 1)] = e;
    per_tensor = tensor_sum == blocks_by_layer;
  }
  // Per layer (-1: the root, every block outside the repeated layers): shard and gathered elements.
  std::map<int, std::pair<int64_t, int64_t>> by_layer;
  if (st == Parallel::fsdp2 && per_tensor) {
    // FSDP2 (_fully_shard/_fsdp_param.py): each parameter chunked on dim 0 over the shard ranks,
    // padded to ceil(dim0 / N) rows; the all-gather output holds N padded chunks.
    for (const auto& t : m.tensors) {
      if (!t.tied_to.empty()) continue;
      const int64_t d0 = t.shape.empty() ? 1 : t.shape[0], rest = d0 > 0 ? t.each() / d0 : 0;
      const int64_t shard = mul(mul(ceil_div(d0, ns), rest), t.copies);  // each expert its own parameter
      by_layer[t.layer].first += shard;
      by_layer[t.layer].second += mul(shard, ns);
    }
    if (lora_)
      for (const auto& [layer, sg] : adapter_by_layer) {
        by_layer[layer].first += sg.first;
        by_layer[layer].second += sg.second;
      }
  } else if (st == Parallel::zero3 && per_tensor) {
    // ZeRO-3 (partition_parameters.py _partition_param): each parameter padded to a multiple of the
    // ranks and split evenly: ceil(numel / N) elements per rank. Parameters of at most
    // stage3_param_persistence_threshold elements also stay whole on every rank (ds_persist).
    for (const auto& t : m.tensors) {
      if (!t.tied_to.empty()) continue;
      by_layer[t.layer].first += mul(ceil_div(t.each(), ns), t.copies);  // each expert its own parameter
      if (t.each() <= kPersistence) persistent_ = add(persistent_, t.count());
    }
  } else {
    // FSDP1 (_flat_param.py FlatParamHandle._get_shard): one flat parameter per wrapped unit,
    // padded to a multiple of the world size: ceil(numel / N) per rank. ZeRO-3 without per-tensor
    // shapes: the same per block. ZeRO-1/2 pad the flat group (below).
    // Expert parallel: a rank holds its ep-slice of the experts whole within its expert group, so
    // the data-parallel sharding of expert weights runs over the dp / ep replicas of that slice
    // (Megatron's expert-data-parallel group): per rank the experts are ÷ dp as without EP, and
    // they are gathered only over dp / ep ranks.
    const int64_t nse = std::max<int64_t>(1, ns / lay.ep);
    for (const auto& [layer, e] : block_sum) {
      const int64_t ex = expert_by_layer.count(layer) ? expert_by_layer[layer] : 0, dense = e - ex;
      by_layer[layer].first = add(ceil_div(dense, ns), ceil_div(ex, nse));
      by_layer[layer].second = add(mul(ceil_div(dense, ns), ns), mul(ceil_div(ex, nse), nse));
    }
    if (st == Parallel::zero3)
      for (const auto& b : m.blocks)
        for (const auto& n : b.nodes)
          if (n.params <= kPersistence && n.experts <= 1 && n.op == Op::norm) persistent_ = add(persistent_, n.params);
  }
  // QLoRA under FSDP2 (torchtune): each NF4Tensor is chunked on dim 0 with its scalers and
  // factors (torchao nf4tensor.py nf4_split) and all-gathered as its inner 4-bit, int8 and fp32
  // tensors (fsdp_pre_all_gather), so a unit gathers its layer's stored bytes, not 16-bit elements:
  // the gathered counts become those bytes (the single card's, by the padding's share) in units
  // of the compute dtype, which the moments multiply by.
  if (opt.mode == Mode::qlora && st == Parallel::fsdp2) {
    std::map<int, int64_t> stored;
    for (size_t b = 0; b < nb; ++b) stored[m.blocks[b].layer] += single.blocks()[b].weights;
    for (auto& [layer, sg] : by_layer)
      sg.second = ceil_div(scale_exact(stored[layer], sg.second, std::max<int64_t>(1, block_sum[layer])), compute_);
  }
  // Attribute a layer's shard to its first block (a unit reduce-scatters once its whole backward
  // is done) and its gathered elements likewise.
  std::map<int, bool> seen;
  for (size_t b = 0; b < nb; ++b) {
    const int layer = m.blocks[b].layer;
    if (layer < 0) continue;
    if (!seen[layer]) {
      shard_[b] = by_layer[layer].first;
      gather_[b] = by_layer[layer].second;
      seen[layer] = true;
    }
  }
  root_gather_ = by_layer.count(-1) ? by_layer[-1].second : 0;
  for (const auto& [layer, sg] : by_layer) total_shard_ = add(total_shard_, sg.first);
  if (st == Parallel::zero1 || st == Parallel::zero2) {
    // stage_1_and_2.py: one flat group padded to a multiple of nccl_start_alignment_factor (2) ×
    // the data-parallel ranks, partitioned evenly.
    int64_t experts = 0;
    for (const auto& [layer, e] : expert_by_layer) experts = add(experts, e);
    const int64_t edp = std::max<int64_t>(1, lay.dp / lay.ep);  // expert-data-parallel ranks
    total_shard_ = add(mul(ceil_div(total_elems_ - experts, 2 * lay.dp), 2), ceil_div(experts, edp));
    for (size_t b = 0; b < nb; ++b) {
      const int layer = m.blocks[b].layer;
      const int64_t ex = expert_by_layer.count(layer) ? expert_by_layer[layer] : 0;
      shard_[b] = add(ceil_div(elems_[b] - std::min(ex, elems_[b]), lay.dp), ceil_div(std::min(ex, elems_[b]), edp));
    }
  }
  if (lora_) {
    // The optimizer's group is the adapters: ZeRO-1/2 pad that flat group to 2 × dp and partition it
    // (stage_1_and_2.py), ZeRO-3 each parameter ceil(numel / N) (partition_parameters.py; summed here
    // per block, as the flat path sums the base: padding within a block is not split out).
    train_shard_ = st == Parallel::zero3 ? 0 : mul(ceil_div(total_train_, 2 * lay.dp), 2);
    train_after_.assign(nb + 1, 0);
    for (size_t b = nb; b-- > 0;) {
      const int64_t next = b + 1 < nb ? ceil_div(train_[b + 1], ns) : 0;
      train_after_[b] = add(train_after_[b + 1], next);
      if (st == Parallel::zero3) train_shard_ = add(train_shard_, ceil_div(train_[b], ns));
    }
    if (is_fsdp(st)) {
      // FSDP: the adapters' shards per unit (FSDP2: dim-0 chunks; flat per layer for FSDP1, which
      // plan_parallel refuses for LoRA, or where the tensors do not group as the blocks), reduce-scattered once the unit's backward is done, as the base is
      // gathered: on the unit's first block.
      train_unit_shard_.assign(nb, 0);
      train_unit_gather_.assign(nb, 0);
      train_shard_ = 0;
      std::map<int, bool> first_seen;
      for (size_t b = 0; b < nb; ++b) {
        const int layer = m.blocks[b].layer;
        if (first_seen[layer]) continue;
        first_seen[layer] = true;
        const int64_t t = train_by_layer.count(layer) ? train_by_layer[layer] : 0;
        const auto sg = (per_tensor || peft_fsdp1_) && adapter_by_layer.count(layer) ? adapter_by_layer[layer]
                                                                    : std::make_pair(ceil_div(t, ns), mul(ceil_div(t, ns), ns));
        train_unit_shard_[b] = sg.first;
        train_unit_gather_[b] = sg.second;
        train_shard_ = add(train_shard_, sg.first);
      }
      for (size_t b = nb; b-- > 0;)
        train_after_[b] = add(train_after_[b + 1], b + 1 < nb ? train_unit_shard_[b + 1] : 0);
    }
  }
  if (st == Parallel::none || st == Parallel::ddp) {
    total_shard_ = total_elems_;
    for (size_t b = 0; b < nb; ++b) shard_[b] = elems_[b];
  }
  // Forward-order neighbours among the layer units (prefetch: one more unit in flight).
  next_unit_.assign(nb, -1);
  prev_unit_.assign(nb, -1);
  int64_t last = -1;
  for (size_t b = 0; b < nb; ++b) {
    prev_unit_[b] = last;
    if (gather_[b] > 0) last = int64_t(b);
  }
  last = -1;
  for (size_t b = nb; b-- > 0;) {
    next_unit_[b] = last;
    if (gather_[b] > 0) last = int64_t(b);
  }
  // Running sums: shards of units whose backward is done (first block > i), the root's gradients
  // of blocks >= i, units whose forward is done (first block < i), ZeRO-3 blocks kept by reuse.
  shard_after_.assign(nb + 1, 0);
  root_grad_after_.assign(nb + 1, 0);
  for (size_t b = nb; b-- > 0;) {
    shard_after_[b] = add(shard_after_[b + 1], b + 1 < nb ? shard_[b + 1] : 0);
    root_grad_after_[b] = add(root_grad_after_[b + 1], unit_[b] ? 0 : lora_ ? train_[b] : elems_[b]);
  }
  gather_before_.assign(nb + 1, 0);
  retained_.assign(nb + 1, 0);
  int64_t after = 0;  // elements of the blocks after b
  std::vector<int64_t>& kept = kept_;
  kept.assign(nb, 0);
  for (size_t b = nb; b-- > 0;) {
    // partitioned_param_coordinator.py __params_to_release: a module's parameters stay gathered if
    // it reappears in the trace before max_reuse_distance elements are traversed; from block b's
    // forward to its backward the trace runs the later blocks forward and backward: 2 × after.
    if (st == Parallel::zero3 && 2 * __int128(after) < kMaxReuse) kept[b] = elems_[b];
    after = add(after, elems_[b]);
  }
  const int64_t k = lay.reshard_after_forward;
  for (size_t b = 0; b < nb; ++b) {
    int64_t g = 0;
    if (is_fsdp(st) && gather_[b] > 0) g = k == 1 ? 0 : k == 0 ? gather_[b] : mul(ceil_div(elems_[b], k), 1);
    gather_before_[b + 1] = add(gather_before_[b], g);
    retained_[b + 1] = add(retained_[b], kept[b]);
  }

  // TP: Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer Models",
  // eq. 2): a layer keeps s·b·h·(10 + 24/t) bytes without the attention-score term (SDPA/flash
  // keep no scores): 24/34 of it splits over t, the LayerNorm and dropout inputs are replicated.
  // Vocab-parallel cross entropy splits the logits; the working set is taken to split too.
  if (lay.tp > 1) {
    act_scale_ = (10.0 + 24.0 / double(lay.tp)) / 34.0;
    logit_scale_ = work_scale_ = 1.0 / double(lay.tp);
  }
  // CP (ring attention; Megatron-Core context_parallel, torch.distributed.tensor.experimental
  // context_parallel): every per-token tensor splits over cp ranks; each rank keeps its chunk of
  // K and V and receives a peer's chunk while sending its own (2 × K, V of seq / cp tokens).
  if (lay.cp > 1) {
    const double inv = 1.0 / double(lay.cp);
    act_scale_ *= inv;
    logit_scale_ *= inv;
    work_scale_ *= inv;
    ckpt_scale_ = inv;
    const int64_t kv = m.dims.kv_heads > 0 ? m.dims.kv_heads : m.dims.heads;
    const int64_t hd = m.dims.head_dim > 0 ? m.dims.head_dim : (m.dims.heads > 0 ? m.dims.hidden / m.dims.heads : 0);
    comm_per_sample_ = mul(mul(2 * 2, ceil_div(single.seq(), lay.cp)), mul(ceil_div(kv, lay.tp) * hd, compute_));
  }
  // EP (all-to-all dispatch and combine): each routed token's hidden state is sent to top_k
  // experts and returned, one MoE layer at a time: 2 buffers of tokens × top_k × hidden.
  if (lay.ep > 1 && m.dims.experts_per_token > 0)
    comm_per_sample_ = add(comm_per_sample_, mul(mul(2, ceil_div(single.seq(), lay.cp)),
                                                 mul(m.dims.experts_per_token * m.dims.hidden, compute_)));
  bucket_elems_ = opt.deepspeed_bucket > 0 ? opt.deepspeed_bucket : kReduceBucket;

  const bool sharded = is_fsdp(st) || is_zero(st);
  labels_[kParams] = st == Parallel::zero3   ? "16-bit parameter partitions (and persistent small parameters)"
                     : is_zero(st)           ? "16-bit model parameters (whole)"
                     : st == Parallel::fsdp2 && lora_ ? "Sharded parameters (frozen base and adapters, dim-0 chunks)"
                     : peft_fsdp1_ && qlora ? "Sharded parameters (4-bit storage and 16-bit norms flat per unit, adapter units)"
                     : peft_fsdp1_ ? "Sharded parameters (frozen base flat per unit, adapter units)"
                     : is_fsdp(st)           ? "Sharded parameters (flat, master dtype)"
                                             : "Parameters (master dtype)";
  labels_[kQuantState] = "4-bit quantization constants (QuantState, whole on every rank)";
  labels_[kMaster] = "fp32 master partition (DeepSpeed)";
  labels_[kStates] = std::string("Optimizer states (") + optimizer_name(opt.optimizer) + (sharded ? ", sharded)" : ")");
  labels_[kGrads] = is_fsdp(st) ? (lora_ ? "Sharded adapter gradients" : "Sharded gradients") : is_zero(st) && st != Parallel::zero1 ? "Gradient partitions (16-bit)"
                                                                                           : "Gradients";
  labels_[kOptTemp] = !is_zero(st) ? "Optimizer temporaries"
                      : torch_adam_ && st != Parallel::zero3 ? "fp32 gradient partition and torch AdamW temporaries at the step"
                                                              : "fp32 gradient partition at the step";
  labels_[kStepCopies] = "Gradient copies at the step (fp64 for the norm, flat 16-bit)";
  labels_[kGathered] = is_fsdp(st) ? "All-gathered units (current, prefetched, kept)" : "Gathered parameters (ZeRO-3 fetch, prefetch, reuse)";
  labels_[kUnshardedGrads] = is_fsdp(st) ? "Unsharded gradients and reduce-scatter output" : "Gradients not yet bucketed";
  labels_[kBuckets] = is_zero(st) ? "DeepSpeed reduce bucket (reduce_bucket_size, 16-bit)" : "DDP gradient buckets";
  labels_[kCast] = "Autocast weight copies";
  labels_[kActs] = "Activations saved for backward";
  labels_[kCkpt] = "Checkpointed block inputs";
  labels_[kRecompute] = "Recomputed block (checkpointing)";
  labels_[kLogits] = "Logits and loss buffers";
  labels_[kWork] = "Working set (in flight)";
  labels_[kComm] = "Ring-attention K/V and all-to-all buffers";
  labels_[kWorkspace] = "cuBLAS workspace";
}

std::array<int64_t, R::kCount> RankModel::event_bytes(size_t ei, int64_t batch) const {
  const M::Event& e = single_.events()[ei];
  std::array<int64_t, kCount> out{};
  auto at = [&](int c) { return add(e.fixed[size_t(c)], mul(e.per_sample[size_t(c)], batch)); };
  const Parallel st = lay_.strategy;
  // The load moment (before the step) is planned as the step's start: the rank's state, nothing
  // gathered beyond the root, no activations (their single-card bytes are 0 then).
  const int phase = std::max(0, e.phase - phase_offset_);
  const int64_t i = e.block;  // -1: the loss, its backward, the optimizer step
  const int c = compute_;
  const bool step = phase == 2;
  const bool block_event = i >= 0;

  out[kActs] = scale_by(at(M::kActsC), act_scale_);
  out[kRecompute] = scale_by(at(M::kRecomputeC), act_scale_);
  out[kCkpt] = scale_by(at(M::kCkptC), ckpt_scale_);
  out[kLogits] = scale_by(at(M::kLogitsC), logit_scale_);
  out[kWork] = scale_by(at(M::kWorkC), work_scale_);
  out[kWorkspace] = at(M::kWorkspaceC);
  if (block_event && unit_[size_t(i)]) out[kComm] = mul(comm_per_sample_, batch);

  // The single model's totals are for the unsplit model; per rank (TP/EP) a share of them.
  const int64_t R = total_shard_;

  if (st == Parallel::none || st == Parallel::ddp) {
    // Replicated state (TP/EP: this rank's share), as the single card holds it.
    const int64_t share_num = total_elems_, share_den = std::max<int64_t>(1, full_elems_);
    // LoRA: the adapters are parameters of every replica too (their own single-card component).
    out[kParams] = scale_exact(add(at(M::kWeightsC), at(M::kAdaptersC)), share_num, share_den);
    out[kStates] = scale_exact(at(M::kStatesC), share_num, share_den);
    out[kGrads] = scale_exact(at(M::kGradsC), share_num, share_den);
    out[kOptTemp] = scale_exact(at(M::kOptTempC), share_num, share_den);
    out[kCast] = scale_exact(at(M::kCastC), share_num, share_den);
    // DDP (torch.nn.parallel.DistributedDataParallel, gradient_as_bucket_view=False): buckets
    // holding one more copy of the gradients, from construction, when there are replicas.
    if (lay_.dp > 1) out[kBuckets] = scale_exact(grads_, share_num, share_den);
    return out;
  }

  const int64_t full = std::max<int64_t>(1, full_elems_);
  if (is_fsdp(st)) {
    // _flat_param.py / _fully_shard: the sharded flat parameters in the master dtype, the
    // optimizer over the shards, sharded gradients once each unit's reduce-scatter is done.
    // LoRA (FSDP2 only; plan_parallel refuses FSDP1's flat parameters): the frozen base and the
    // adapters are separate DTensors, each sharded in its own dtype; gradients and optimizer states
    // exist for the adapters alone (requires_grad), sharded as they are.
    const int64_t GS = lora_ ? train_shard_ : R, GT = lora_ ? std::max<int64_t>(1, total_train_) : full;
    // FSDP1 under PEFT: the frozen base's flat shards in their one dtype, the adapters' shards in
    // theirs, and (QLoRA) the quantization constants whole.
    out[kQuantState] = quant_constants_;
    out[kParams] = peft_fsdp1_ ? add(mul(flat_bytes_, R), scale_exact(adapter_weights_, train_shard_, GT))
                 : lora_ ? add(scale_exact(base_weights_, R - train_shard_, std::max<int64_t>(1, full_elems_ - total_train_)),
                               scale_exact(adapter_weights_, train_shard_, GT))
                         : scale_exact(weights_, R, full);
    out[kStates] = scale_exact(states_, GS, GT);
    if (step) {
      out[kGrads] = scale_exact(grads_, GS, GT);
      out[kOptTemp] = scale_exact(temps_, GS, GT);
    } else if (accum_) {
      out[kGrads] = scale_exact(grads_, GS, GT);  // accumulated shards live through every micro-batch
    } else if (phase == 1 && block_event) {
      out[kGrads] = mul(master_, lora_ ? train_after_[size_t(i)] : shard_after_[size_t(i)]);
    }
    if (!step) {
      // The root unit (embeddings, final norm, head: every block outside the layers) is not
      // resharded after forward (_runtime_utils.py _post_forward_reshard: "Do not free the root's
      // parameters"; FSDP2: the root's reshard_after_forward is False), so it stays gathered
      // through the step's forward and backward.
      int64_t g = root_gather_;
      if (block_event) {
        const size_t b = size_t(i);
        g = add(g, gather_[b]);
        if (peft_fsdp1_) g = add(g, train_unit_gather_[b]);  // the unit's adapter units, gathered as they run
        const int64_t nbr = phase == 0 ? next_unit_[b] : prev_unit_[b];  // prefetch: one unit ahead
        if (nbr >= 0) g = add(g, gather_[size_t(nbr)]);
        // reshard_after_forward False / int: units already through forward keep their gathered
        // (or k-sharded) parameters until their backward.
        g = add(g, gather_before_[b]);
        if (phase == 1) {
          // Backward of a unit: its unsharded gradient (param dtype) and the reduce-scatter output
          // shard; the root's gradients of the blocks already through backward stay unsharded
          // until the root's own reduce-scatter, after the last backward.
          int64_t ug = root_grad_after_[b];
          if (gather_[b] > 0)
            ug = lora_ ? add(ug, add(train_unit_gather_[b], train_unit_shard_[b])) : add(ug, add(gather_[b], shard_[b]));
          out[kUnshardedGrads] = mul(c, ug);
        }
      } else {
        g = add(g, gather_before_[single_.blocks().size()]);
      }
      out[kGathered] = mul(c, g);
    }
    return out;
  }

  // DeepSpeed ZeRO. The optimizer keeps an fp32 master partition (single_partition_of_fp32_groups /
  // fp32_partitioned_groups_flat, always a clone) and fp32 states on it.
  // LoRA: the master, states and gradients are the adapters' partition (RT); the frozen base is held
  // as the 16-bit model is (whole for stages 1-2, partitioned for stage 3).
  const int64_t RT = lora_ ? train_shard_ : R;
  // LoRA: the single card's states are over all adapters; without autocast they hold an fp32 master
  // copy (memory.cpp optimizer_cost, fp32_master: 4 bytes per element before the states), which here is
  // kMaster: the states per element are what is left, already fp32. With autocast, in the adapters'
  // dtype, scaled to fp32.
  const int64_t T = std::max<int64_t>(1, total_train_);
  // Full fine-tune without autocast: the single card's states hold the master (single_master_);
  // what is left is fp32 already and is partitioned as it is (the master is kMaster, once).
  const int64_t states = !lora_ && single_master_ > 0 ? scale_exact(states_ - single_master_, R, full)
                         : !lora_                     ? scale_exact(states_, mul(R, 4), mul(full, master_))
                         : lora_master_ ? scale_exact(std::max<int64_t>(0, states_ - mul(4, total_train_)), RT, T)
                                        : scale_exact(states_, mul(RT, 4), mul(T, master_));
  out[kMaster] = mul(4, RT);
  out[kStates] = states;
  if (st == Parallel::zero3) {
    out[kParams] = add(mul(c, R), mul(c, persistent_));
    out[kQuantState] = quant_constants_;
    // stage3.py: grad_partitions_flat_buffer (gradient_accumulation_dtype = the 16-bit dtype) and
    // the IPG bucket of reduce_bucket_size, both allocated at initialisation.
    out[kGrads] = mul(c, RT);
    out[kBuckets] = mul(c, bucket_elems_);
    if (step) out[kOptTemp] = mul(4, std::min(kSubGroup, RT));  // _prepare_fp32_grad_for_sub_group
    if (!step) {
      // Fetched per module (its parameters) plus the prefetch bucket, capped by
      // stage3_max_live_parameters; blocks kept by the reuse distance from their forward on.
      int64_t g = 0;
      if (block_event) {
        const size_t b = size_t(i);
        // A kept block is whole while it runs (and until its backward); otherwise one module.
        g = kept_[b] ? add(elems_[b], kPrefetchBucket) : std::min(kMaxLive, add(module_[b], kPrefetchBucket));
        g = add(g, retained_[b]);  // blocks before b kept since their forward
      } else {
        g = retained_[single_.blocks().size()];
      }
      out[kGathered] = mul(c, g);
    }
  } else {
    // QLoRA: the 4-bit storage in its own bytes, not as 16-bit elements, and the QuantState.
    out[kParams] = add(mul(c, total_elems_ - storage_elems_), storage_bytes_);
    out[kQuantState] = quant_constants_;
    out[kBuckets] = phase >= 1 ? mul(c, bucket_elems_) : 0;  // setup_buckets: one buffer (overlap_comm False)
    if (phase == 1 && block_event) {
      const size_t b = size_t(i);
      if (st == Parallel::zero1) {
        // partition_gradients False, overlap_comm False: param.grad of every block through
        // backward, reduced at the boundary.
        int64_t g = 0;
        for (size_t k = b; k < single_.blocks().size(); ++k) g = add(g, lora_ ? train_[k] : elems_[k]);
        out[kGrads] = mul(c, g);
      } else {
        // ZeRO-2: the partition's averaged gradients grow as buckets reduce; the running block's
        // gradients wait in param.grad until bucketed.
        out[kGrads] = mul(c, lora_ ? train_after_[b] : shard_after_[b]);
        out[kUnshardedGrads] = mul(c, lora_ ? train_[b] : elems_[b]);
      }
    }
    if (step) {
      out[kGrads] = mul(c, RT);      // averaged_gradients of the partition (16-bit)
      out[kOptTemp] = mul(4, RT);    // single_partition_of_fp32_groups[i].grad (fp32)
      if (!lay_.offload_optimizer) {
        // The step on the GPU (offload: on the host, cpu_offload path): flatten's 16-bit copy (none
        // when the gradients are fp32 already: .to returns them), the fp64 copy of the largest
        // gradient in the partition, torch AdamW's sqrt(exp_avg_sq) and its quotient.
        const StepMoment sm = zero12_step(mul(c, RT), c == 4 ? 0 : mul(c, RT), mul(4, RT),
                                          mul(8, std::min(largest_grad_, RT)), torch_adam_ ? mul(8, RT) : 0);
        out[kGrads] = sm.grads;
        out[kOptTemp] = sm.fp32;
        out[kStepCopies] = sm.copies;
      }
    }
  }
  return out;
}

std::array<int64_t, R::kCount> RankModel::offload(std::array<int64_t, kCount>& gpu) const {
  std::array<int64_t, kCount> host{};
  auto move = [&](int c, int64_t keep) {
    host[size_t(c)] = gpu[size_t(c)] - keep;
    gpu[size_t(c)] = keep;
  };
  const Parallel st = lay_.strategy;
  if (is_fsdp(st) && lay_.offload_params) {
    // CPUOffload(offload_params=True) / FSDP2 CPUOffloadPolicy: the shards, their gradients and
    // the optimizer (which then steps on the host) live in host memory.
    for (int c : {kParams, kStates, kGrads, kOptTemp}) move(c, 0);
  }
  if (is_zero(st) && lay_.offload_optimizer) {
    // offload_optimizer device cpu: the fp32 master, the states and the fp32 gradients are host
    // tensors; ZeRO-2/3 gradient partitions go to (pinned) host buffers as they are reduced.
    for (int c : {kMaster, kStates, kOptTemp}) move(c, 0);
    if (st != Parallel::zero1) move(kGrads, 0);
  }
  if (st == Parallel::zero3 && lay_.offload_params) {
    // offload_param device cpu: the 16-bit partitions on the host; persistent parameters, fetched
    // and prefetched ones stay on the GPU.
    move(kParams, mul(compute_, persistent_));
  }
  return host;
}

std::array<int64_t, R::kCount> RankModel::moment(size_t event, int64_t batch, std::array<int64_t, kCount>* host) const {
  auto gpu = event_bytes(event, batch);
  auto h = offload(gpu);
  if (host) *host = h;
  return gpu;
}

int64_t RankModel::peak(int64_t batch) const {
  int64_t best = 0;
  for (size_t ei = 0; ei < single_.events().size(); ++ei) {
    auto b = event_bytes(ei, batch);
    offload(b);
    int64_t t = 0;
    for (int64_t x : b) t = add(t, x);
    best = std::max(best, t);
  }
  return best;
}

RankMemory RankModel::at(int64_t batch) const {
  RankMemory r;
  const auto& events = single_.events();
  const auto& names = single_.phase_names();
  std::vector<int64_t> phase_peak(names.size(), 0);
  size_t best = 0;
  int64_t best_bytes = -1;
  std::array<int64_t, kCount> best_gpu{}, best_host{};
  for (size_t ei = 0; ei < events.size(); ++ei) {
    auto gpu = event_bytes(ei, batch);
    auto host = offload(gpu);
    int64_t t = 0;
    for (int64_t x : gpu) t = add(t, x);
    phase_peak[size_t(events[ei].phase)] = std::max(phase_peak[size_t(events[ei].phase)], t);
    if (t > best_bytes) {
      best_bytes = t;
      best = ei;
      best_gpu = gpu;
      best_host = host;
    }
  }
  for (size_t p = 0; p < names.size(); ++p) r.phases.push_back({names[p], phase_peak[p]});
  static constexpr const char* ids[kCount] = {
      "parameters", "quant_state", "fp32_master", "optimizer_states", "gradients", "optimizer_temporaries", "step_gradient_copies",
      "gathered_parameters", "unsharded_gradients", "reduce_buckets", "weight_cast_cache", "activations", "checkpoints",
      "recompute", "logits", "working_set", "communication_buffers", "library_workspace"};
  for (int c = 0; c < kCount; ++c) {
    if (best_gpu[size_t(c)] != 0) r.components.push_back({ids[c], labels_[size_t(c)], best_gpu[size_t(c)]});
    if (best_host[size_t(c)] != 0) {
      r.host.push_back({ids[c], labels_[size_t(c)], best_host[size_t(c)]});
      r.host_bytes = add(r.host_bytes, best_host[size_t(c)]);
    }
  }
  const M::Event& e = events[best];
  r.peak_phase = names[size_t(e.phase)];
  r.peak_event = e.what ? e.what : e.block >= 0 ? (e.phase == 0 ? "forward of " : "backward of ") +
                                                      block_names_[size_t(e.block)]
                                                : r.peak_phase;
  r.peak_bytes = best_bytes;
  r.reserved_bytes = single_.reserved_for(best_bytes);
  return r;
}

Topology topology_for(const Card& card, int64_t gpus) {
  Topology t;
  t.nodes = ceil_div(gpus, kNodeCards);
  const std::string& k = card.interconnect;
  const bool fabric = k.rfind("nvlink", 0) == 0 && k != "nvlink-bridge";  // SXM boards: NVSwitch
  const bool amd = k == "infinity-fabric";
  auto gbps = [&] { return card.interconnect_gbps > 0 ? " (" + num_text(card.interconnect_gbps) + " GB/s per GPU)" : std::string(); };
  if (fabric) t.intra_node = "NVLink " + k.substr(6) + " through NVSwitch" + gbps();
  else if (amd) t.intra_node = "Infinity Fabric" + gbps();
  else if (k == "nvlink-bridge") t.intra_node = "NVLink bridges between pairs" + gbps() + ", PCIe between pairs";
  else t.intra_node = "PCIe only (no GPU-to-GPU link)";
  if (t.nodes > 1)
    t.inter_node = fabric || amd ? "assumed InfiniBand / RoCE, 400 Gb/s per GPU (8 NICs per node, DGX/HGX class)"
                                 : "assumed Ethernet, 100 Gb/s per node (typical for PCIe servers)";
  // The rule: more than one node of cards without an NVLink/Infinity-Fabric switch is not
  // recommended (every all-gather and reduce-scatter crosses PCIe and a slow network each step).
  t.recommended = gpus <= kNodeCards || fabric || amd;
  if (!t.recommended)
    t.note = std::to_string(gpus) + " × " + card.name + " over " + std::to_string(t.nodes) +
             " nodes without NVLink: sharded training would be bound by PCIe and the network; not recommended.";
  else if (gpus > 1 && !fabric && !amd)
    t.note = "Within one node over PCIe: collectives run at PCIe speed.";
  return t;
}

namespace {
struct Candidate {
  Parallel strategy;
  bool offload;
};

// The smallest N (a multiple of tp × cp × ep, hsdp: of the node when above it) whose per-rank
// reserved bytes fit `capacity`; per-rank memory falls with N, so a bisection over the multiples
// finds it (each probe builds its rank model).
SmallestRanks smallest_for(const Model& m, Options o, const MemoryModel& full, const Card& card, Candidate cand,
                           int64_t max_gpus) {
  SmallestRanks s;
  s.strategy = cand.strategy;
  s.offload = cand.offload;
  o.parallel = cand.strategy;
  o.offload_optimizer = o.offload_params = cand.offload;
  o.shard_group = 0;
  o.reshard_after_forward = 1;
  const int64_t unit = o.tp * o.cp * o.ep;
  auto reserved_at = [&](int64_t n, int64_t* host = nullptr) -> std::optional<int64_t> {
    if (cand.strategy == Parallel::hsdp && n > kNodeCards && n % kNodeCards != 0) return std::nullopt;
    try {
      const ParallelLayout l = parallel_layout(m, o, cand.strategy, n);
      const RankModel rm(m, o, full, l);
      if (host) *host = rm.at(o.batch).host_bytes;
      return rm.reserved(o.batch);
    } catch (const Error&) {
      return std::nullopt;
    }
  };
  auto fits = [&](int64_t k) {
    for (int64_t n = k * unit; n <= std::min(max_gpus, (k + 1) * unit * (cand.strategy == Parallel::hsdp ? kNodeCards : 1)); n += unit) {
      const auto r = reserved_at(n);
      if (r) return std::make_pair(*r <= card.capacity_bytes, n);
    }
    return std::make_pair(false, int64_t(0));
  };
  int64_t lo = 1, hi = max_gpus / unit;
  if (hi < 1 || !fits(hi).first) return s;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    fits(mid).first ? hi = mid : lo = mid + 1;
  }
  s.gpus = fits(lo).second;
  s.per_rank_reserved = *reserved_at(s.gpus, &s.host_bytes);
  s.topology = topology_for(card, s.gpus);
  return s;
}
}  // namespace

ParallelPlan plan_parallel(const Model& m, const Options& opt, const MemoryModel& full, const Catalog& cat,
                           const std::string& priced_card) {
  ParallelPlan p;
  if (opt.parallel == Parallel::none) return p;
  p.active = true;
  p.batch = opt.batch;
  p.seq = full.seq();
  p.layout = parallel_layout(m, opt, opt.parallel, opt.gpus);  // throws on bad degrees
  // LoRA per rank under every strategy: ZeRO, DDP, FSDP2 (per-parameter DTensors: frozen and
  // trainable tensors shard apart) and FSDP1 / HSDP as the HF Trainer wraps them (every adapter a
  // unit of its own: transformers integrations/fsdp.py update_fsdp_plugin_peft).
  const bool lora_ok = opt.mode == Mode::lora;
  // QLoRA per rank: DDP, each replica the single card's 4-bit model (the HF Trainer / accelerate
  // launch with device_map {"": local_rank}), and FSDP1 (fsdp, hsdp) over 4-bit storage in
  // bnb_4bit_quant_storage (PEFT's FSDP QLoRA recipe), and FSDP2 as torchtune runs it (torchao
  // NF4Tensor chunked on dim 0), ZeRO-3 (PEFT's DeepSpeed recipe: the storage partitioned) and
  // ZeRO-1/2 (the whole 4-bit model per rank, the adapters' optimizer partitioned). TP/CP/EP under
  // QLoRA are not modelled.
  const bool qlora_ok = opt.mode == Mode::qlora && opt.parallel != Parallel::none && p.layout.tp == 1 &&
                        p.layout.cp == 1 && p.layout.ep == 1;
  if (opt.mode != Mode::full && !lora_ok && !qlora_ok) {
    p.supported = false;
    p.note = opt.mode == Mode::qlora
                 ? "Per-rank QLoRA memory is modelled under every data-parallel strategy (ddp, fsdp, hsdp, fsdp2, "
                   "zero1-3), not with tp, cp or ep."
                 : "Per-rank memory is modelled for full fine-tuning, LoRA, and QLoRA under every strategy; "
                   "serving across GPUs is the serving section's (tensor parallel).";
    return p;
  }
  if (qlora_ok && opt.parallel == Parallel::ddp)
    p.note = "QLoRA across GPUs is planned as DDP: every rank holds the whole 4-bit model, so adding ranks divides the "
             "samples, not the memory; no smallest N per card is listed (for a sharded cut: parallel fsdp).";
  const RankModel rm(m, opt, full, p.layout);
  p.rank = rm.at(opt.batch);
  p.priced_card = priced_card;
  if (const Card* c = find_card(cat, priced_card)) {
    p.topology = topology_for(*c, opt.gpus);
    p.fits_priced = p.rank.reserved_bytes <= c->capacity_bytes;
  }
  const Candidate cands[] = {{Parallel::fsdp, false},  {Parallel::fsdp2, false}, {Parallel::hsdp, false},
                             {Parallel::zero1, false}, {Parallel::zero2, false}, {Parallel::zero3, false},
                             {Parallel::zero3, true}};
  if (!optimizer_shardable(opt.optimizer))
    p.note = "Muon orthogonalises each weight matrix whole, so the sharded strategies (whose ranks hold pieces of "
             "it) are not searched: no smallest N per card is listed.";
  const std::vector<Card> none;  // QLoRA under DDP, Muon: no strategy to search
  const bool searched = !(qlora_ok && opt.parallel == Parallel::ddp) && optimizer_shardable(opt.optimizer);
  for (const auto& card : searched ? cat.cards : none) {
    CardParallel row;
    row.card = &card;
    for (const auto& cand : cands)
      row.smallest.push_back(smallest_for(m, opt, full, card, cand, 1024));
    p.cards.push_back(std::move(row));
  }
  p.assumptions = {
      {"fsdp_shards",
       "FSDP1: one flat parameter per wrapped unit (each decoder layer; the root holds the rest), padded to a multiple "
       "of the shard ranks, ceil(numel / N) per rank, in the master dtype; optimizer states over the shards; sharded "
       "gradients once a unit's reduce-scatter is done. FSDP2: each parameter chunked on dim 0, ceil(dim0 / N) rows "
       "per rank. HSDP: the same over shard_group ranks, replicas all-reduce the shard in place. With context "
       "parallel the shard ranks are dp × cp (CP ranks hold the same parameters; torchtitan shards over dp_shard_cp).",
       "torch/distributed/fsdp/_flat_param.py FlatParamHandle._get_shard; _fully_shard/_fsdp_param.py; torchtitan "
       "models/llama3/infra/parallelize.py parallelize_llama (dp_mesh_dim_names dp_shard_cp)"},
      {"fsdp_gathered",
       "Gathered in the compute dtype (MixedPrecision param_dtype): the running unit and one prefetched unit "
       "(backward_prefetch BACKWARD_PRE, and in forward the next unit's all-gather in flight, limit_all_gathers: two); "
       "the root unit is not resharded after forward; reshard_after_forward False keeps every unit through forward "
       "gathered until its backward, an int k keeps a 1/k shard. Backward holds the unit's unsharded gradient and the "
       "reduce-scatter output; the root's gradients stay unsharded until the last backward. Autocast makes no weight "
       "copies (parameters are already 16-bit).",
       "torch/distributed/fsdp/_runtime_utils.py _post_forward_reshard, _prefetch_handle; _fully_shard/fully_shard"},
      {"lora_ddp_fsdp2",
       "LoRA per rank. DDP: the base weights and the adapters whole on every rank as on one card; gradients, "
       "optimizer states (AdamW: two fp32 moments) and DDP's buckets (bucket_cap_mb 25, gradient_as_bucket_view "
       "False: one more copy of the gradients) over the adapters only, the parameters that require grad. FSDP2: "
       "every parameter its own DTensor chunked on dim 0 (lora_A r × in, lora_B out × r), ceil(dim0 / N) rows per "
       "rank, the frozen base in its dtype and the adapters in theirs (fp32 under PEFT's autocast_adapter_dtype); "
       "units all-gathered in the param dtype as in a full fine-tune; only the adapters get unsharded gradients, a "
       "reduce-scatter and sharded gradients and states. Activations as on one card.",
       "torch/nn/parallel/distributed.py DistributedDataParallel (_build_params_for_reducer: requires_grad), "
       "torch/csrc/distributed/c10d/reducer.cpp; torch/distributed/fsdp/_fully_shard/_fsdp_param.py "
       "_init_sharded_param, _fsdp_param_group.py post_backward (params with grads), _fsdp_collectives.py "
       "foreach_reduce; peft/tuners/lora/layer.py (lora_A/lora_B nn.Linear), peft_model.py autocast_adapter_dtype"},
      {"zero_defaults",
       "DeepSpeed defaults: reduce_bucket_size 5e8, stage3_prefetch_bucket_size 5e7, stage3_max_live_parameters 1e9, "
       "stage3_max_reuse_distance 1e9, stage3_param_persistence_threshold 1e5, sub_group_size 1e9, overlap_comm False "
       "for stages 1-2 (one IPG buffer), contiguous_gradients True; deepspeed_bucket overrides reduce_bucket_size.",
       "deepspeed/runtime/zero/config.py DeepSpeedZeroConfig"},
      {"zero_state",
       "ZeRO: the 16-bit model (whole for stages 1-2, ceil(numel / N) partitions per parameter for stage 3 plus "
       "persistent small parameters whole), an fp32 master partition, fp32 optimizer states over it; stage 1 keeps "
       "16-bit gradients of the whole model through backward, stage 2 its partition, stage 3 a 16-bit gradient "
       "partition buffer from initialisation; the step makes the partition's fp32 gradient (stage 3: one sub-group).",
       "deepspeed/runtime/zero/stage_1_and_2.py setup_buckets, reduce_ipg_grads; stage3.py "
       "_prepare_fp32_grad_for_sub_group; partition_parameters.py _partition_param"},
      {"zero_master_once",
       "Without autocast the single card's optimizer states hold the fp32 master copy (4 bytes per element before "
       "the states); per rank the master is the fp32 master partition and the states are the rest, already fp32, "
       "each partitioned once (AdamW: 4 + 8 bytes per partitioned element).",
       "deepspeed/runtime/zero/stage_1_and_2.py DeepSpeedZeroOptimizer.__init__ (single_partition_of_fp32_groups), "
       "initialize_optimizer_states"},
      {"zero_step",
       "ZeRO-1/2 step on the GPU, the largest of three moments: the gradient norm copies each in-partition gradient "
       "to fp64, one tensor at a time (8 bytes × the largest trainable tensor, with the 16-bit gradients); the "
       "flatten makes a flat 16-bit copy of the partition's gradients while their fp32 copy is made; the optimizer "
       "steps the fp32 partition with the 16-bit gradients freed, plus, with optimizer_impl forloop (DeepSpeed's "
       "torch_adam: torch.optim.AdamW, single-tensor), sqrt(exp_avg_sq) and its quotient (8 bytes per partitioned "
       "element); otherwise FusedAdam, no temporary. Offload: the step runs on the host.",
       "deepspeed/runtime/zero/stage_1_and_2.py step, scaled_global_norm, get_grad_norm_direct (v0.9.0 0b5252b, "
       "edaa722); deepspeed/runtime/engine.py _configure_basic_optimizer (torch_adam); torch/optim/adamw.py "
       "_single_tensor_adamw"},
      {"zero3_fetch",
       "ZeRO-3 gathers per module: the running block's largest module plus the prefetch bucket (at most "
       "max_live_parameters); a block stays gathered from its forward to its backward when the trace between them "
       "(the later blocks, forward and backward) is under max_reuse_distance elements. Blocks stand for modules.",
       "deepspeed/runtime/zero/partitioned_param_coordinator.py fetch_sub_module, __params_to_release"},
      {"offload",
       "offload_optimizer cpu moves the fp32 master, optimizer states and fp32 gradients (stage 2-3 gradient "
       "partitions too) to host memory; offload_param cpu (stage 3) the 16-bit partitions; FSDP CPUOffload the "
       "shards, gradients and optimizer. Host bytes are listed per rank.",
       "deepspeed/runtime/zero/stage3.py, stage_1_and_2.py (cpu_offload); torch/distributed/fsdp CPUOffload"},
      {"tp_cp_ep",
       "Tensor parallel (Megatron): linear, embedding and head weights split over tp, norms replicated, heads and KV "
       "heads must divide (no KV replication); activations × (10 + 24/tp) / 34 (Korthikanti et al. 2022, eq. 2, "
       "without the score term), logits and working set ÷ tp. Context parallel: per-token tensors ÷ cp, plus a peer's "
       "K/V chunk in flight (ring attention). Expert parallel: experts ÷ ep, each slice sharded over dp / ep ranks, all-to-all dispatch and combine buffers "
       "of tokens × top_k × hidden. Data-parallel ranks = gpus / (tp × cp).",
       "Megatron-LM core/tensor_parallel/layers.py, core/transformer/moe; arXiv:2205.05198"},
      {"topology",
       "8 cards per node. Not recommended: more than one node of cards without an NVLink switch (PCIe and the "
       "network carry every collective). The inter-node network is an assumption.",
       "NVIDIA DGX/HGX H100 system (8 GPUs, NVSwitch, 8 × 400 Gb/s)"},
  };
  if (opt.mode != Mode::full && is_fsdp1(opt.parallel))
    p.assumptions.push_back(
        {"peft_fsdp1",
         "LoRA and QLoRA under FSDP1 as the HF Trainer wraps them: each lora_A and lora_B is a unit of its own "
         "(fsdp_auto_wrap_policy), sharded in its dtype (fp32), with fp32 gradients and AdamW states over its shard; "
         "each decoder layer's FlatParameter is its frozen base, ceil(numel / N) per rank, with no gradient. QLoRA "
         "(PEFT's recipe, bnb_4bit_quant_storage the compute dtype): the layer's linears' 4-bit data (two weights per "
         "byte) with its 16-bit norms; the quantization constants (QuantState) are attributes, whole on every rank, "
         "never offloaded; no fp32 upcast (TRL skips prepare_model_for_kbit_training; FSDP mixed precision in the "
         "storage dtype); a linear dequantizes to a transient 16-bit weight as on one card; every rank quantizes "
         "each tensor on its GPU at load and moves the data to the CPU (rank 0) or meta: not a peak.",
         "transformers integrations/fsdp.py update_fsdp_plugin_peft, modeling_utils.py "
         "_load_state_dict_into_meta_model; peft utils/other.py fsdp_auto_wrap_policy (5d602fd); trl "
         "trainer/sft_trainer.py is_sharded_qlora (f2cd577); bitsandbytes functional.py quantize_4bit (95f9af3); "
         "torch/distributed/fsdp/_flat_param.py"});
  if (opt.mode == Mode::qlora && opt.parallel == Parallel::zero3)
    p.assumptions.push_back(
        {"qlora_zero3",
         "QLoRA under ZeRO-3 as PEFT's DeepSpeed recipe runs it (zero3_init, bnb_4bit_quant_storage the compute "
         "dtype): the 4-bit data (two weights per byte) is partitioned with every other parameter, per block here; the "
         "quantization constants (QuantState) are attributes, not parameters: whole on every rank, never offloaded; "
         "no fp32 upcast (TRL skips prepare_model_for_kbit_training under ZeRO-3); the adapters train as LoRA under "
         "ZeRO-3.",
         "peft docs/source/accelerate/deepspeed.md (QLoRA with ZeRO-3); trl trainer/sft_trainer.py is_sharded_qlora "
         "(f2cd577); deepspeed/runtime/zero/partition_parameters.py _partition_param (edaa722)"});
  if (opt.mode == Mode::qlora && (opt.parallel == Parallel::zero1 || opt.parallel == Parallel::zero2))
    p.assumptions.push_back(
        {"qlora_zero12",
         "QLoRA under ZeRO-1/2 (the HF Trainer with a DeepSpeed config): every rank loads the whole 4-bit model (its "
         "packed data in uint8, the QuantState, the non-quantized weights cast to 16 bit by the engine) and the "
         "adapters in 16 bit; the optimizer's flat group is the adapters only (the parameters that require grad), "
         "its fp32 master, states and (ZeRO-2) gradients partitioned as for LoRA under ZeRO-1/2.",
         "deepspeed/runtime/engine.py _configure_distributed_model (module.bfloat16()), runtime/zero/stage_1_and_2.py "
         "(edaa722); bitsandbytes nn/modules.py Params4bit (quant_storage uint8, 95f9af3)"});
  if (opt.mode == Mode::qlora && opt.parallel == Parallel::fsdp2)
    p.assumptions.push_back(
        {"qlora_fsdp2",
         "QLoRA under FSDP2 as torchtune runs it: each NF4Tensor base weight (4-bit data, an int8 scaler per 64 "
         "weights, an fp32 factor per 256 scalers) is chunked on dim 0 over the shard ranks with its scalers and "
         "factors, so no quantization state is whole on a rank; a unit all-gathers those inner tensors (its layer's "
         "stored bytes, not 16-bit weights) and each linear dequantizes to a transient 16-bit weight as on one card; "
         "adapters, norms and embeddings are per-parameter DTensors in their dtype, as for LoRA under FSDP2.",
         "torchao dtypes/nf4tensor.py (nf4_split, fsdp_pre_all_gather, fsdp_post_all_gather, 36027d8); torchtune "
         "modules/peft/lora.py LoRALinear quantize_base, recipes/lora_finetune_distributed.py (bd2a0fc)"});
  return p;
}

}  // namespace cardfit

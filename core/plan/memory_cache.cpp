// The memory-model cache of one traced Model (memory_cache.hpp).
#include "memory_cache.hpp"

#include <algorithm>

#include "split.hpp"
#include "stacks.hpp"

namespace cardfit {

ModeMemory::ModeMemory(const Model& model, const Options& opt, Mode mode, int64_t seq, const Overheads& overheads)
    : model_(model, opt, mode, seq, overheads) {}
ModeMemory::~ModeMemory() = default;

SplitSolver& ModeMemory::solver() {
  if (!solver_) solver_ = std::make_unique<SplitSolver>(model_);
  return *solver_;
}

namespace {
// The adapters and the QLoRA base: read by the LoRA and QLoRA models only (graph_costs.cpp
// setup_for, is_lora_target, is_quantized).
void reset_adapter_fields(Options& k) {
  const Options d;
  k.lora_rank = d.lora_rank;
  k.lora_dropout = d.lora_dropout;
  k.lora_targets = d.lora_targets;
  k.qlora_quant = d.qlora_quant;
  k.quantize = d.quantize;
  k.bnb_version = d.bnb_version;
  k.kbit_upcast = d.kbit_upcast;
}

// The multi-GPU training plan's own options (parallel.cpp), but tp, which the serving engines read.
void reset_training_parallel_fields(Options& k) {
  const Options d;
  k.parallel = d.parallel;
  k.shard_group = d.shard_group;
  k.reshard_after_forward = d.reshard_after_forward;
  k.offload_optimizer = d.offload_optimizer;
  k.offload_params = d.offload_params;
  k.cp = d.cp;
  k.ep = d.ep;
}
}  // namespace

Options memory_options(const Options& o, Mode mode) {
  const Options d;
  Options k = o;
  // A new LoRA rank rebuilds two models, not four.
  if (mode == Mode::full || mode == Mode::serve) reset_adapter_fields(k);
  // The QLoRA model's upcast default depends on the requested mode and strategy (stacks.hpp
  // sharded_qlora), which the key drops below: the key holds the value it resolves to.
  if (mode == Mode::qlora) k.kbit_upcast = effective_options(o).kbit_upcast;
  // The requested mode and batch: each MemoryModel is built for its own mode and is batch-free.
  k.mode = d.mode;
  k.batch = d.batch;
  // The card table and its catalog (cards.cpp, validate.cpp, planner.cpp).
  k.card = d.card;
  k.cards = d.cards;
  k.custom_memory_bytes = d.custom_memory_bytes;
  k.custom_name = d.custom_name;
  k.custom_bf16 = d.custom_bf16;
  k.custom_tflops = d.custom_tflops;
  k.custom_bw_gbps = d.custom_bw_gbps;
  k.custom_usd_per_hr = d.custom_usd_per_hr;
  k.prices = d.prices;
  k.borderline_factor = d.borderline_factor;
  // The cost (cost.cpp; cost_batch: the split's micro-batches, a key of SplitSolver's own memo).
  k.epochs = d.epochs;
  k.samples = d.samples;
  k.cost_batch = d.cost_batch;
  k.mfu = d.mfu;
  // The fit advisor (fit_advisor.cpp) and the checkpoint reconciliation (checkpoint.cpp).
  k.fit_card = d.fit_card;
  k.fit_cards = d.fit_cards;
  k.checkpoint_total = d.checkpoint_total;
  k.safetensors_header = d.safetensors_header;
  k.safetensors_index = d.safetensors_index;
  // The serving engines (engines.cpp, serving_cost.cpp): they read the serve-mode model, not its inputs.
  k.engine = d.engine;
  k.gpu_memory_utilization = d.gpu_memory_utilization;
  k.max_num_seqs = d.max_num_seqs;
  k.max_num_batched_tokens = d.max_num_batched_tokens;
  k.block_size = d.block_size;
  k.cuda_graph_bytes = d.cuda_graph_bytes;
  k.mem_fraction_static = d.mem_fraction_static;
  k.cuda_memory_fraction = d.cuda_memory_fraction;
  k.max_batch_prefill_tokens = d.max_batch_prefill_tokens;
  k.gguf = d.gguf;
  k.cache_type_k = d.cache_type_k;
  k.cache_type_v = d.cache_type_v;
  k.n_gpu_layers = d.n_gpu_layers;
  k.prompt_tokens = d.prompt_tokens;
  k.output_tokens = d.output_tokens;
  k.bandwidth_efficiency = d.bandwidth_efficiency;
  // Multi-GPU training per rank (parallel.cpp reads the full-mode model; gpus stays: memory.cpp
  // reads it for DDP's buckets).
  reset_training_parallel_fields(k);
  k.tp = d.tp;
  return k;
}

Options serving_options(const Options& o) {
  const Options d;
  Options k = o;
  reset_adapter_fields(k);  // memory_options resets them for the serve model too
  // The requested mode, the cost, the borderline band, the fit advisor, the checkpoint
  // reconciliation and the multi-GPU training plan.
  k.mode = d.mode;
  k.borderline_factor = d.borderline_factor;
  k.epochs = d.epochs;
  k.samples = d.samples;
  k.cost_batch = d.cost_batch;
  k.fit_card = d.fit_card;
  k.fit_cards = d.fit_cards;
  k.checkpoint_total = d.checkpoint_total;
  k.safetensors_header = d.safetensors_header;
  k.safetensors_index = d.safetensors_index;
  reset_training_parallel_fields(k);
  return k;
}

std::shared_ptr<const SharedServing> MemoryCache::serving(const Options& key) const {
  return serving_ && serving_->key == key ? serving_->serving : nullptr;
}

void MemoryCache::keep_serving(const Options& key, std::shared_ptr<const SharedServing> serving) {
  serving_ = std::make_unique<KeptServing>(KeptServing{key, std::move(serving)});
}

std::shared_ptr<ModeMemory> MemoryCache::get(const Model& model, const Options& opt, Mode mode, int64_t seq,
                                             const Overheads& ov) {
  Options key = memory_options(opt, mode);
  auto same = [&](const Entry& e) {
    return e.mode == mode && e.seq == seq && e.overheads.cuda_context_bytes == ov.cuda_context_bytes &&
           e.overheads.allocator_reserve_fraction == ov.allocator_reserve_fraction && e.key == key;
  };
  auto it = std::find_if(entries_.begin(), entries_.end(), same);
  if (it != entries_.end()) {
    std::rotate(entries_.begin(), it, it + 1);  // most recently used first
    return entries_.front().memory;
  }
  auto memory = std::make_shared<ModeMemory>(model, opt, mode, seq, ov);
  if (entries_.size() >= kEntries) entries_.pop_back();
  entries_.insert(entries_.begin(), Entry{std::move(key), mode, seq, ov, memory});
  return memory;
}

}  // namespace cardfit

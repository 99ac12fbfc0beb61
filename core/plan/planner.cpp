// make_plan: defaults resolved, the requested configuration, batch-1 summaries per mode, the card
// table (exact largest batch by monotone search, borderline band, multi-card cuts), cost.
#include <algorithm>

#include "cost.hpp"
#include "plan.hpp"
#include "split.hpp"

namespace cardfit {

namespace {
constexpr int64_t kBillion = 1000000000;
constexpr int64_t kMaxBatch = 1 << 20;

// Reference pages: 512 tokens, 2048 for large models, capped at the model's context.
int64_t default_seq(const Model& m) {
  const int64_t want = m.parameter_count() >= kBillion ? 2048 : 512;
  return m.dims.max_positions > 0 ? std::min(want, m.dims.max_positions) : want;
}

int64_t default_serve_seq(const Model& m, int64_t train_seq) {
  const int64_t want = m.parameter_count() >= kBillion ? 4096 : train_seq;
  return m.dims.max_positions > 0 ? std::min(want, m.dims.max_positions) : want;
}

void add_assumptions(Plan& p, const Catalog& cat) {
  const Options& o = p.options;
  auto add = [&](std::string id, std::string text, std::string option, std::string value, std::string source) {
    p.assumptions.push_back({std::move(id), std::move(text), std::move(option), std::move(value), std::move(source)});
  };
  add("seq", "Training tokens per sample (512, or 2048 for models of 1B+ parameters, capped at the context).",
      "seq", std::to_string(p.seq), "reference pages");
  add("serve_seq", "Serving context per sequence (the training length, or 4096 for models of 1B+).", "serve_seq",
      std::to_string(p.serve_seq), "reference pages");
  add("precision", "Mixed precision keeps fp32 master weights and casts linear weights to 16 bit under autocast.",
      "precision", precision_name(o.precision), "docs/memory-model.md");
  add("optimizer", "Optimizer and its states; torch's foreach AdamW adds one state-sized temporary at the step.",
      "optimizer", optimizer_name(o.optimizer), "docs/memory-model.md");
  add("attention", "SDPA/flash attention keep no score matrix; eager attention stores the softmax per head.",
      "attention", attention_name(o.attention), "docs/memory-model.md");
  add("grad_ckpt", "Gradient checkpointing keeps each block's input and recomputes one block at a time.",
      "grad_ckpt", o.grad_ckpt ? "true" : "false", "docs/memory-model.md");
  add("lora", "LoRA on every linear layer but the head (or lora_targets), adapters in fp32 with AdamW states.",
      "lora_rank", std::to_string(o.lora_rank), "PEFT LoraConfig");
  add("cuda_context", "CUDA context and library workspaces outside max_memory_allocated.", "",
      std::to_string(cat.overheads.cuda_context_bytes), "data/cards.json defaults.cuda_context_bytes");
  add("allocator_reserve", "Caching-allocator reserve over the peak (fragmentation).", "",
      std::to_string(cat.overheads.allocator_reserve_fraction), "data/cards.json defaults.allocator_reserve_fraction");
  add("borderline", "A card is borderline when it holds the estimate but not the estimate × the borderline factor.",
      "", std::to_string(p.borderline_factor), "docs/accuracy.md");
  add("mfu", "Model FLOPs utilisation for the cost roofline.", "mfu", std::to_string(o.mfu.value_or(cat.mfu)),
      cat.mfu_source);
  add("run", "Cost of a run: epochs × samples × seq tokens.", "epochs", std::to_string(o.epochs) + " × " +
      std::to_string(o.samples) + " samples", "reference pages");
}
}  // namespace

Plan make_plan(const Model& m, const Options& options, const Catalog& cat) {
  Plan p;
  p.options = options;
  p.seq = options.seq > 0 ? options.seq : default_seq(m);
  p.serve_seq = options.serve_seq > 0 ? options.serve_seq : (options.seq > 0 ? options.seq : default_serve_seq(m, p.seq));
  auto seq_of = [&](Mode mode) { return mode == Mode::serve ? p.serve_seq : p.seq; };
  const Overheads& ov = cat.overheads;

  p.requested = plan_memory(m, options, options.mode, options.batch, seq_of(options.mode), ov);

  std::vector<MemoryModel> memory;
  for (Mode mode : all_modes) {
    memory.emplace_back(m, options, mode, seq_of(mode), ov);
    p.modes[int(mode)] = memory.back().at(1);
  }
  for (const auto& card : cat.cards) {
    CardRow row;
    row.card = &card;
    for (Mode mode : all_modes) {
      const int mi = int(mode);
      auto reserved = [&](int64_t batch, double factor) {
        const MemoryPlan mp = memory[mi].at(batch);
        return double(mp.reserved_bytes - ov.cuda_context_bytes) * factor + double(ov.cuda_context_bytes);
      };
      const double cap = double(card.capacity_bytes);
      row.max_batch[mi] = largest_fitting([&](int64_t b) { return reserved(b, 1.0) <= cap; }, kMaxBatch);
      if (row.max_batch[mi] > 0) {
        const int64_t safe = largest_fitting([&](int64_t b) { return reserved(b, p.borderline_factor) <= cap; },
                                             row.max_batch[mi]);
        row.borderline[mi] = safe < row.max_batch[mi] && safe == 0;
      } else {
        row.split[mi] = split_across_cards(m, p.modes[mi], card.capacity_bytes, ov);
      }
    }
    p.cards.push_back(std::move(row));
  }
  add_assumptions(p, cat);
  cost_plan(m, cat, p);
  return p;
}

}  // namespace cardfit

// Each mode's memory model (and its multi-card solver, whose answers are memoised per capacity)
// kept across re-plans of one traced Model: an option change that no memory model reads (the
// cards, the cost, the serving engine, the fit card, ...) reuses the four models instead of
// building them again. The key is the Options with those fields reset (memory_options), so an
// option this file does not name is part of the key: a new option can make the cache miss, never
// answer wrongly. tests/cpp/replan_cache_test.cpp plans, for every option of the schema, after a
// change on a warm planner and on a cold one and requires the same bytes.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "memory.hpp"

namespace cardfit {

class SplitSolver;     // split.hpp (which includes plan.hpp, which includes this)
struct SharedServing;  // serving_cost.hpp

/// One mode's memory model and the split solver over it (built on first need, then shared by
/// every card and every plan that reuses the model).
class ModeMemory {
 public:
  ModeMemory(const Model& model, const Options& opt, Mode mode, int64_t seq, const Overheads& overheads);
  ~ModeMemory();
  ModeMemory(const ModeMemory&) = delete;  // the solver holds a reference to model_
  ModeMemory& operator=(const ModeMemory&) = delete;
  const MemoryModel& model() const { return model_; }
  SplitSolver& solver();
  /// The training step's FLOPs per token in this mode (cost.cpp), counted on first need: the walk
  /// over the graph reads only options of this model's key (the adapters, checkpointing, the
  /// images, decoder_seq), so every plan that reuses the model reuses the count.
  struct StepFlops {
    double step_per_token = 0, forward_per_token = 0;
  };
  std::optional<StepFlops> step_flops;

 private:
  MemoryModel model_;
  std::unique_ptr<SplitSolver> solver_;
};

/// The plan's four memory models, by Mode; shared with the cache, read-only through the plan.
class MemoryModels {
 public:
  const MemoryModel& operator[](size_t mode) const { return modes_[mode]->model(); }
  size_t size() const { return modes_.size(); }
  ModeMemory& mode(size_t mode) const { return *modes_[mode]; }
  void push_back(std::shared_ptr<ModeMemory> m) { modes_.push_back(std::move(m)); }

 private:
  std::vector<std::shared_ptr<ModeMemory>> modes_;
};

/// `o` with every field that `mode`'s memory model does not read reset to its default: the cache
/// key. The fields reset are read only by the card table, the cost, the checks, the checkpoint
/// reconciliation, the serving engines, the multi-GPU plan and the fit advisor (each named in the
/// .cpp with the file that reads it), and, for the full and serve models, the LoRA and QLoRA ones.
Options memory_options(const Options& o, Mode mode);

/// `o` with the fields reset that neither the serving plan (serving_cost.cpp, engines.cpp,
/// serve_parallel.cpp) nor the serve mode's memory model reads: the key of a kept serving plan. Only
/// fields memory_options(o, Mode::serve) resets too are reset, so equal keys mean equal serve models.
Options serving_options(const Options& o);

/// The memory models of one traced Model, most recently used first, at most kEntries of them.
class MemoryCache {
 public:
  static constexpr size_t kEntries = 16;  // 4 modes × a few option sets the page switches between
  std::shared_ptr<ModeMemory> get(const Model& model, const Options& opt, Mode mode, int64_t seq,
                                  const Overheads& overheads);

  /// The serving plan kept under `key` (serving_options), or null; and keeping one in its place (the
  /// page's re-plans change LoRA, cost or training options far more often than serving ones).
  std::shared_ptr<const SharedServing> serving(const Options& key) const;
  void keep_serving(const Options& key, std::shared_ptr<const SharedServing> serving);

 private:
  struct Entry {
    Options key;
    Mode mode;
    int64_t seq;
    Overheads overheads;
    std::shared_ptr<ModeMemory> memory;
  };
  std::vector<Entry> entries_;
  struct KeptServing {
    Options key;
    std::shared_ptr<const SharedServing> serving;
  };
  std::unique_ptr<KeptServing> serving_;
};

}  // namespace cardfit

// tests/cpp/parallel_test_util.hpp: the per-rank tests' fixture (core/plan/parallel.cpp): Llama-3-8B
// (tests/golden/models/meta-llama-3-8b.json) traced once, its single-card memory model for one mode
// at 2,048 tokens, the per-rank model over it, and the dimensions the hand counts are written in.
#pragma once
#include <memory>
#include <string>

#include "plan/memory.hpp"
#include "plan/option_schema.hpp"
#include "plan/parallel.hpp"
#include "plan/plan.hpp"
#include "test_util.hpp"

namespace cardfit::test {

// Llama-3-8B: hidden 4096, KV width 8 × 128, 32 layers, MLP 14336, vocab 128256.
constexpr int64_t kHidden = 4096, kKvw = 1024, kLayers = 32, kInter = 14336, kVocab = 128256;
constexpr int64_t kLayer = 2 * kHidden * kHidden + 2 * kHidden * kKvw + 3 * kHidden * kInter + 2 * kHidden;
constexpr int64_t kBase = kLayers * kLayer + 2 * kVocab * kHidden + kHidden;

struct Llama8bRanks {
  Model model = trace_golden("meta-llama-3-8b.json");
  Options opt;
  std::unique_ptr<MemoryModel> single;
  Llama8bRanks(const std::string& options, Mode mode) : opt(parse_options(options)) {
    single = std::make_unique<MemoryModel>(model, opt, mode, 2048, load_catalog().overheads);
  }
  RankModel rank() const { return RankModel(model, opt, *single, parallel_layout(model, opt, opt.parallel, opt.gpus)); }
  // The optimizer step's moment among the single card's events.
  size_t step() const {
    for (size_t i = 0; i < single->events().size(); ++i)
      if (single->events()[i].phase == 2) return i;
    FAIL("no optimizer step");
    return 0;
  }
  // The i-th moment counted from the end (the step is the last).
  size_t from_end(size_t i) const { return single->events().size() - 1 - i; }
};

}  // namespace cardfit::test

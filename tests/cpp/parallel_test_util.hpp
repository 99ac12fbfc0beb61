// tests/cpp/parallel_test_util.hpp: the per-rank tests' fixture (core/plan/parallel.cpp): Llama-3-8B
// (tests/golden/models/meta-llama-3-8b.json) traced once, its single-card memory model for one mode
// at 2,048 tokens, the per-rank model over it, and the dimensions the hand counts are written in.
#pragma once
#include <memory>
#include <string>

#include <catch2/catch.hpp>

#include "error.hpp"
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

// Rank-16 LoRA on every projection, r × (in + out) each: q, o 4096 → 4096; k, v 4096 → 1024;
// gate, up 4096 → 14336; down 14336 → 4096.
constexpr int64_t kAllProjectionsRank = 16;
constexpr int64_t kAllProjectionsLayer =
    kAllProjectionsRank * (2 * (kHidden + kHidden) + 2 * (kHidden + kKvw) + 3 * (kHidden + kInter));
constexpr int64_t kAllProjectionsAdapters = kLayers * kAllProjectionsLayer;
/// Those adapters' options (`mode` lora or qlora, bf16 mixed precision, 2,048 tokens) under
/// `parallel` over n GPUs; `extra` is spliced in before the closing brace (",\"tp\":2").
inline std::string all_projections_options(const char* mode, const char* parallel, int64_t n, const char* extra = "") {
  return std::string(R"({"mode":")") + mode + R"(","seq":2048,"precision":"bf16-mixed","lora_rank":16,)" +
         R"("lora_targets":["q_proj","k_proj","v_proj","o_proj","gate_proj","up_proj","down_proj"],"gpus":)" +
         std::to_string(n) + R"(,"parallel":")" + parallel + "\"" + extra + "}";
}

/// The option a plan of `m` under `options` refuses (its Error's path, with code option_value), or
/// "no error".
inline std::string option_error_field(const Model& m, const std::string& options) {
  try {
    make_plan(m, parse_options(options), load_catalog());
  } catch (const Error& e) {
    CHECK(e.code == ErrorCode::option_value);
    return e.path;
  }
  return "no error";
}

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

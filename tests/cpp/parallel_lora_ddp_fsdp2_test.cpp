// LoRA across GPUs under DDP and FSDP2 (core/plan/parallel.cpp). DDP replicates the module: the
// base and the adapters whole on every rank, gradients, AdamW states and the reducer's buckets over
// the parameters that require grad (torch/nn/parallel/distributed.py _build_params_for_reducer).
// FSDP2 (torch/distributed/fsdp/_fully_shard) makes every parameter a DTensor chunked on dim 0, so
// the frozen base and the adapters shard apart; only the adapters' gradients are reduce-scattered
// (_fsdp_param_group.py post_backward: fsdp_params_with_grad) and only they have optimizer states.
// Numbers derived here by hand for Llama-3-8B, LoRA rank 16 on every projection, bf16 weights with
// fp32 adapters (PEFT's autocast_adapter_dtype upcasts bf16 adapters to fp32).
#include <catch2/catch.hpp>

#include "parallel_test_util.hpp"

namespace parallel_lora_ddp_fsdp2_test {

using namespace cardfit;
using namespace cardfit::test;
using R = RankModel;

namespace {
constexpr int64_t kRank = kAllProjectionsRank;
constexpr int64_t kAdapterLayer = kAllProjectionsLayer;
constexpr int64_t kAdapters = kAllProjectionsAdapters;

struct Setup : Llama8bRanks {
  explicit Setup(const std::string& options) : Llama8bRanks(options, Mode::lora) {}
};
std::string opts(const char* parallel, int64_t n) { return all_projections_options("lora", parallel, n); }
int64_t single_bytes(const Setup& s, size_t event, int c) {
  const auto& e = s.single->events()[event];
  return e.fixed[size_t(c)] + e.per_sample[size_t(c)];
}
}  // namespace

TEST_CASE("the hand count of Llama-3-8B's rank-16 adapters on every projection is the traced one", "[parallel]") {
  CHECK(lora_parameter_count(trace_golden("meta-llama-3-8b.json"), parse_options(opts("ddp", 2))) == kAdapters);
  CHECK(kAdapters == 41943040);
}

TEST_CASE("the single-card LoRA plan holds bf16 base weights and fp32 adapters", "[parallel]") {
  const Setup s(opts("ddp", 2));
  const auto& first = s.single->events().front();
  CHECK(first.fixed[MemoryModel::kWeightsC] == 2 * kBase);
  CHECK(first.fixed[MemoryModel::kAdaptersC] == 4 * kAdapters);
}

TEST_CASE("LoRA under DDP: everything whole per rank, buckets over the adapters' gradients only", "[parallel]") {
  for (int64_t n : {2, 4, 8}) {
    INFO("N = " << n);
    const Setup s(opts("ddp", n));
    const size_t st = s.step();
    const auto at = s.rank().moment(st, 1);
    CHECK(at[R::kParams] == 2 * kBase + 4 * kAdapters);  // bf16 base, fp32 adapters, replicated
    CHECK(at[R::kStates] == 8 * kAdapters);               // AdamW exp_avg + exp_avg_sq, fp32
    CHECK(at[R::kGrads] == 4 * kAdapters);                // the adapters' fp32 gradients
    CHECK(at[R::kBuckets] == 4 * kAdapters);              // one more copy (gradient_as_bucket_view False)
    CHECK(at[R::kGathered] == 0);
    for (size_t e = 0; e < s.single->events().size(); ++e)
      CHECK(s.rank().moment(e, 1)[R::kActs] == single_bytes(s, e, MemoryModel::kActsC));
  }
}

TEST_CASE("LoRA under FSDP2: base and adapters sharded apart, the adapters' gradients and states 1/N",
          "[parallel]") {
  for (int64_t n : {2, 4, 8}) {
    INFO("N = " << n);
    const Setup s(opts("fsdp2", n));
    const RankModel rm = s.rank();
    const size_t st = s.step();
    const auto at = rm.moment(st, 1);
    // Every dim 0 divides by N (rank 16, widths, vocab 128256 = 8 × 16032): no padding.
    REQUIRE(kRank % n == 0);
    REQUIRE(kVocab % n == 0);
    CHECK(at[R::kParams] == 2 * kBase / n + 4 * kAdapters / n);
    CHECK(at[R::kStates] == 8 * kAdapters / n);
    CHECK(at[R::kGrads] == 4 * kAdapters / n);
    CHECK(at[R::kOptTemp] == single_bytes(s, st, MemoryModel::kOptTempC) / n);
    CHECK(at[R::kBuckets] == 0);
    bool saw_unit_backward = false;
    for (size_t e = 0; e < s.single->events().size(); ++e) {
      const auto b = rm.moment(e, 1);
      CHECK(b[R::kActs] == single_bytes(s, e, MemoryModel::kActsC));
      // A decoder layer's backward: its adapters' unsharded bf16 gradients and their
      // reduce-scatter output, nothing for the frozen base (the root has no adapters).
      if (b[R::kUnshardedGrads] > 0) {
        saw_unit_backward = true;
        CHECK(b[R::kUnshardedGrads] == 2 * (kAdapterLayer + kAdapterLayer / n));
      }
    }
    CHECK(saw_unit_backward);
  }
}

TEST_CASE("LoRA per-rank peaks: FSDP2's falls with N, DDP's does not", "[parallel]") {
  const int64_t ddp2 = Setup(opts("ddp", 2)).rank().peak(1);
  const int64_t f2 = Setup(opts("fsdp2", 2)).rank().peak(1), f4 = Setup(opts("fsdp2", 4)).rank().peak(1),
                f8 = Setup(opts("fsdp2", 8)).rank().peak(1);
  CHECK(f2 > f4);
  CHECK(f4 > f8);
  CHECK(Setup(opts("ddp", 4)).rank().peak(1) == ddp2);
  CHECK(Setup(opts("ddp", 8)).rank().peak(1) == ddp2);
  CHECK(ddp2 > f2);
  // DDP's peak is the single-card plan's with gpus > 1 (which counts DDP's buckets, one more copy
  // of the adapters' gradients) and above the one-card plan's, by at most those buckets.
  const Setup two(opts("ddp", 2)), one(opts("none", 1));
  CHECK(ddp2 == two.single->peak(1));
  CHECK(ddp2 > one.single->peak(1));
  CHECK(ddp2 <= one.single->peak(1) + 4 * kAdapters);
}

TEST_CASE("LoRA across GPUs: every strategy planned, each a candidate for the smallest N") {
  const Catalog cat = load_catalog();
  const Model m = trace_golden("meta-llama-3-8b.json");
  for (const char* p : {"ddp", "fsdp2", "fsdp", "hsdp"}) {  // FSDP1: parallel_peft_fsdp1_test.cpp
    INFO(p);
    const Plan plan = make_plan(m, parse_options(opts(p, 4)), cat);
    CHECK(plan.parallel.supported);
    CHECK(plan.parallel.rank.peak_bytes > 0);
  }
  const Plan fsdp2 = make_plan(m, parse_options(opts("fsdp2", 4)), cat);
  bool fsdp2_candidate = false, fsdp1_candidate = false;
  for (const auto& row : fsdp2.parallel.cards)
    for (const auto& sm : row.smallest) {
      fsdp2_candidate |= sm.strategy == Parallel::fsdp2;
      fsdp1_candidate |= sm.strategy == Parallel::fsdp || sm.strategy == Parallel::hsdp;
    }
  CHECK(fsdp2_candidate);
  CHECK(fsdp1_candidate);
}

TEST_CASE("LoRA under FSDP2 past the rank: lora_A's dim 0 (r = 16) pads to one row per rank at N = 32",
          "[parallel]") {
  const Setup s(opts("fsdp2", 32));
  const auto at = s.rank().moment(s.step(), 1);
  // lora_A (r × in): ceil(16 / 32) = 1 row of `in` per rank; lora_B (out × r): out / 32 rows of r.
  constexpr int64_t kIns = 6 * kHidden + kInter;
  constexpr int64_t kOutRows = (2 * kHidden + 2 * kKvw + 2 * kInter + kHidden) / 32;
  constexpr int64_t kShardLayer = kIns + kRank * kOutRows;
  static_assert(kShardLayer == 60416, "hand count");
  REQUIRE(kVocab % 32 == 0);
  CHECK(at[R::kParams] == 2 * kBase / 32 + 4 * kLayers * kShardLayer);
  CHECK(at[R::kStates] == 8 * kLayers * kShardLayer);
  CHECK(at[R::kGrads] == 4 * kLayers * kShardLayer);
}
}  // namespace parallel_lora_ddp_fsdp2_test

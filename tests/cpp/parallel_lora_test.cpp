// LoRA across GPUs under DeepSpeed ZeRO (core/plan/parallel.cpp): only the adapters train, so the
// fp32 master, the optimizer states and the gradient partitions are the adapters' (the HF Trainer
// builds its optimizer from the parameters that require grad; DeepSpeed partitions that group),
// while the frozen base is held as the 16-bit model is: whole on every rank for ZeRO-1/2
// (stage_1_and_2.py), partitioned with everything else for ZeRO-3 (partition_parameters.py).
// Numbers derived here by hand for Llama-3-8B, LoRA rank 8 on q_proj and v_proj.
#include <catch2/catch.hpp>

#include "parallel_test_util.hpp"

namespace parallel_lora_test {

using namespace cardfit;
using namespace cardfit::test;
using R = RankModel;

namespace {
// Rank 8: q_proj A 8 × 4096 + B 4096 × 8, v_proj A 8 × 4096 + B 1024 × 8, per layer.
constexpr int64_t kRank = 8;
constexpr int64_t kAdapterLayer = kRank * (kHidden + kHidden) + kRank * (kHidden + kKvw);
constexpr int64_t kAdapters = kLayers * kAdapterLayer;

struct Setup : Llama8bRanks {
  explicit Setup(const std::string& options) : Llama8bRanks(options, Mode::lora) {}
};
std::string opts(const char* parallel, int64_t n) {
  return std::string(R"({"mode":"lora","seq":2048,"precision":"fp16-mixed","autocast":false,"lora_rank":8,)") +
         R"("lora_targets":["q_proj","v_proj"],"gpus":)" + std::to_string(n) + R"(,"parallel":")" + parallel + "\"}";
}
}  // namespace

TEST_CASE("the hand count of Llama-3-8B's q/v adapters is the traced one", "[parallel]") {
  CHECK(trace_golden("meta-llama-3-8b.json").parameter_count() == kBase);
  CHECK(lora_parameter_count(trace_golden("meta-llama-3-8b.json"), parse_options(opts("zero2", 4))) == kAdapters);
}

TEST_CASE("LoRA under ZeRO-2: the 16-bit model whole per rank, the adapters' master, states, gradients partitioned",
          "[parallel]") {
  for (int64_t n : {2, 4}) {
    INFO("N = " << n);
    const Setup s(opts("zero2", n));
    const auto at = s.rank().moment(s.step(), 1);
    // DeepSpeed's fp16 engine casts the module (adapters too) to 16 bit: 2 bytes per parameter.
    CHECK(at[R::kParams] == 2 * (kBase + kAdapters));
    // The flat adapter group padded to 2 × N: divisible here, so the partition is kAdapters / N.
    REQUIRE(kAdapters % (2 * n) == 0);
    const int64_t part = kAdapters / n;
    CHECK(at[R::kMaster] == 4 * part);       // fp32 master partition
    CHECK(at[R::kStates] == 8 * part);       // AdamW exp_avg + exp_avg_sq, fp32
    CHECK(at[R::kGrads] == 2 * part);        // averaged_gradients, 16-bit
    CHECK(at[R::kOptTemp] == 4 * part);      // the partition's fp32 gradient at the step
    CHECK(at[R::kStepCopies] == 2 * part);   // flatten's 16-bit copy, live while the fp32 one is made
  }
}

TEST_CASE("LoRA under ZeRO-3: the base partitioned too, the gradient buffer the adapters' partition", "[parallel]") {
  const Setup s(opts("zero3", 4));
  const auto at = s.rank().moment(s.step(), 1);
  // Every adapter matrix divides by 4: ceil(numel / N) sums to kAdapters / 4.
  CHECK(at[R::kMaster] == 4 * kAdapters / 4);
  CHECK(at[R::kStates] == 8 * kAdapters / 4);
  CHECK(at[R::kGrads] == 2 * kAdapters / 4);
  // The partitioned 16-bit model holds a quarter of base + adapters (each block divides by 4) plus
  // the persistent norms (4096 elements each: 2 per layer and the final one), whole.
  CHECK(at[R::kParams] == 2 * ((kBase + kAdapters) / 4 + (2 * kLayers + 1) * kHidden));
}

TEST_CASE("LoRA across GPUs: ZeRO-2 holds the whole 16-bit model per rank") {
  const Catalog cat = load_catalog();
  const Model m = trace_golden("meta-llama-3-8b.json");
  const Plan zero = make_plan(m, parse_options(opts("zero2", 4)), cat);
  CHECK(zero.parallel.supported);
  CHECK(zero.parallel.rank.peak_bytes > 2 * (kBase + kAdapters));
}
}  // namespace parallel_lora_test

// QLoRA across GPUs under DDP (core/plan/parallel.cpp): the HF Trainer launched on N processes with
// device_map {"": local_rank} gives every rank the whole 4-bit model, as on one card; the reducer
// buckets the gradients of the parameters that require grad, the adapters alone
// (torch/nn/parallel/distributed.py _build_params_for_reducer, gradient_as_bucket_view False: one
// more copy; a single-card plan at gpus N counts them too). Llama-3-8B, rank 16 on every projection, NF4; the adapter counts are the hand counts
// of parallel_lora_ddp_fsdp2_test.cpp, the 4-bit base is the single card's.
#include <catch2/catch.hpp>

#include "parallel_test_util.hpp"

namespace parallel_qlora_ddp_test {

using namespace cardfit;
using namespace cardfit::test;
using R = RankModel;

namespace {
constexpr int64_t kAdapters = kAllProjectionsAdapters;
std::string opts(const char* parallel, int64_t n, const char* extra = "") {
  return all_projections_options("qlora", parallel, n, extra);
}
// The optimizer step: the last moment of the single card's step (a load phase may come first).
size_t step_of(const MemoryModel& mm) {
  const auto& ev = mm.events();
  for (size_t i = 0; i < ev.size(); ++i)
    if (ev[i].phase == ev.back().phase) return i;
  return ev.size() - 1;
}
int64_t single_bytes(const MemoryModel& mm, size_t e, int c) {
  return mm.events()[e].fixed[size_t(c)] + mm.events()[e].per_sample[size_t(c)];
}
}  // namespace

TEST_CASE("QLoRA under DDP: the single card's 4-bit model whole per rank, buckets over the adapters' gradients",
          "[parallel]") {
  for (int64_t n : {2, 4, 8}) {
    INFO("N = " << n);
    const Llama8bRanks s(opts("ddp", n), Mode::qlora);
    const RankModel rm = s.rank();
    const size_t st = step_of(*s.single);
    const auto at = rm.moment(st, 1);
    // The 4-bit base is below half the bf16 one (NF4: half a byte per linear element plus
    // its absmax; embeddings, norms and head in fp32 after prepare_model_for_kbit_training).
    const int64_t weights = single_bytes(*s.single, st, MemoryModel::kWeightsC);
    CHECK(weights < kBase);
    CHECK(at[R::kParams] == weights + single_bytes(*s.single, st, MemoryModel::kAdaptersC));
    CHECK(single_bytes(*s.single, st, MemoryModel::kAdaptersC) == 4 * kAdapters);  // fp32 adapters
    CHECK(at[R::kStates] == 8 * kAdapters);   // AdamW's two fp32 moments over the adapters
    CHECK(at[R::kGrads] == 4 * kAdapters);    // the adapters' fp32 gradients
    CHECK(at[R::kBuckets] == 4 * kAdapters);  // the reducer's copy of them
    CHECK(at[R::kGathered] == 0);
    // Every moment is the single card's with its buckets: a single-card plan at gpus N already
    // counts DDP's buckets (memory-model.md §5), so the rank peak is the single peak.
    CHECK(single_bytes(*s.single, st, MemoryModel::kDdpC) == 4 * kAdapters);
    for (size_t e = 0; e < s.single->events().size(); ++e) {
      const auto m = rm.moment(e, 1);
      CHECK(m[R::kActs] == single_bytes(*s.single, e, MemoryModel::kActsC));
      CHECK(m[R::kBuckets] == 4 * kAdapters);
    }
    CHECK(rm.peak(1) == s.single->peak(1));
  }
}

TEST_CASE("QLoRA across GPUs: planned under DDP with a note and under ZeRO-1/2, refused with tp", "[parallel]") {
  const Catalog cat = load_catalog();
  const Model m = trace_golden("meta-llama-3-8b.json");
  const Plan ddp = make_plan(m, parse_options(opts("ddp", 4)), cat);
  REQUIRE(ddp.parallel.supported);
  CHECK(ddp.parallel.note.find("DDP") != std::string::npos);
  CHECK(ddp.parallel.cards.empty());  // no sharding strategy to search for a smallest N
  CHECK(ddp.parallel.rank.peak_bytes == ddp.memory[int(Mode::qlora)].peak(1));
  for (const char* st : {"zero1", "zero2"}) {  // counted in parallel_peft_fsdp1_test.cpp, as the others
    INFO(st);
    const Plan p = make_plan(m, parse_options(opts(st, 4)), cat);
    CHECK(p.parallel.supported);
    bool named = false;
    for (const auto& a : p.parallel.assumptions) named = named || a.id == "qlora_zero12";
    CHECK(named);
  }
  const Plan tp = make_plan(m, parse_options(opts("ddp", 4, R"(,"tp":2)")), cat);
  CHECK_FALSE(tp.parallel.supported);
}
}  // namespace parallel_qlora_ddp_test

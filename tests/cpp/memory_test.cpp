// Memory terms that are exact (KV cache, weights) and properties of the rest (monotone in batch).
#include <catch2/catch.hpp>

#include "arch/registry.hpp"
#include "config.hpp"
#include "plan/memory.hpp"
#include "test_util.hpp"

using namespace cardfit;

namespace {
int64_t component(const MemoryPlan& p, const std::string& id) {
  for (const auto& c : p.components)
    if (c.id == id) return c.bytes;
  return -1;
}
}  // namespace

TEST_CASE("KV cache is exact: layers × kv heads × head_dim × 2 (K and V) × bytes × tokens") {
  const Model m = trace_model(Config::parse(example("Meta-Llama-3-8B.json")));
  Options o;
  const MemoryPlan p = plan_memory(m, o, Mode::serve, 3, 4096, {});
  CHECK(component(p, "kv_cache") == int64_t(32) * 8 * 128 * 2 * 2 * 4096 * 3);
  CHECK(component(p, "weights") == m.parameter_count() * 2);
}

TEST_CASE("Mistral's sliding window caps the cache at 4096 tokens") {
  const Model m = trace_model(Config::parse(example("Mistral-7B-v0.1.json")));
  Options o;
  const int64_t at4k = component(plan_memory(m, o, Mode::serve, 1, 4096, {}), "kv_cache");
  const int64_t at16k = component(plan_memory(m, o, Mode::serve, 1, 16384, {}), "kv_cache");
  CHECK(at4k == at16k);
}

TEST_CASE("training memory grows with batch and the peak is the largest phase") {
  const Model m = trace_model(Config::parse(example("gpt2.json")));
  for (Mode mode : {Mode::full, Mode::lora, Mode::qlora, Mode::serve}) {
    Options o;
    int64_t prev = 0;
    for (int64_t b : {1, 2, 3, 8, 64}) {
      const MemoryPlan p = plan_memory(m, o, mode, b, 512, {805306368, 0.05});
      CHECK(p.peak_bytes > prev);
      prev = p.peak_bytes;
      for (const auto& ph : p.phases) CHECK(ph.bytes <= p.peak_bytes);
      CHECK(p.reserved_bytes == p.peak_bytes + int64_t(std::ceil(p.peak_bytes * 0.05)) + 805306368);
    }
  }
}

TEST_CASE("full fine-tune holds fp32 weights, grads and AdamW states") {
  const Model m = trace_model(Config::parse(example("gpt2.json")));
  Options o;
  const MemoryPlan p = plan_memory(m, o, Mode::full, 1, 512, {});
  CHECK(component(p, "weights") == 124439808LL * 4);
  CHECK(component(p, "optimizer_states") == 124439808LL * 8);
  o.precision = Precision::bf16;
  CHECK(component(plan_memory(m, o, Mode::full, 1, 512, {}), "weights") == 124439808LL * 2);
}

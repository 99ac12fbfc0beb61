// FSDP with context parallel shards over the data-parallel and context-parallel ranks together
// (torchtitan parallelize_llama: fully_shard on the "dp_shard_cp" mesh), so a rank's parameter
// shard does not grow with cp at a fixed card count; ZeRO keeps partitioning over dp alone.
#include <catch2/catch.hpp>

#include <string>

#include "plan/option_schema.hpp"
#include "plan/plan.hpp"
#include "test_util.hpp"

namespace parallel_cp_shard_test {

using namespace cardfit;

namespace {
int64_t rank_component(const std::string& options, const std::string& id) {
  const Model m = trace_golden("meta-llama-3-8b.json");
  const Catalog cat = load_catalog();
  const Plan p = make_plan(m, parse_options(options), cat);
  REQUIRE(p.parallel.active);
  for (const auto& c : p.parallel.rank.components)
    if (c.id == id) return c.bytes;
  FAIL("no per-rank component " << id);
  return 0;
}
std::string opts(const std::string& strategy, int cp) {
  return R"({"mode":"full","gpus":8,"seq":4096,"grad_ckpt":true,"parallel":")" + strategy + R"(","cp":)" +
         std::to_string(cp) + "}";
}
}  // namespace

TEST_CASE("FSDP with context parallel shards the parameters over dp x cp ranks", "[parallel]") {
  for (const char* s : {"fsdp", "fsdp2"}) {
    const int64_t one = rank_component(opts(s, 1), "parameters");
    CHECK(one > 0);
    CHECK(rank_component(opts(s, 2), "parameters") == one);
    CHECK(rank_component(opts(s, 8), "parameters") == one);
    CHECK(rank_component(opts(s, 4), "optimizer_states") == rank_component(opts(s, 1), "optimizer_states"));
  }
}

TEST_CASE("ZeRO with context parallel still partitions over the data-parallel ranks", "[parallel]") {
  // dp = gpus / cp: the partition doubles when cp halves dp (no dp x cp partitioning is modelled).
  CHECK(rank_component(opts("zero1", 2), "optimizer_states") > rank_component(opts("zero1", 1), "optimizer_states"));
}
}  // namespace parallel_cp_shard_test

// torchtitan's per-op selective activation checkpointing (core/plan/selective_ac.hpp): the bytes a
// Llama layer keeps, derived here by hand from its dimensions and the save list, and how they enter
// the step's moments.
#include <catch2/catch.hpp>
#include <cstring>

#include "arch/registry.hpp"
#include "config.hpp"
#include "plan/memory.hpp"
#include "plan/selective_ac.hpp"
#include "test_util.hpp"

namespace selective_ac_test {

using namespace cardfit;
using M = MemoryModel;

namespace {
const Overheads kOv{805306368, 0.05};
// Llama-3-8B (web/examples/Meta-Llama-3-8B.json): hidden 4096, 32 heads of 128, 8 KV heads,
// MLP 14336, 32 layers.
constexpr int64_t kHidden = 4096, kKv = 8 * 128, kInter = 14336, kHeads = 32, kHeadDim = 128, kLayers = 32;
constexpr int64_t kSeq = 1024;

const Model& llama() {
  static const Model m = trace_model(Config::parse(example("Meta-Llama-3-8B.json")));
  return m;
}
size_t first_layer(const Model& m) {
  for (size_t bi = 0; bi < m.blocks.size(); ++bi)
    if (m.blocks[bi].layer == 0) return bi;
  FAIL("no layer 0");
  return 0;
}
int64_t kept_in(const Model& m, const std::string& options, bool compiled) {
  const Options o = parse_options(options);
  const StepSetup s = make_setup(m, o, Mode::full);
  return op_sac_kept(m, first_layer(m), s, kSeq, 0, compiled);
}
int64_t kept(const std::string& options, bool compiled) { return kept_in(llama(), options, compiled); }
const M::Event& loss(const M& mm) {
  for (const auto& e : mm.events())
    if (e.what && std::strcmp(e.what, "loss") == 0) return e;
  FAIL("no loss moment");
  return mm.events().front();
}
}  // namespace

TEST_CASE("op policy: a Llama layer keeps wq, wv, w1, w2 outputs and SDPA's output and logsumexp") {
  // mm calls per layer forward: wq 1, wk 2, wv 3, wo 4, w1 5, w3 6, w2 7; the odd ones are saved
  // (bf16 under bf16-mixed autocast). SDPA: output [H, T, D] bf16 + logsumexp [H, T] fp32.
  const int64_t mm = 2 * (kHidden + kKv + kInter + kHidden);
  const int64_t sdpa = kHeads * kHeadDim * 2 + kHeads * 4;
  CHECK(kept("{}", false) == (mm + sdpa) * kSeq);
  // Compiled: w2's output is read only by the residual add, whose backward does not read it.
  CHECK(kept("{}", true) == (mm - 2 * kHidden + sdpa) * kSeq);
  // Float8Linear calls torch.mm on Float8Tensors: the policy sees aten.mm, the output is bf16.
  CHECK(kept(R"({"float8": true})", false) == (mm + sdpa) * kSeq);

  // Eager attention runs bmm and softmax: only the mm outputs remain.
  CHECK(kept(R"({"attention": "eager"})", false) == mm * kSeq);
}

TEST_CASE("op policy: a biased linear runs addmm, neither saved nor counted (Qwen2.5-7B)") {
  // Qwen2.5-7B (web/examples/Qwen2.5-7B.json): hidden 3584, 28 heads of 128, MLP 18944; q, k, v
  // have biases (addmm), so o_proj is mm 1 (saved), gate 2, up 3 (saved), down 4.
  const Model qwen = trace_model(Config::parse(example("Qwen2.5-7B.json")));
  const int64_t mm = 2 * (3584 + 18944);
  const int64_t sdpa = 28 * 128 * 2 + 28 * 4;
  CHECK(kept_in(qwen, "{}", false) == (mm + sdpa) * kSeq);
}

TEST_CASE("op policy: every checkpointed layer keeps its saved outputs beside its input until backward") {
  const M layer = M(llama(), parse_options(R"({"grad_ckpt": true})"), Mode::full, kSeq, kOv);
  const M op = M(llama(), parse_options(R"({"grad_ckpt": true, "ckpt_policy": "selective_op"})"), Mode::full, kSeq, kOv);
  const int64_t per_layer = kept("{}", false);
  REQUIRE(per_layer > 0);
  CHECK(loss(op).per_sample[M::kCkptC] - loss(layer).per_sample[M::kCkptC] == kLayers * per_layer);
  // Nothing else moves at the end of the forward.
  for (int c = 0; c < M::kComponents; ++c) {
    if (c == M::kCkptC) continue;
    CHECK(loss(op).per_sample[size_t(c)] == loss(layer).per_sample[size_t(c)]);
    CHECK(loss(op).fixed[size_t(c)] == loss(layer).fixed[size_t(c)]);
  }
  // Without grad_ckpt the policy has nothing to act on.
  const M none = M(llama(), parse_options("{}"), Mode::full, kSeq, kOv);
  const M none_op = M(llama(), parse_options(R"({"ckpt_policy": "selective_op"})"), Mode::full, kSeq, kOv);
  CHECK(loss(none).per_sample == loss(none_op).per_sample);
}
}  // namespace selective_ac_test

// Multi-GPU training per rank (core/plan/parallel.hpp) against numbers derived here by hand from
// the frameworks' code: FSDP1 (torch/distributed/fsdp/_flat_param.py, _runtime_utils.py) and
// DeepSpeed ZeRO-3 (deepspeed/runtime/zero/stage3.py, partition_parameters.py, config.py) for
// Llama-3-8B and Llama-3-70B at N = 2, 4, 8; hybrid sharding, offload, and the coded errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "plan/memory.hpp"
#include "plan/option_schema.hpp"
#include "plan/parallel.hpp"
#include "plan/plan.hpp"
#include "parallel_test_util.hpp"
#include "report/report.hpp"
#include "test_util.hpp"

namespace parallel_test {

using namespace cardfit;
using R = RankModel;

namespace {
constexpr int64_t kWorkspace = int64_t(32) << 20;  // cuBLAS workspace, once per process (memory.cpp)

// Llama parameter counts, by hand from modeling_llama.py (q, k, v, o, gate, up, down, 2 norms per
// layer; embed, final norm and untied head at the root).
struct Llama {
  int64_t hidden, inter, layers, heads, kv, vocab;
  int64_t head_dim() const { return hidden / heads; }
  int64_t layer() const {
    const int64_t kvw = kv * head_dim();
    return 2 * hidden * hidden + 2 * hidden * kvw + 3 * hidden * inter + 2 * hidden;
  }
  int64_t embed() const { return vocab * hidden; }
  int64_t final_block() const { return hidden + vocab * hidden; }  // the "final" block: norm + head
  int64_t root() const { return embed() + final_block(); }
  int64_t total() const { return layers * layer() + root(); }
  int64_t norms() const { return (2 * layers + 1) * hidden; }  // each 4096 / 8192 elements <= 1e5: persistent
};
constexpr Llama k8b{4096, 14336, 32, 32, 8, 128256};
constexpr Llama k70b{8192, 28672, 80, 64, 8, 128256};

struct Setup {
  Model model;
  Options opt;
  Catalog cat = load_catalog();
  Overheads ov;
  std::unique_ptr<MemoryModel> single;
  Setup(const std::string& file, const std::string& options_json) : model(trace_golden(file)), opt(parse_options(options_json)) {
    ov = cat.overheads;
    single = std::make_unique<MemoryModel>(model, opt, Mode::full, 2048, ov);
  }
  RankModel rank(Parallel s) const { return RankModel(model, opt, *single, parallel_layout(model, opt, s, opt.gpus)); }
  size_t event(const std::string& what) const {
    const auto& ev = single->events();
    for (size_t i = 0; i < ev.size(); ++i) {
      const auto& e = ev[i];
      const std::string name = e.what ? e.what
                               : e.block >= 0 ? (e.phase == 0 ? "forward of " : "backward of ") + model.blocks[size_t(e.block)].name
                                              : "";
      if (name == what || (e.phase == 2 && what == "optimizer step")) return i;
    }
    FAIL("no moment " << what);
    return 0;
  }
  // The single card's activation-side bytes at a moment (unsharded under DP: the same per rank).
  int64_t acts(size_t ei) const {
    const auto& e = single->events()[ei];
    int64_t s = 0;
    using M = MemoryModel;
    for (int c : {M::kActsC, M::kCkptC, M::kRecomputeC, M::kLogitsC, M::kWorkC, M::kWorkspaceC})
      s += e.fixed[size_t(c)] + e.per_sample[size_t(c)];
    return s;
  }
};

int64_t total(const std::array<int64_t, R::kCount>& a) {
  int64_t s = 0;
  for (int64_t x : a) s += x;
  return s;
}
std::string opts(int64_t n, const char* parallel, const char* extra = "") {
  return std::string(R"({"mode":"full","seq":2048,"gpus":)") + std::to_string(n) + R"(,"parallel":")" + parallel + "\"" + extra + "}";
}
}  // namespace

TEST_CASE("the hand counts of Llama-3-8B and -70B are the traced ones", "[parallel]") {
  CHECK(trace_golden("meta-llama-3-8b.json").parameter_count() == k8b.total());
  CHECK(trace_golden("meta-llama-3-70b.json").parameter_count() == k70b.total());
  CHECK(k70b.total() == 70553706496);
}

TEST_CASE("FSDP1 FULL_SHARD per rank: Llama-3-8B and -70B at N = 2 4 8", "[parallel]") {
  for (const auto& [file, L] : {std::pair{"meta-llama-3-8b.json", k8b}, std::pair{"meta-llama-3-70b.json", k70b}}) {
    for (int64_t n : {2, 4, 8}) {
      INFO(file << " N = " << n);
      Setup s(file, opts(n, "fsdp"));
      const RankModel rm = s.rank(Parallel::fsdp);
      const int64_t P = L.total();
      // Padding: FlatParamHandle._get_shard chunks each unit's flat parameter into N pieces of
      // ceil(numel / N); every Llama unit here divides by 8, so no padding: shard = numel / N.
      REQUIRE(L.layer() % n == 0);
      REQUIRE(L.root() % n == 0);
      // The step (bf16-mixed, AdamW foreach): fp32 flat shards 4·P/N, exp_avg + exp_avg_sq 8·P/N,
      // fp32 sharded gradients 4·P/N, the foreach temporary 4·P/N, the cuBLAS workspace.
      const size_t step = s.event("optimizer step");
      const auto at_step = rm.moment(step, 1);
      CHECK(at_step[R::kParams] == 4 * P / n);
      CHECK(at_step[R::kStates] == 8 * P / n);
      CHECK(at_step[R::kGrads] == 4 * P / n);
      CHECK(at_step[R::kOptTemp] == 4 * P / n);
      CHECK(at_step[R::kGathered] == 0);
      CHECK(total(at_step) == 20 * P / n + kWorkspace);
      // Forward of layer 0: the root unit gathered in bf16 (not resharded after forward: the
      // _post_forward_reshard root rule), layer 0 and the prefetched layer 1, 2 bytes each;
      // no gradients; activations as on one card (DP does not split them); no autocast copies.
      const size_t f0 = s.event("forward of model.layers.0");
      const auto fwd = rm.moment(f0, 1);
      CHECK(fwd[R::kGathered] == 2 * (L.root() + 2 * L.layer()));
      CHECK(fwd[R::kGrads] == 0);
      CHECK(fwd[R::kCast] == 0);
      CHECK(total(fwd) == 12 * P / n + 2 * (L.root() + 2 * L.layer()) + s.acts(f0));
      // Backward of the last layer: root + layer 31 + prefetched layer 30 gathered; the head and
      // final norm's gradients still unsharded (the root reduce-scatters after the embedding's
      // backward), layer 31's unsharded gradient and its reduce-scatter output shard; no
      // sharded layer gradients yet.
      const size_t b31 = s.event("backward of model.layers." + std::to_string(L.layers - 1));
      const auto bwd = rm.moment(b31, 1);
      CHECK(bwd[R::kGathered] == 2 * (L.root() + 2 * L.layer()));
      CHECK(bwd[R::kUnshardedGrads] == 2 * (L.final_block() + L.layer() + L.layer() / n));
      CHECK(bwd[R::kGrads] == 0);
      // Backward of layer 0: 31 (79) layers' fp32 shards reduced.
      const auto b0 = rm.moment(s.event("backward of model.layers.0"), 1);
      CHECK(b0[R::kGrads] == 4 * (L.layers - 1) * (L.layer() / n));
      // The plan's peak is the largest moment.
      int64_t peak = 0;
      for (size_t e = 0; e < s.single->events().size(); ++e) peak = std::max(peak, total(rm.moment(e, 1)));
      CHECK(rm.peak(1) == peak);
    }
  }
}

TEST_CASE("FSDP1 pads each unit's flat parameter to a multiple of N", "[parallel]") {
  Setup s("meta-llama-3-8b.json", opts(7, "fsdp"));
  const RankModel rm = s.rank(Parallel::fsdp);
  // 7 does not divide a layer (218,112,000) nor the root (1,050,677,248): ceil per unit.
  const int64_t shard = 32 * ((k8b.layer() + 6) / 7) + (k8b.root() + 6) / 7;
  REQUIRE(shard * 7 > k8b.total());
  CHECK(rm.moment(s.event("optimizer step"), 1)[R::kStates] == 8 * shard);
}

TEST_CASE("FSDP2 reshard_after_forward True, False and an int", "[parallel]") {
  // fully_shard: each parameter chunked on dim 0 (every Llama-3-8B dim 0 divides by 8: no
  // padding). At the loss, True keeps only the root gathered (its own reshard_after_forward is
  // False); False keeps every layer through forward gathered until its backward; 2 keeps each
  // layer sharded over 2 ranks (1/2 of it) until its backward.
  for (const auto& [rfa, kept] : {std::pair{1, int64_t(0)}, std::pair{0, 32 * k8b.layer()}, std::pair{2, 32 * k8b.layer() / 2}}) {
    INFO("reshard_after_forward " << rfa);
    Setup s("meta-llama-3-8b.json", opts(8, "fsdp2", (R"(,"reshard_after_forward":)" + std::to_string(rfa)).c_str()));
    const RankModel rm = s.rank(Parallel::fsdp2);
    CHECK(rm.moment(s.event("loss"), 1)[R::kGathered] == 2 * (k8b.root() + kept));
    CHECK(rm.moment(s.event("optimizer step"), 1)[R::kStates] == 8 * k8b.total() / 8);
  }
}

TEST_CASE("ZeRO-3 per rank: Llama-3-8B and -70B at N = 2 4 8", "[parallel]") {
  for (const auto& [file, L] : {std::pair{"meta-llama-3-8b.json", k8b}, std::pair{"meta-llama-3-70b.json", k70b}}) {
    for (int64_t n : {2, 4, 8}) {
      INFO(file << " N = " << n);
      Setup s(file, opts(n, "zero3"));
      const RankModel rm = s.rank(Parallel::zero3);
      const int64_t P = L.total();
      // _partition_param: every Llama tensor's numel divides by 8, so the partitions sum to P/N.
      const int64_t part = P / n;
      // At the step: 16-bit partitions 2·P/N plus the persistent norms whole (numel <= 1e5:
      // ds_persist) 2·norms; fp32 master partition 4·P/N; fp32 Adam states 8·P/N; the 16-bit
      // grad_partitions_flat_buffer 2·P/N; the IPG bucket 2 × reduce_bucket_size (5e8); the fp32
      // gradient of one sub-group, 4 × min(sub_group_size 1e9, P/N); the workspace.
      const auto st = rm.moment(s.event("optimizer step"), 1);
      CHECK(st[R::kParams] == 2 * part + 2 * L.norms());
      CHECK(st[R::kMaster] == 4 * part);
      CHECK(st[R::kStates] == 8 * part);
      CHECK(st[R::kGrads] == 2 * part);
      CHECK(st[R::kBuckets] == 2 * 500000000);
      CHECK(st[R::kOptTemp] == 4 * std::min<int64_t>(1000000000, part));
      CHECK(total(st) == 16 * part + 2 * L.norms() + 1000000000 + 4 * std::min<int64_t>(1000000000, part) + kWorkspace);
      // Forward of layer 0: its largest module (gate/up/down, hidden × inter) fetched plus the
      // prefetch bucket (5e7), under max_live_parameters (1e9); nothing retained yet.
      const size_t f0 = s.event("forward of model.layers.0");
      const auto fwd = rm.moment(f0, 1);
      CHECK(fwd[R::kGathered] == 2 * (L.hidden * L.inter + 50000000));
      CHECK(total(fwd) == 16 * part + 2 * L.norms() + 1000000000 + 2 * (L.hidden * L.inter + 50000000) + s.acts(f0));
      // The loss: the final block (norm + head) is re-used by its backward right after (reuse
      // distance 0 < 1e9), so it stays gathered; the layer before it is more than 1e9 elements of
      // trace away (head forward + backward = 2 × 525M or 2 × 1.05B), so it is released.
      const auto loss = rm.moment(s.event("loss"), 1);
      CHECK(loss[R::kGathered] == 2 * L.final_block());
    }
  }
}

TEST_CASE("hybrid shard is FSDP over the shard group", "[parallel]") {
  Setup h("meta-llama-3-8b.json", opts(16, "hsdp", R"(,"shard_group":8)"));
  Setup f("meta-llama-3-8b.json", opts(8, "fsdp"));
  const RankModel hr = h.rank(Parallel::hsdp), fr = f.rank(Parallel::fsdp);
  for (size_t e = 0; e < h.single->events().size(); ++e) CHECK(hr.moment(e, 1) == fr.moment(e, 1));
  CHECK(hr.peak(1) == fr.peak(1));
}

TEST_CASE("offload_optimizer moves exactly the optimizer's state off the GPU", "[parallel]") {
  for (const char* z : {"zero2", "zero3"}) {
    INFO(z);
    const Parallel p = std::string(z) == "zero2" ? Parallel::zero2 : Parallel::zero3;
    Setup on("meta-llama-3-8b.json", opts(4, z, R"(,"offload_optimizer":true)"));
    Setup off("meta-llama-3-8b.json", opts(4, z));
    const RankModel a = on.rank(p), b = off.rank(p);
    for (size_t e = 0; e < on.single->events().size(); ++e) {
      std::array<int64_t, R::kCount> host{};
      const auto gpu = a.moment(e, 1, &host), base = b.moment(e, 1);
      // fp32 master, states, the step's fp32 gradients and the gradient partitions: host. The
      // ZeRO-2 step's GPU copies of the gradients (flatten, fp64 norm) are not made: the step
      // runs on the host (stage_1_and_2.py step, cpu_offload).
      const int64_t moved = base[R::kMaster] + base[R::kStates] + base[R::kOptTemp] + base[R::kGrads];
      CHECK(total(base) - total(gpu) == moved + base[R::kStepCopies]);
      CHECK(total(host) == moved);
      CHECK(gpu[R::kParams] == base[R::kParams]);
      CHECK(gpu[R::kBuckets] == base[R::kBuckets]);
    }
  }
}

TEST_CASE("ZeRO-3 offload_param keeps only persistent, fetched and prefetched parameters", "[parallel]") {
  Setup s("meta-llama-3-8b.json", opts(8, "zero3", R"(,"offload_params":true)"));
  const auto st = s.rank(Parallel::zero3).moment(s.event("optimizer step"), 1);
  CHECK(st[R::kParams] == 2 * k8b.norms());
}

TEST_CASE("TP CP EP and shard-group degrees that do not divide are coded errors naming the field", "[parallel]") {
  auto field_of = [](const std::string& file, const std::string& options) {
    return test::option_error_field(trace_golden(file), options);
  };
  CHECK(field_of("meta-llama-3-8b.json", opts(6, "fsdp", R"(,"tp":3)")) == "tp");    // 32 heads
  CHECK(field_of("meta-llama-3-8b.json", opts(16, "fsdp", R"(,"tp":16)")) == "tp");  // 8 KV heads: no replication
  CHECK(field_of("meta-llama-3-8b.json", opts(4, "fsdp", R"(,"tp":2,"cp":4)")) == "tp");
  CHECK(field_of("meta-llama-3-8b.json", opts(6, "fsdp", R"(,"cp":4)")) == "cp");
  CHECK(field_of("meta-llama-3-8b.json", opts(8, "fsdp", R"(,"ep":2)")) == "ep");    // no experts
  CHECK(field_of("mixtral-8x7b-v0.1.json", opts(6, "zero3", R"(,"ep":3)")) == "ep");  // 8 experts
  CHECK(field_of("meta-llama-3-8b.json", opts(12, "hsdp", R"(,"shard_group":5)")) == "shard_group");
  CHECK(field_of("meta-llama-3-8b.json", opts(8, "fsdp", R"(,"reshard_after_forward":2)")) == "reshard_after_forward");
  CHECK(field_of("meta-llama-3-8b.json", opts(8, "fsdp", R"(,"offload_optimizer":true)")) == "offload_optimizer");
  CHECK(field_of("meta-llama-3-8b.json", opts(8, "zero2", R"(,"offload_params":true)")) == "offload_params");
  CHECK(field_of("meta-llama-3-8b.json", opts(8, "fsdp", R"(,"tp":2)")) == "no error");
}

TEST_CASE("TP splits the weights and part of the activations and CP divides per-token tensors", "[parallel]") {
  Setup s("meta-llama-3-8b.json", opts(8, "zero1", R"(,"tp":2)"));
  Setup d("meta-llama-3-8b.json", opts(8, "zero1"));
  const auto t = s.rank(Parallel::zero1).moment(s.event("optimizer step"), 1);
  const auto u = d.rank(Parallel::zero1).moment(d.event("optimizer step"), 1);
  // The 16-bit model: linears, embedding and head halve; the 65 norms stay whole.
  CHECK(t[R::kParams] == 2 * ((k8b.total() - k8b.norms()) / 2 + k8b.norms()));
  CHECK(u[R::kParams] == 2 * k8b.total());
  Setup c("meta-llama-3-8b.json", opts(8, "fsdp", R"(,"cp":2)"));
  Setup f("meta-llama-3-8b.json", opts(8, "fsdp"));
  const size_t e = c.event("forward of model.layers.5");
  CHECK(c.rank(Parallel::fsdp).moment(e, 1)[R::kActs] == (f.rank(Parallel::fsdp).moment(e, 1)[R::kActs] + 1) / 2);
}

TEST_CASE("the parallel section: requested N and smallest N per card and topology", "[parallel]") {
  const Model m = trace_golden("meta-llama-3-70b.json");
  const Catalog cat = load_catalog();  // the plan points into it
  const Plan p = make_plan(m, parse_options(opts(8, "zero3", R"(,"card":"h100-sxm","grad_ckpt":true)")), cat);
  REQUIRE(p.parallel.active);
  CHECK(p.parallel.rank.peak_bytes > 0);
  int64_t sum = 0;
  for (const auto& c : p.parallel.rank.components) sum += c.bytes;
  CHECK(sum == p.parallel.rank.peak_bytes);
  REQUIRE(p.parallel.topology);
  CHECK(p.parallel.topology->nodes == 1);
  CHECK(p.parallel.topology->recommended);
  bool saw_4090 = false;
  for (const auto& row : p.parallel.cards) {
    for (const auto& sm : row.smallest) {
      if (sm.gpus == 0) continue;
      // Smallest: it fits, and one unit fewer does not (the search's claim).
      CHECK(sm.per_rank_reserved <= row.card->capacity_bytes);
      CHECK(sm.topology.nodes == (sm.gpus + 7) / 8);
      if (row.card->id == "rtx4090" && sm.strategy == Parallel::zero3 && !sm.offload) {
        saw_4090 = true;
        CHECK(sm.gpus > 8);  // 70B in 24 GB cards: many consumer cards
        CHECK_FALSE(sm.topology.recommended);
      }
    }
  }
  CHECK(saw_4090);
  // ZeRO-3 with both offloads on one H100: the GPU keeps persistent and gathered parameters,
  // buckets and activations; the host holds 16-bit partitions, master, states and gradients.
  for (const auto& row : p.parallel.cards)
    for (const auto& sm : row.smallest)
      if (row.card->id == "h100-sxm" && sm.offload) {
        CHECK(sm.gpus == 1);
        CHECK(sm.host_bytes >= 16 * k70b.total());
      }
  const auto j = nlohmann::json::parse(parallel_report(p));
  CHECK(j.at("strategy") == "zero3");
  CHECK(j.at("per_rank").at("peak_bytes") == p.parallel.rank.peak_bytes);
}

TEST_CASE("with parallel unset nothing changes and no section is written", "[parallel]") {
  const Model m = trace_golden("meta-llama-3-8b.json");
  const Plan p = make_plan(m, parse_options(R"({"gpus":1})"), load_catalog());
  CHECK_FALSE(p.parallel.active);
  CHECK(Options{}.parallel == Parallel::none);
}

TEST_CASE("expert parallel splits the experts over ep, their data-parallel shards over dp / ep", "[parallel]") {
  // Mixtral 8 experts over 8 ranks: each rank owns one expert whole (ep 8), so under ZeRO-3 the
  // expert weights are no further sharded (dp / ep = 1): per rank the experts are still 1/8, and
  // the state equals plain ZeRO-3 over 8 up to padding; the all-to-all buffers are added.
  Setup e("mixtral-8x7b-v0.1.json", opts(8, "zero3", R"(,"ep":8)"));
  Setup z("mixtral-8x7b-v0.1.json", opts(8, "zero3"));
  const auto a = e.rank(Parallel::zero3).moment(e.event("optimizer step"), 1);
  const auto b = z.rank(Parallel::zero3).moment(z.event("optimizer step"), 1);
  CHECK(double(a[R::kStates]) == Approx(double(b[R::kStates])).epsilon(1e-6));
  const size_t f = e.event("forward of model.layers.3");
  // 2 buffers × 2048 tokens × top-2 × hidden 4096 × 2 bytes.
  CHECK(e.rank(Parallel::zero3).moment(f, 1)[R::kComm] == 2 * 2048 * 2 * 4096 * 2);
}

// BLOOM-560M full fine-tune under ZeRO-2 on 2 GPUs, fp16 without autocast (DeepSpeed's fp16 engine,
// the BELLE#402 runs), by hand from DeepSpeed v0.9.0 deepspeed/runtime/zero/stage_1_and_2.py and
// modeling_bloom.py: the fp32 master partition and AdamW's two fp32 moments on it, once each (the
// single card's states hold the master: memory.cpp optimizer_cost), and the step's three moments.
TEST_CASE("ZeRO-2 without autocast: BLOOM-560M master and states partitioned once and the step copies", "[parallel]") {
  constexpr int64_t h = 1024, vocab = 250880, layers = 24;
  constexpr int64_t layer = 2 * 2 * h + (3 * h * h + 3 * h) + (h * h + h) + (4 * h * h + 4 * h) + (4 * h * h + h);
  constexpr int64_t embed = vocab * h;                       // tied to lm_head: one tensor, the largest
  constexpr int64_t P = layers * layer + embed + 2 * h + 2 * h;  // + embedding and final layer norms
  static_assert(layer == 12596224 && P == 559214592);
  // One flat group padded to 2 (nccl_start_alignment_factor) × 2 ranks: 559,214,592 divides by 4.
  constexpr int64_t part = P / 2;
  const char* base = R"({"mode":"full","seq":512,"gpus":2,"parallel":"zero2","precision":"fp16-mixed",)"
                     R"("autocast":false,"optimizer":"adamw","deepspeed_bucket":1048576)";
  Setup s("bloom-560m.json", std::string(base) + "}");
  CHECK(s.model.parameter_count() == P);
  const auto st = s.rank(Parallel::zero2).moment(s.event("optimizer step"), 1);
  CHECK(st[R::kParams] == 2 * P);                 // the 16-bit model, whole (bit16_groups_flat)
  CHECK(st[R::kMaster] == 4 * part);              // single_partition_of_fp32_groups: 1,118,429,184
  CHECK(st[R::kStates] == 8 * part);              // exp_avg + exp_avg_sq: 2,236,858,368 (was 24 × part)
  // FusedAdam (no temporary): the norm's moment is the largest. get_grad_norm_direct copies each
  // gradient of the partition to fp64, one at a time; the embedding's 256,901,120 elements are
  // whole in rank 0's partition: 8 × embed = 2,055,208,960 with the 16-bit partition live, against
  // the flatten (16-bit copy + fp32 partition: 6 × part) and the step (fp32 partition: 4 × part).
  CHECK(st[R::kGrads] == 2 * part);
  CHECK(st[R::kStepCopies] == 8 * embed);
  CHECK(st[R::kOptTemp] == 0);
  CHECK(st[R::kBuckets] == 2 * 1048576);
  // torch_adam (optimizer_impl forloop): torch's single-tensor AdamW over the flat fp32 partition
  // holds exp_avg_sq.sqrt() and its quotient (8 × part) with the fp32 gradient (4 × part), the
  // 16-bit gradients freed: 3,355,287,552 bytes, more than the norm's 2,614,423,552.
  Setup t("bloom-560m.json", std::string(base) + R"(,"optimizer_impl":"forloop"})");
  const auto ts = t.rank(Parallel::zero2).moment(t.event("optimizer step"), 1);
  CHECK(ts[R::kGrads] == 0);
  CHECK(ts[R::kStepCopies] == 0);
  CHECK(ts[R::kOptTemp] == 12 * part);
  CHECK(total(ts) == 2 * P + 4 * part + 8 * part + 12 * part + 2 * 1048576 + kWorkspace);
  CHECK(t.rank(Parallel::zero2).peak(1) >= total(ts));
}
}  // namespace parallel_test

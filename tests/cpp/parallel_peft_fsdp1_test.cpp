// LoRA and QLoRA under FSDP1 (core/plan/parallel.cpp) as the HF Trainer wraps them (transformers
// integrations/fsdp.py update_fsdp_plugin_peft: PEFT's fsdp_auto_wrap_policy makes every lora_A /
// lora_B a unit of its own, so a decoder layer's FlatParameter is its frozen base alone). QLoRA is
// PEFT's recipe (docs/source/accelerate/fsdp.md, examples/sft/configs/fsdp_config_qlora.yaml:
// FULL_SHARD, use_orig_params false, bnb_4bit_quant_storage bf16), counted by hand from the code:
// - bitsandbytes quantize_4bit packs n weights into n / 2 bytes, n / 4 bf16 storage elements, which
//   FSDP1 flattens with the decoder layer's two RMSNorm weights (16-bit: TRL skips
//   prepare_model_for_kbit_training for sharded QLoRA) into one FlatParameter, ceil(numel / N) per rank;
// - the QuantState (absmax 8-bit per 64 weights, an fp32 scale per 256 blocks) is an attribute,
//   whole on every rank and never offloaded;
// - every lora_A / lora_B is a unit of its own (peft fsdp_auto_wrap_policy), fp32, sharded; its
//   gradients and AdamW's two moments over the shard.
// LoRA: the same with the layer's 16-bit weights in the FlatParameter and no QuantState.
// Llama-3-8B (the fixture) and Llama-3-70B at N = 2, 4, 8, rank 16 on every projection.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "parallel_test_util.hpp"

namespace parallel_peft_fsdp1_test {

using namespace cardfit;
using namespace cardfit::test;
using R = RankModel;

namespace {
struct LlamaDims {
  int64_t hidden, kv_width, layers, inter, vocab;
  int64_t linear_per_layer() const { return 2 * hidden * hidden + 2 * hidden * kv_width + 3 * hidden * inter; }
  // The decoder layer's FlatParameter: 4-bit storage as bf16 elements and the two norms.
  int64_t unit_elements() const { return linear_per_layer() / 4 + 2 * hidden; }
  int64_t root_elements() const { return 2 * vocab * hidden + hidden; }  // untied embedding and head, final norm
  // Double quantization: one 8-bit absmax per 64 weights, one fp32 scale per 256 absmax.
  int64_t quant_constants() const { return layers * (linear_per_layer() / 64 + linear_per_layer() / 64 / 256 * 4); }
  int64_t adapters(int64_t r) const {
    return layers * r * (2 * (hidden + hidden) + 2 * (hidden + kv_width) + 3 * (hidden + inter));
  }
  // One rank's flat shards (every count here divides by 2, 4 and 8: no padding).
  int64_t base_shard(int64_t n) const { return layers * unit_elements() / n + root_elements() / n; }
  // LoRA: the layer's FlatParameter holds its 16-bit weights.
  int64_t lora_unit_elements() const { return linear_per_layer() + 2 * hidden; }
  int64_t lora_base_shard(int64_t n) const { return layers * lora_unit_elements() / n + root_elements() / n; }
};
constexpr LlamaDims k8b{kHidden, kKvw, kLayers, kInter, kVocab};
constexpr LlamaDims k70b{8192, 1024, 80, 28672, 128256};

std::string opts(int64_t n, const char* extra = "") { return all_projections_options("qlora", "fsdp", n, extra); }
std::string lora_opts(const char* parallel, int64_t n) { return all_projections_options("lora", parallel, n); }

struct Ranks {
  Model model;
  Options opt;
  std::unique_ptr<MemoryModel> single;
  Ranks(const char* golden, const std::string& options) : model(trace_golden(golden)), opt(parse_options(options)) {
    single = std::make_unique<MemoryModel>(model, opt, opt.mode, 2048, load_catalog().overheads);
  }
  RankModel rank() const { return RankModel(model, opt, *single, parallel_layout(model, opt, opt.parallel, opt.gpus)); }
  size_t step() const { return single->events().size() - 1; }
  size_t forward_of(const std::string& block) const {
    for (size_t i = 0; i < single->events().size(); ++i) {
      const auto& e = single->events()[i];
      if (e.phase == 0 && e.block >= 0 && model.blocks[size_t(e.block)].name == block) return i;
    }
    FAIL("no forward of " << block);
    return 0;
  }
};

void check_state(const char* golden, const LlamaDims& d) {
  for (int64_t n : {2, 4, 8}) {
    INFO(golden << ", N = " << n);
    const Ranks s(golden, opts(n));
    const RankModel rm = s.rank();
    const int64_t a = d.adapters(kAllProjectionsRank);
    // The single card under the same options keeps the norms, embeddings and head 16-bit (no upcast).
    const auto& st = s.single->events()[s.step()];
    CHECK(st.fixed[MemoryModel::kWeightsC] ==
          d.layers * (d.linear_per_layer() / 2 + 2 * 2 * d.hidden) + d.quant_constants() + 2 * d.root_elements());
    const auto at = rm.moment(s.step(), 1);
    CHECK(at[R::kParams] == 2 * d.base_shard(n) + 4 * a / n);
    CHECK(at[R::kQuantState] == d.quant_constants());
    CHECK(at[R::kStates] == 8 * a / n);  // AdamW's two fp32 moments over the adapter shards
    CHECK(at[R::kGrads] == 4 * a / n);   // fp32 sharded adapter gradients
    CHECK(at[R::kGathered] == 0);
    CHECK(at[R::kCast] == 0);            // FSDP's mixed precision gathers 16-bit: autocast casts nothing
    // Forward of a middle layer: the root unit (never resharded after forward), the running layer,
    // the prefetched next one (16-bit, gathered whole), and the running layer's adapter units.
    const auto fw = rm.moment(s.forward_of("model.layers.10"), 1);
    const int64_t layer_adapters = a / d.layers;
    CHECK(fw[R::kGathered] == 2 * (d.root_elements() + 2 * d.unit_elements() + layer_adapters));
    // Activations are the single card's (checkpointed, QLoRA's default).
    CHECK(fw[R::kCkpt] == s.single->events()[s.forward_of("model.layers.10")].per_sample[MemoryModel::kCkptC]);
  }
}
}  // namespace

TEST_CASE("QLoRA under FSDP1: 4-bit storage sharded per unit, QuantState whole, fp32 adapter units (Llama-3-8B)",
          "[parallel]") {
  check_state("meta-llama-3-8b.json", k8b);
}

TEST_CASE("QLoRA under FSDP1: the same counts for Llama-3-70B", "[parallel]") {
  check_state("meta-llama-3-70b.json", k70b);
}

TEST_CASE("LoRA under FSDP1 and HSDP: the frozen 16-bit base flat per unit, fp32 adapter units", "[parallel]") {
  for (const char* parallel : {"fsdp", "hsdp"})
    for (int64_t n : {2, 4, 8}) {
      INFO(parallel << ", N = " << n);  // hsdp shards within the node: 8 ranks or fewer are one group
      const Ranks s("meta-llama-3-8b.json", lora_opts(parallel, n));
      const RankModel rm = s.rank();
      const int64_t a = k8b.adapters(kAllProjectionsRank);
      const auto at = rm.moment(s.step(), 1);
      CHECK(at[R::kParams] == 2 * k8b.lora_base_shard(n) + 4 * a / n);
      CHECK(at[R::kQuantState] == 0);
      CHECK(at[R::kStates] == 8 * a / n);
      CHECK(at[R::kGrads] == 4 * a / n);
      const auto fw = rm.moment(s.forward_of("model.layers.10"), 1);
      CHECK(fw[R::kGathered] == 2 * (k8b.root_elements() + 2 * k8b.lora_unit_elements() + a / k8b.layers));
    }
}

TEST_CASE("QLoRA under FSDP2 (torchtune's NF4Tensor chunks): every stored byte sharded, units gathered as stored",
          "[parallel]") {
  for (int64_t n : {2, 4, 8}) {
    INFO("N = " << n);  // every dim 0 here (4096, 1024, 14336, 128256, r = 16) divides by 8: no padding
    const Ranks s("meta-llama-3-8b.json", all_projections_options("qlora", "fsdp2", n));
    const RankModel rm = s.rank();
    const LlamaDims& d = k8b;
    const int64_t a = d.adapters(kAllProjectionsRank);
    // The layer as stored: 4-bit data and constants of its linears, its two bf16 norms, its fp32 adapters.
    const int64_t layer = d.linear_per_layer() / 2 + d.quant_constants() / d.layers + 2 * 2 * d.hidden + 4 * a / d.layers;
    const auto at = rm.moment(s.step(), 1);
    CHECK(at[R::kParams] == (d.layers * layer + 2 * d.root_elements()) / n);
    CHECK(at[R::kQuantState] == 0);
    CHECK(at[R::kStates] == 8 * a / n);
    CHECK(at[R::kGrads] == 4 * a / n);
    const auto fw = rm.moment(s.forward_of("model.layers.10"), 1);
    CHECK(fw[R::kGathered] == 2 * d.root_elements() + 2 * layer);
  }
  // torchao's NF4 only.
  CHECK(option_error_field(trace_golden("meta-llama-3-8b.json"),
                           all_projections_options("qlora", "fsdp2", 4, R"(,"qlora_quant":"fp4")")) == "qlora_quant");
}

TEST_CASE("QLoRA under ZeRO-3: the 4-bit storage partitioned as 16-bit elements, the QuantState whole",
          "[parallel]") {
  for (int64_t n : {2, 4, 8}) {
    INFO("N = " << n);
    const Ranks s("meta-llama-3-8b.json", all_projections_options("qlora", "zero3", n));
    const LlamaDims& d = k8b;
    const int64_t a = d.adapters(kAllProjectionsRank);
    // Per layer: the storage, the norms and the adapters (parameters of their modules), partitioned;
    // the norms (4,096 elements, under stage3_param_persistence_threshold) also whole on every rank.
    const int64_t partitions = d.layers * (d.unit_elements() + a / d.layers) / n + d.root_elements() / n;
    const int64_t persistent = (2 * d.layers + 1) * d.hidden;
    const auto at = s.rank().moment(s.step(), 1);
    CHECK(at[R::kParams] == 2 * (partitions + persistent));
    CHECK(at[R::kQuantState] == d.quant_constants());
    CHECK(at[R::kMaster] == 4 * a / n);  // the fp32 master partition of the adapters
  }
  const Ranks off("meta-llama-3-8b.json", all_projections_options("qlora", "zero3", 4, R"(,"offload_params":true)"));
  std::array<int64_t, R::kCount> host{};
  const auto at = off.rank().moment(off.step(), 1, &host);
  CHECK(at[R::kQuantState] == k8b.quant_constants());
  CHECK(host[R::kQuantState] == 0);
  CHECK(at[R::kParams] == 2 * (2 * kLayers + 1) * kHidden);  // the persistent norms stay
  CHECK(option_error_field(trace_golden("meta-llama-3-8b.json"),
                           all_projections_options("qlora", "zero3", 4, R"(,"qlora_quant":"gptq")")) == "qlora_quant");
}

TEST_CASE("QLoRA under ZeRO-1/2: the whole 4-bit model per rank, the adapters' optimizer partitioned", "[parallel]") {
  const LlamaDims& d = k8b;
  const int64_t a = d.adapters(kAllProjectionsRank);  // 41,943,040: divides by 2 x 8, no padding
  for (const char* st : {"zero1", "zero2"})
    for (int64_t n : {2, 4, 8}) {
      INFO(st << ", N = " << n);
      const Ranks s("meta-llama-3-8b.json", all_projections_options("qlora", st, n));
      // DeepSpeed's engine casts the upcast module back to bf16: the single card starts without upcast.
      CHECK(s.single->events()[s.step()].fixed[MemoryModel::kWeightsC] ==
            d.layers * (d.linear_per_layer() / 2 + 2 * 2 * d.hidden) + d.quant_constants() + 2 * d.root_elements());
      const auto at = s.rank().moment(s.step(), 1);
      // Every rank: the packed 4-bit data in its own bytes, the bf16 norms, embedding and head, the
      // bf16 adapters; the QuantState beside it.
      CHECK(at[R::kParams] == d.layers * d.linear_per_layer() / 2 + 2 * (2 * d.layers * d.hidden + d.root_elements()) + 2 * a);
      CHECK(at[R::kQuantState] == d.quant_constants());
      CHECK(at[R::kMaster] == 4 * a / n);  // the adapters' fp32 master partition
      CHECK(at[R::kStates] == 8 * a / n);
      // The adapters' gradients and step as LoRA's under the same strategy (the same flat group).
      const Ranks lora("meta-llama-3-8b.json", all_projections_options("lora", st, n));
      const auto l = lora.rank().moment(lora.step(), 1);
      for (int c : {R::kMaster, R::kStates, R::kGrads, R::kOptTemp, R::kStepCopies}) CHECK(at[size_t(c)] == l[size_t(c)]);
    }
  CHECK(option_error_field(trace_golden("meta-llama-3-8b.json"),
                           all_projections_options("qlora", "zero2", 4, R"(,"kbit_upcast":true)")) == "kbit_upcast");
}

TEST_CASE("QLoRA under FSDP1 with CPU offload: shards, gradients and states on the host, the QuantState stays",
          "[parallel]") {
  const Ranks s("meta-llama-3-70b.json", opts(2, R"(,"offload_params":true)"));
  std::array<int64_t, R::kCount> host{};
  const auto at = s.rank().moment(s.step(), 1, &host);
  const int64_t a = k70b.adapters(kAllProjectionsRank);
  CHECK(at[R::kParams] == 0);
  CHECK(at[R::kStates] == 0);
  CHECK(at[R::kQuantState] == k70b.quant_constants());
  CHECK(host[R::kParams] == 2 * k70b.base_shard(2) + 4 * a / 2);
  CHECK(host[R::kStates] == 8 * a / 2);
  CHECK(host[R::kQuantState] == 0);
}

TEST_CASE("QLoRA under FSDP1 in the plan: per-rank memory falls with N, smallest N per card over the sharded strategies",
          "[parallel]") {
  const Catalog cat = load_catalog();
  const Model m = trace_golden("meta-llama-3-70b.json");
  int64_t last = INT64_MAX;
  for (int64_t n : {2, 4, 8}) {
    const Plan p = make_plan(m, parse_options(opts(n)), cat);
    REQUIRE(p.parallel.supported);
    CHECK(p.parallel.rank.peak_bytes < last);
    last = p.parallel.rank.peak_bytes;
    bool named = false;
    for (const auto& a : p.parallel.assumptions) named = named || a.id == "peft_fsdp1";
    CHECK(named);
    REQUIRE_FALSE(p.parallel.cards.empty());
    for (const auto& row : p.parallel.cards) {
      REQUIRE(row.smallest.size() == 7);  // fsdp, fsdp2, hsdp, zero1, zero2, zero3, zero3 with offload
      CHECK(row.smallest[0].strategy == Parallel::fsdp);
      CHECK(row.smallest[1].strategy == Parallel::fsdp2);
      CHECK(row.smallest[2].strategy == Parallel::hsdp);
      CHECK(row.smallest[3].strategy == Parallel::zero1);
      CHECK(row.smallest[4].strategy == Parallel::zero2);
      CHECK(row.smallest[5].strategy == Parallel::zero3);
      CHECK(row.smallest[6].offload);
      // ZeRO-1/2 keep the whole 4-bit model per rank: they need at least as many cards as ZeRO-3.
      if (row.smallest[5].gpus > 0) CHECK((row.smallest[4].gpus == 0 || row.smallest[4].gpus >= row.smallest[5].gpus));
    }
  }
  // The single-card QLoRA plan of the same options is the no-upcast model the ranks start from.
  const Plan one = make_plan(m, parse_options(opts(2)), cat);
  const Plan upcast = make_plan(m, parse_options(all_projections_options("qlora", "ddp", 2)), cat);
  CHECK(one.memory[int(Mode::qlora)].peak(1) < upcast.memory[int(Mode::qlora)].peak(1));
}

TEST_CASE("QLoRA under FSDP1: an fp32 upcast or a non-4-bit base is a coded error naming the option", "[parallel]") {
  const Model m = trace_golden("meta-llama-3-8b.json");
  auto field_of = [&](const std::string& options) { return option_error_field(m, options); };
  CHECK(field_of(opts(4, R"(,"kbit_upcast":true)")) == "kbit_upcast");
  CHECK(field_of(opts(4, R"(,"qlora_quant":"int8")")) == "qlora_quant");
  CHECK(field_of(all_projections_options("qlora", "hsdp", 16, R"(,"qlora_quant":"gptq")")) == "qlora_quant");
  CHECK(field_of(opts(4, R"(,"kbit_upcast":false)")) == "no error");
}
}  // namespace parallel_peft_fsdp1_test

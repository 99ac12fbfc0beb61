// Muon (optimizer muon; core/plan/memory.cpp optimizer_cost, muon_step_temporary): torch.optim.Muon
// (torch/optim/_muon.py @098e03f) on the hidden weight matrices, AdamW on the rest, counted by hand.
#include <catch2/catch.hpp>
#include <set>

#include "config.hpp"
#include "plan/memory.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"

namespace muon_test {

using namespace cardfit;

namespace {
// Newton-Schulz on an m x n matrix whose gradient has `bytes` per element: the nesterov update, four
// bf16 m x n matrices, two bf16 squares of the short side.
int64_t ns_temporary(int64_t m, int64_t n, int64_t bytes) { return m * n * (bytes + 8) + std::min(m, n) * std::min(m, n) * 4; }
}  // namespace

TEST_CASE("Muon: one momentum buffer per hidden matrix, AdamW for embeddings, the tied head and vectors") {
  const Model m = example_model("gpt2.json");
  const int64_t P = 124439808;
  // Per layer: c_attn 768 x 2304, attn c_proj 768 x 768, c_fc 768 x 3072, mlp c_proj 3072 x 768.
  const int64_t M = 12 * (768 * 2304 + 768 * 768 + 768 * 3072 + 3072 * 768);
  REQUIRE(M == 84934656);
  Options o;
  o.optimizer = Optimizer::muon;
  const MemoryPlan p = plan_memory(m, o, Mode::full, 1, 512, {});
  // fp32 master (bf16-mixed): momentum 4 bytes per Muon element, exp_avg + exp_avg_sq 8 per AdamW one.
  CHECK(component(p, "optimizer_states") == M * 4 + (P - M) * 8);
  // foreach AdamW's state-sized temporary over its own group outweighs Muon's largest matrix.
  CHECK(phase(p, "optimizer_step") == P * 8 + M * 4 + (P - M) * 8 + (P - M) * 4 + component(p, "library_workspace"));
  // Fused AdamW: the step's temporary is Muon's, on c_fc (or mlp c_proj) with fp32 gradients.
  o.optimizer_impl = OptimizerImpl::fused;
  const MemoryPlan f = plan_memory(m, o, Mode::full, 1, 512, {});
  CHECK(phase(f, "optimizer_step") == P * 8 + M * 4 + (P - M) * 8 + ns_temporary(768, 3072, 4) + component(f, "library_workspace"));
  // Against AdamW: Muon saves one fp32 buffer per hidden-matrix element.
  o.optimizer = Optimizer::adamw;
  CHECK(component(plan_memory(m, o, Mode::full, 1, 512, {}), "optimizer_states") - component(f, "optimizer_states") == M * 4);
}

TEST_CASE("Muon: pure bf16 Llama-3-8B keeps bf16 momentum, its step peaking on the MLP matrices") {
  const Model m = example_model("Meta-Llama-3-8B.json");
  const int64_t P = m.parameter_count();
  const int64_t M = int64_t(32) * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336);
  REQUIRE(M == 6979321856);
  Options o;
  o.optimizer = Optimizer::muon;
  o.optimizer_impl = OptimizerImpl::fused;
  o.precision = Precision::bf16;
  const MemoryPlan p = plan_memory(m, o, Mode::full, 1, 512, {});
  CHECK(component(p, "optimizer_states") == M * 2 + (P - M) * 4);
  CHECK(phase(p, "optimizer_step") ==
        P * 2 + P * 2 + M * 2 + (P - M) * 4 + ns_temporary(14336, 4096, 2) + component(p, "library_workspace"));
}

TEST_CASE("Muon on LoRA: the hidden linears' fp32 adapters hold one buffer each") {
  const Model m = example_model("Meta-Llama-3-8B.json");
  Options o;
  o.optimizer = Optimizer::muon;
  const int64_t lora = lora_parameter_count(m, o);
  CHECK(component(plan_memory(m, o, Mode::lora, 1, 512, {}), "optimizer_states") == lora * 4);
  // An adapter on the head is AdamW's (Muon's docs: the classifier head is not a hidden layer).
  o.lora_targets = {"lm_head"};
  const int64_t head = lora_parameter_count(m, o);
  REQUIRE(head == 16 * (4096 + 128256));
  CHECK(component(plan_memory(m, o, Mode::lora, 1, 512, {}), "optimizer_states") == head * 8);
}

TEST_CASE("Muon: refused where ranks hold shards of a matrix and under DeepSpeed's fp32-master engine") {
  const std::string cfg = example("Meta-Llama-3-8B.json");
  for (const char* st : {"fsdp", "fsdp2", "hsdp", "zero1", "zero2", "zero3"}) {
    INFO(st);
    const auto r = plan(cfg, {{"optimizer", "muon"}, {"parallel", st}, {"gpus", 8}});
    CHECK(r["error"]["code"] == "options.value");
    CHECK(r["error"]["path"] == "optimizer");
  }
  CHECK(plan(cfg, {{"optimizer", "muon"}, {"parallel", "ddp"}, {"gpus", 8}, {"tp", 2}})["error"]["path"] == "optimizer");
  const auto master = plan(cfg, {{"optimizer", "muon"}, {"precision", "bf16"}, {"autocast", false}});
  CHECK(master["error"]["path"] == "optimizer");
  // Pure bf16 without a master (master_weights none) and DDP are planned; DDP lists no smallest N.
  CHECK(plan(cfg, {{"optimizer", "muon"}, {"precision", "bf16"}, {"autocast", false}, {"master_weights", "none"}})["ok"] == true);
  const auto ddp = plan(cfg, {{"optimizer", "muon"}, {"parallel", "ddp"}, {"gpus", 4}});
  REQUIRE(ddp["ok"] == true);
  CHECK(ddp["parallel"]["cards"].empty());
  CHECK(ddp["parallel"]["note"].get<std::string>().find("Muon") != std::string::npos);
  // Serving ignores the optimizer.
  CHECK(plan(cfg, {{"optimizer", "muon"}, {"mode", "serve"}, {"parallel", "fsdp"}, {"gpus", 4}})["ok"] == true);
}

TEST_CASE("Muon: cuts across cards are pipelines only, and the fit advisor offers no ZeRO-3") {
  const std::string cfg = example("Meta-Llama-3-8B.json");
  auto strategies = [](const nlohmann::json& r) {
    std::set<std::string> out;
    for (const auto& card : r["cards"])
      for (const auto& [mode, split] : card["split"].items()) {
        if (split.is_null() || mode == "serve") continue;
        out.insert(split["strategy"].get<std::string>());
        for (const auto& a : split["alternatives"]) out.insert(a["strategy"].get<std::string>());
      }
    return out;
  };
  auto changes = [](const nlohmann::json& r) {
    std::set<std::string> out;
    for (const auto& c : r["fit"]["changes"]) out.insert(c["id"].get<std::string>());
    return out;
  };
  const auto adamw = plan(cfg, {{"fit_card", "rtx4090"}});
  REQUIRE(strategies(adamw).count("zero3") == 1);  // what Muon must not be offered
  REQUIRE(changes(adamw).count("zero3") == 1);
  const auto muon = plan(cfg, {{"optimizer", "muon"}, {"fit_card", "rtx4090"}});
  CHECK(strategies(muon) == std::set<std::string>{"pipeline"});
  CHECK(changes(muon).count("zero3") == 0);
  CHECK(changes(muon).count("pipeline") == 1);
}
}  // namespace muon_test

// Memory terms that are exact (KV cache, weights, quantized storage, logits) and properties of the
// rest (monotone in batch, components that sum to the peak, the phases of the step).
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>

#include "arch/registry.hpp"
#include "config.hpp"
#include "plan/graph_costs.hpp"
#include "plan/memory.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"

namespace memory_test {

using namespace cardfit;

namespace {
const Overheads kOv{805306368, 0.05};
}  // namespace

TEST_CASE("KV cache is exact: layers × kv heads × head_dim × 2 (K and V) × bytes × tokens") {
  const Model m = example_model("Meta-Llama-3-8B.json");
  Options o;
  const MemoryPlan p = plan_memory(m, o, Mode::serve, 3, 4096, {});
  CHECK(component(p, "kv_cache") == int64_t(32) * 8 * 128 * 2 * 2 * 4096 * 3);
  CHECK(component(p, "weights") == m.parameter_count() * 2);
  o.kv_dtype = WeightDtype::fp8;
  o.kv_dtype_set = true;
  CHECK(component(plan_memory(m, o, Mode::serve, 3, 4096, {}), "kv_cache") == int64_t(32) * 8 * 128 * 2 * 4096 * 3);
}

TEST_CASE("Mistral's sliding window caps the cache at 4096 tokens") {
  const Model m = example_model("Mistral-7B-v0.1.json");
  Options o;
  const int64_t at4k = component(plan_memory(m, o, Mode::serve, 1, 4096, {}), "kv_cache");
  const int64_t at16k = component(plan_memory(m, o, Mode::serve, 1, 16384, {}), "kv_cache");
  CHECK(at4k == at16k);
}

TEST_CASE("gemma-2-9b-it: KV cache of 4096 tokens is 1,409,286,144 bytes, at 8192 sliding layers hold 4096") {
  const Model m = trace_golden("gemma-2-9b-it.json");
  Options o;
  CHECK(component(plan_memory(m, o, Mode::serve, 1, 4096, {}), "kv_cache") == 1409286144LL);
  // 42 layers alternate sliding (4096-token window) and global: at 8192 tokens only the 21 global
  // layers hold the extra 4096 tokens.
  const int64_t per_token_layer = int64_t(8) * 256 * 2 * 2;
  CHECK(component(plan_memory(m, o, Mode::serve, 1, 8192, {}), "kv_cache") ==
        21 * 8192 * per_token_layer + 21 * 4096 * per_token_layer);
}

TEST_CASE("memory grows with batch, components sum to the peak, overheads make the reserved bytes") {
  const Model m = example_model("gpt2.json");
  for (Mode mode : {Mode::full, Mode::lora, Mode::qlora, Mode::serve})
    for (bool ckpt : {false, true})
      for (Attention att : {Attention::sdpa, Attention::eager}) {
        Options o;
        o.grad_ckpt = ckpt;
        o.attention = att;
        const MemoryModel mm(m, o, mode, 512, kOv);
        int64_t prev = 0;
        for (int64_t b : {1, 2, 3, 8, 64}) {
          INFO(mode_name(mode) << " batch " << b << " ckpt " << ckpt);
          const MemoryPlan p = mm.at(b);
          CHECK(p.peak_bytes >= prev);  // monotone (flat while the optimizer step is the peak)
          prev = p.peak_bytes;
          CHECK(p.peak_bytes == mm.peak(b));
          int64_t sum = 0;
          for (const auto& c : p.components) sum += c.bytes;
          CHECK(sum == p.peak_bytes);
          for (const auto& ph : p.phases) CHECK(ph.bytes <= p.peak_bytes);
          const int64_t reserve = int64_t(std::ceil(double(p.peak_bytes) * 0.05 / 0.95));
          CHECK(p.reserved_bytes == p.peak_bytes + reserve + 805306368);
          int64_t over = 0;
          for (const auto& c : p.overheads) over += c.bytes;
          CHECK(over == p.reserved_bytes - p.peak_bytes);
        }
      }
}

TEST_CASE("full fine-tune: fp32 master weights, gradients and AdamW states, pure bf16 holds 8 B/param") {
  const Model m = example_model("gpt2.json");
  const int64_t P = 124439808;
  Options o;
  const MemoryPlan p = plan_memory(m, o, Mode::full, 1, 512, {});
  CHECK(component(p, "weights") == P * 4);
  CHECK(component(p, "optimizer_states") == P * 8);
  // The optimizer step holds weights, gradients, states and foreach AdamW's sqrt temporary.
  CHECK(phase(p, "optimizer_step") == P * (4 + 4 + 8 + 4) + component(p, "library_workspace"));
  o.precision = Precision::bf16;
  o.optimizer_impl = OptimizerImpl::fused;
  const MemoryPlan b = plan_memory(m, o, Mode::full, 1, 512, {});
  CHECK(component(b, "weights") == P * 2);
  CHECK(phase(b, "optimizer_step") == P * 8 + component(b, "library_workspace"));
}

TEST_CASE("optimizers: 8-bit states per 256-element block, Adafactor factored, SGD one buffer") {
  const Model m = example_model("gpt2.json");
  Options o;
  o.optimizer = Optimizer::sgd;
  CHECK(component(plan_memory(m, o, Mode::full, 1, 128, {}), "optimizer_states") == 124439808LL * 4);
  o.optimizer = Optimizer::adamw8bit;
  const int64_t s8 = component(plan_memory(m, o, Mode::full, 1, 128, {}), "optimizer_states");
  CHECK(s8 > 124439808LL * 2);
  CHECK(s8 < 124439808LL * 2 + 124439808LL / 20);  // absmax and the small fp32 tensors
  o.optimizer = Optimizer::adafactor;
  CHECK(component(plan_memory(m, o, Mode::full, 1, 128, {}), "optimizer_states") < 124439808LL / 50);
}

TEST_CASE("LoRA: fp32 adapters on every linear but the head, the frozen base in bf16") {
  const Model m = example_model("Meta-Llama-3-8B.json");
  Options o;
  const MemoryPlan p = plan_memory(m, o, Mode::lora, 1, 512, {});
  const int64_t lora = lora_parameter_count(m, o);
  CHECK(lora == int64_t(16) * ((4096 + 4096) * 2 + (4096 + 1024) * 2 + (4096 + 14336) * 3) * 32);
  CHECK(p.trainable_params == lora);
  CHECK(component(p, "adapters") == lora * 4);
  CHECK(component(p, "weights") == m.parameter_count() * 2);
  CHECK(component(p, "optimizer_states") == lora * 8);
  // modules_to_save adds a trainable bf16 copy of the head.
  o.modules_to_save = {"lm_head"};
  const MemoryPlan e = plan_memory(m, o, Mode::lora, 1, 512, {});
  CHECK(component(e, "adapters") == lora * 4 + int64_t(128256) * 4096 * 2);
}

TEST_CASE("QLoRA NF4: 4-bit linears with double-quantized absmax, the rest upcast to fp32") {
  const Model m = example_model("Meta-Llama-3-8B.json");
  int64_t linear = 0;
  for (const auto& t : m.tensors)
    if (t.linear && t.role != Role::head && t.tied_to.empty()) linear += t.count();
  const int64_t rest = m.parameter_count() - linear;
  Options o;
  auto weights = [&] { return component(plan_memory(m, o, Mode::qlora, 1, 512, {}), "weights"); };
  const double n = double(linear);
  CHECK(weights() == int64_t(std::ceil(n / 2 + n / 64 + n / 64 / 256 * 4)) + rest * 4);
  o.double_quant = false;
  CHECK(weights() == int64_t(std::ceil(n / 2 + n / 64 * 4)) + rest * 4);
  o.kbit_upcast = false;
  CHECK(weights() == int64_t(std::ceil(n / 2 + n / 64 * 4)) + rest * 2);
}

TEST_CASE("LLM.int8 keeps each linear's input itself, 4-bit keeps nothing, each dequantizes in its own passes") {
  // bitsandbytes >= 0.45: MatMul8bitLt keeps its input A as it came (no autocast copy; the int8
  // transpose only for a trainable weight) and dequantizes the weight to A's dtype in backward;
  // MatMul4Bit keeps only the quantized weight and dequantizes to 16 bit in both passes.
  const Model m = example_model("Meta-Llama-3-8B.json");  // hidden 4096, intermediate 14336
  size_t bi = 0;
  while (m.blocks[bi].name != "model.layers.0") ++bi;
  const Block& b = m.blocks[bi];
  auto node = [&](const char* suffix) {
    for (size_t i = 0; i < b.nodes.size(); ++i)
      if (b.nodes[i].name == std::string("model.layers.0.") + suffix) return i;
    FAIL("no node " << suffix);
    return size_t(0);
  };
  Options o;
  o.lora_targets = {"no_such_module"};  // no adapters: only what the quantized linears keep
  const int64_t seq = 512, wide = 4096LL * 14336;

  o.qlora_quant = QuantKind::int8;
  const BlockCost i8 = block_cost(m, bi, make_setup(m, o, Mode::qlora), seq, seq);
  // kbit_upcast: the norms' outputs and the MLP product are fp32, kept once however many read them.
  CHECK(i8.node_saved[node("self_attn.q_proj")] == 4096 * 4 * seq);
  CHECK(i8.node_saved[node("self_attn.k_proj")] == 0);
  CHECK(i8.node_saved[node("self_attn.v_proj")] == 0);
  CHECK(i8.node_saved[node("mlp.gate_proj")] == 4096 * 4 * seq);
  CHECK(i8.node_saved[node("mlp.up_proj")] == 0);
  CHECK(i8.node_saved[node("mlp.down_proj")] == 14336 * 4 * seq);
  CHECK(i8.dequant_forward == 0);
  CHECK(i8.dequant_backward == wide * 4);
  o.kbit_upcast = false;  // a 16-bit stream: the same tensors, 2 bytes each
  const BlockCost i8h = block_cost(m, bi, make_setup(m, o, Mode::qlora), seq, seq);
  CHECK(i8h.node_saved[node("self_attn.q_proj")] == 4096 * 2 * seq);
  CHECK(i8h.dequant_backward == wide * 2);

  o.kbit_upcast = true;
  o.qlora_quant = QuantKind::nf4;
  const BlockCost nf4 = block_cost(m, bi, make_setup(m, o, Mode::qlora), seq, seq);
  for (const char* linear : {"self_attn.q_proj", "self_attn.o_proj", "mlp.gate_proj", "mlp.down_proj"})
    CHECK(nf4.node_saved[node(linear)] == 0);
  CHECK(nf4.dequant_forward == wide * 2);
  CHECK(nf4.dequant_backward == wide * 2);
}

TEST_CASE("SDPA keeps no score matrix (activations linear in the sequence), eager does") {
  const Model m = example_model("Meta-Llama-3-8B.json");
  Options o;
  o.mode = Mode::lora;
  auto acts = [&](int64_t seq) {
    const MemoryModel mm(m, o, Mode::lora, seq, {});
    return component(mm.at(1), "activations");
  };
  o.attention = Attention::sdpa;
  CHECK(acts(1024) == 2 * acts(512));
  o.attention = Attention::eager;
  CHECK(acts(1024) > 2 * acts(512) + int64_t(32) * 32 * (1024LL * 1024 - 2 * 512 * 512) * 4);
}

TEST_CASE("gradient checkpointing keeps block inputs plus one recomputed block") {
  const Model m = example_model("Meta-Llama-3-8B.json");
  Options o;
  const MemoryPlan full = plan_memory(m, o, Mode::lora, 2, 2048, {});
  o.grad_ckpt = true;
  const MemoryPlan ckpt = plan_memory(m, o, Mode::lora, 2, 2048, {});
  CHECK(ckpt.peak_bytes < full.peak_bytes);
  CHECK(component(ckpt, "activations") <= component(full, "activations") / 8);
  // At the peak of backward the checkpoints are the bf16 inputs of (at most) every layer.
  CHECK(component(ckpt, "checkpoints") <= int64_t(32) * 2 * 2048 * 4096 * 2);
}

TEST_CASE("logits and loss: fp32 log_softmax, its gradient and the input gradient at backward") {
  const Model m = example_model("Meta-Llama-3-8B.json");
  Options o;
  o.grad_ckpt = true;
  const MemoryPlan p = plan_memory(m, o, Mode::lora, 2, 4096, {});
  REQUIRE(p.peak_event == "backward of the loss (log_softmax)");
  CHECK(component(p, "logits") == int64_t(12) * 128256 * 2 * 4096);
}

TEST_CASE("gradient accumulation keeps the gradients through the forward") {
  const Model m = example_model("gpt2.json");
  Options o;
  const MemoryPlan one = plan_memory(m, o, Mode::full, 4, 512, {});
  o.grad_accum = 4;
  const MemoryPlan four = plan_memory(m, o, Mode::full, 4, 512, {});
  CHECK(phase(four, "forward_end") == phase(one, "forward_end") + 124439808LL * 4);
}

TEST_CASE("Mamba serving holds a constant SSM state, not a KV cache") {
  const Model m = trace_model(Config::parse(R"({"model_type": "mamba", "num_hidden_layers": 2, "use_bias": false})"));
  Options o;
  const MemoryPlan a = plan_memory(m, o, Mode::serve, 1, 1024, {});
  const MemoryPlan b = plan_memory(m, o, Mode::serve, 1, 8192, {});
  CHECK(component(a, "kv_cache") == 0);
  CHECK(component(a, "ssm_state") > 0);
  CHECK(component(a, "ssm_state") == component(b, "ssm_state"));
}

TEST_CASE("every golden model plans in every mode, and its components sum to the peak") {
  for (const auto& e : std::filesystem::directory_iterator(CARDFIT_GOLDEN_DIR)) {
    if (e.path().extension() != ".json") continue;
    INFO(e.path().filename().string());
    const Model m = trace_golden(e.path().filename().string());
    for (Mode mode : all_modes) {
      Options o;
      o.grad_ckpt = mode == Mode::qlora;
      const MemoryPlan p = plan_memory(m, o, mode, 2, 1024, kOv);
      int64_t sum = 0;
      for (const auto& c : p.components) sum += c.bytes;
      CHECK(sum == p.peak_bytes);
      CHECK(p.peak_bytes > 0);
    }
  }
}

TEST_CASE("a full fine-tune trains every parameter once: trainable_params is the model's total") {
  // Routers counted their weight twice, and tied heads with a bias (BERT-style MLM decoders) the
  // embedding matrix again, until the trainable tensors were built from what the node owns
  // (DeepSeek-V4-Flash: 43 x 256 x 4096 too many; BERT-base: 30,522 x 767).
  for (const auto& e : std::filesystem::directory_iterator(CARDFIT_GOLDEN_DIR)) {
    if (e.path().extension() != ".json") continue;
    INFO(e.path().filename().string());
    const Model m = trace_golden(e.path().filename().string());
    const MemoryPlan p = plan_memory(m, Options{}, Mode::full, 1, 128, kOv);
    CHECK(p.trainable_params == m.parameter_count());
  }
}
}  // namespace memory_test

// Training stacks as data (core/plan/stacks.cpp): each policy moves exactly the components it
// should, by bytes derived here from the model's dimensions; the presets come from their rows; an
// option set wins over a preset; the load phase; hf with nothing set is today's plan.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "arch/registry.hpp"
#include "config.hpp"
#include "plan/memory.hpp"
#include "plan/option_schema.hpp"
#include "plan/stacks.hpp"
#include "test_util.hpp"

namespace stacks_test {

using namespace cardfit;
using M = MemoryModel;

namespace {
const Overheads kOv{805306368, 0.05};
// Llama-3-8B's dimensions (web/examples/Meta-Llama-3-8B.json).
constexpr int64_t kHidden = 4096, kVocab = 128256, kInter = 14336, kLayers = 32;

const Model& llama() {
  static const Model m = trace_model(Config::parse(example("Meta-Llama-3-8B.json")));
  return m;
}
M model_of(const std::string& options, Mode mode, int64_t seq = 2048) {
  return M(llama(), parse_options(options), mode, seq, kOv);
}
const M::Event& moment(const M& mm, const char* what) {
  for (const auto& e : mm.events())
    if (e.what && std::strcmp(e.what, what) == 0) return e;
  FAIL("no moment " << what);
  return mm.events().front();
}
// Every component but `except` is the same at the two moments.
void same_except(const M::Event& a, const M::Event& b, std::initializer_list<int> except) {
  for (int c = 0; c < M::kComponents; ++c) {
    if (std::find(except.begin(), except.end(), c) != except.end()) continue;
    INFO("component " << c);
    CHECK(a.fixed[size_t(c)] == b.fixed[size_t(c)]);
    CHECK(a.per_sample[size_t(c)] == b.per_sample[size_t(c)]);
  }
}
}  // namespace

TEST_CASE("stack hf with nothing set plans exactly as before (no option, no assumption added)") {
  const Options none;
  CHECK(effective_options(none) == none);
  CHECK_FALSE(uses_stack_policies(none));
  CHECK(parse_options(R"({"stack": "hf"})") == none);
  const M a = model_of("", Mode::full), b = model_of(R"({"stack": "hf"})", Mode::full);
  REQUIRE(a.events().size() == b.events().size());
  for (size_t i = 0; i < a.events().size(); ++i) CHECK(a.events()[i].fixed_total == b.events()[i].fixed_total);
  CHECK(a.phase_names() == std::vector<std::string>{"forward_end", "backward", "optimizer_step"});
  const auto r = plan(example("Meta-Llama-3-8B.json"));
  for (const auto& as : r["assumptions"]) CHECK(as["id"] != "stack");
}

TEST_CASE("fused loss: the logits at the loss are an fp32 loss per token, the input gradient and one chunk") {
  const int64_t T = 2048;
  const M hf = model_of("", Mode::full, T), fused = model_of(R"({"loss": "fused"})", Mode::full, T);
  const auto& a = moment(hf, "loss");
  const auto& b = moment(fused, "loss");
  // transformers: 16-bit logits, their fp32 upcast and the fp32 log_softmax output.
  CHECK(a.per_sample[M::kLogitsC] == T * kVocab * (2 + 4 + 4));
  // Liger: chunks of 2 × ceil(T / ceil(V / H)) tokens of 16-bit logits, an fp32 loss per token,
  // the 16-bit input gradient made in forward.
  const int64_t inc = (kVocab + kHidden - 1) / kHidden;
  const int64_t chunk = 2 * ((T + inc - 1) / inc) * kVocab * 2;
  CHECK(b.per_sample[M::kLogitsC] == T * 4 + T * kHidden * 2 + chunk);
  CHECK(a.per_sample[M::kLogitsC] - b.per_sample[M::kLogitsC] > T * kVocab * 9);  // nearly all of it gone
  // The head's fp32 weight gradient, made in Liger's forward (zeros_like(weight)).
  CHECK(a.fixed[M::kLogitsC] == 0);
  CHECK(b.fixed[M::kLogitsC] == kVocab * kHidden * 4);
  same_except(a, b, {M::kLogitsC});
  // A frozen head (LoRA) gets none.
  CHECK(moment(model_of(R"({"loss": "fused"})", Mode::lora, T), "loss").fixed[M::kLogitsC] == 0);
  // Backward of the loss: the input gradient alone, no logits.
  CHECK(moment(fused, "backward of the loss (log_softmax)").per_sample[M::kLogitsC] == T * kHidden * 2);
}

TEST_CASE("chunked loss: torchtune's fp32 chunks and LitGPT's list of 16-bit chunks, eager and compiled") {
  const int64_t T = 2048;
  const M tt = model_of(R"({"stack": "torchtune", "master_weights": "fp32"})", Mode::full, T);
  // Each chunk's fp32 log_softmax output kept (4 bytes per logit), one chunk of T / 8 tokens of
  // 16-bit logits and their fp32 copy in flight; no whole logits tensor.
  CHECK(moment(tt, "loss").per_sample[M::kLogitsC] == T * kVocab * 4 + (T / 8) * kVocab * (2 + 4));
  // Backward of one chunk: incoming and produced fp32 gradients and the 16-bit one.
  CHECK(moment(tt, "backward of the loss (log_softmax)").per_sample[M::kLogitsC] ==
        T * kVocab * 4 + (T / 8) * kVocab * (4 + 4 + 2));
  const M compiled = model_of(R"({"stack": "torchtune", "master_weights": "fp32", "compile": true})", Mode::full, T);
  CHECK(moment(compiled, "loss").per_sample[M::kLogitsC] == T * 4 + (T / 8) * kVocab * (2 + 4));
  // LitGPT under bf16-mixed: every chunk's 16-bit logits (the returned list), log_softmax in fp32
  // (autocast) kept per chunk, one chunk of 128 tokens upcast in flight.
  const M lit = model_of(R"({"stack": "litgpt"})", Mode::full, T);
  CHECK(moment(lit, "loss").per_sample[M::kLogitsC] == T * kVocab * (2 + 4) + 128 * kVocab * (2 + 4));
  same_except(moment(model_of("", Mode::full, T), "loss"), moment(lit, "loss"), {M::kLogitsC});
}

TEST_CASE("pure bf16: bf16 weights, gradients and AdamW states, no fp32 master, no autocast copies") {
  const M pure = model_of(R"({"master_weights": "none"})", Mode::full);
  const M ds = model_of(R"({"precision": "bf16", "autocast": false})", Mode::full);
  const M mixed = model_of("", Mode::full);
  const int64_t P = llama().parameter_count();
  const auto& step = moment(pure, "optimizer step");
  CHECK(step.fixed[M::kWeightsC] == 2 * P);
  CHECK(step.fixed[M::kGradsC] == 2 * P);
  CHECK(step.fixed[M::kStatesC] == 2 * 2 * P);  // exp_avg and exp_avg_sq in bf16
  CHECK(step.fixed[M::kCastC] == 0);
  // The DeepSpeed meaning of bf16 without autocast stays: fp32 master and fp32 states (12 bytes).
  CHECK(moment(ds, "optimizer step").fixed[M::kStatesC] == 12 * P);
  CHECK(moment(mixed, "optimizer step").fixed[M::kWeightsC] == 4 * P);
  // torchtune's row is pure bf16; an explicit master_weights wins over it.
  CHECK(moment(model_of(R"({"stack": "torchtune"})", Mode::full), "optimizer step").fixed[M::kWeightsC] == 2 * P);
  CHECK(moment(model_of(R"({"stack": "torchtune", "master_weights": "fp32"})", Mode::full), "optimizer step")
            .fixed[M::kWeightsC] == 4 * P);
}

TEST_CASE("optimizer in backward: one block's gradients at a time, none at the step") {
  const M hf = model_of("", Mode::full), inb = model_of(R"({"optimizer_in_bwd": true})", Mode::full);
  const auto& step = moment(inb, "optimizer step");
  CHECK(step.fixed[M::kGradsC] == 0);
  CHECK(step.fixed[M::kOptTempC] == 0);
  same_except(moment(hf, "optimizer step"), step, {M::kGradsC, M::kOptTempC});
  // At each block's backward: that block's gradients (fp32, mixed precision) and the foreach
  // temporary of its largest tensor's step: for a decoder layer the 14336 × 4096 MLP matrix.
  const int64_t layer = (2 * kHidden * kHidden + 2 * kHidden * 1024 + 3 * kHidden * kInter + 2 * kHidden) * 4;
  int64_t most = 0, layers = 0;
  for (const auto& e : inb.events())
    if (e.phase == 1 && e.block >= 0) {
      CHECK(e.fixed[M::kGradsC] == inb.blocks()[size_t(e.block)].gradients);
      most = std::max(most, e.fixed[M::kGradsC]);
      if (e.fixed[M::kGradsC] == layer) {
        ++layers;
        CHECK(e.fixed[M::kOptTempC] == kInter * kHidden * 4);
      }
    }
  CHECK(layers == kLayers);
  CHECK(most == (kVocab * kHidden + kHidden) * 4);  // the final norm and head, not the set of 8B
  // Refused by torchtune with gradient accumulation: the accumulating model is kept.
  CHECK(moment(model_of(R"({"optimizer_in_bwd": true, "grad_accum": 4})", Mode::full), "optimizer step").fixed[M::kGradsC] ==
        moment(model_of(R"({"grad_accum": 4})", Mode::full), "optimizer step").fixed[M::kGradsC]);
}

TEST_CASE("paged optimizer: the states leave the allocator's peak (counted apart), and offload moves them to the host") {
  const M hf = model_of("", Mode::full), paged = model_of(R"({"paged_optimizer": true})", Mode::full);
  const int64_t P = llama().parameter_count();
  // bitsandbytes pages the states of tensors of 1e5+ elements: all but the 65 RMSNorm weights.
  const int64_t norms = (2 * kLayers + 1) * kHidden;
  CHECK(paged.paged_bytes() == 8 * (P - norms));  // AdamW's two fp32 states
  for (const auto& e : paged.events()) CHECK(e.fixed[M::kStatesC] == 8 * norms);
  same_except(moment(hf, "optimizer step"), moment(paged, "optimizer step"), {M::kStatesC, M::kOptTempC});
  CHECK(moment(paged, "optimizer step").fixed[M::kOptTempC] == 0);
  CHECK(moment(hf, "optimizer step").fixed_total - moment(paged, "optimizer step").fixed_total ==
        8 * (P - norms) + moment(hf, "optimizer step").fixed[M::kOptTempC]);
  // 8-bit paged: the blockwise uint8 states (and fp32 absmax) are what is paged.
  const M paged8 = model_of(R"({"paged_optimizer": true, "optimizer": "adamw8bit"})", Mode::full);
  CHECK(paged8.paged_bytes() + moment(paged8, "optimizer step").fixed[M::kStatesC] ==
        moment(model_of(R"({"optimizer": "adamw8bit"})", Mode::full), "optimizer step").fixed[M::kStatesC]);
  // The norms' 4096 elements: uint8 states and an fp32 absmax per 256, in the allocator.
  CHECK(moment(paged8, "optimizer step").fixed[M::kStatesC] == (2 * kLayers + 1) * (2 * kHidden + kHidden / 256 * 8));

  // 32-bit bitsandbytes states are fp32 even for bf16 parameters (torch.optim's would be bf16).
  CHECK(model_of(R"({"paged_optimizer": true, "master_weights": "none"})", Mode::full).paged_bytes() == 8 * (P - norms));
  // No paged SGD in bitsandbytes: planned unpaged.
  const M sgd = model_of(R"({"paged_optimizer": true, "optimizer": "sgd"})", Mode::full);
  CHECK(sgd.paged_bytes() == 0);
  CHECK(moment(sgd, "optimizer step").fixed[M::kStatesC] == 4 * P);

  const M off = model_of(R"({"optimizer_offload": true})", Mode::full);
  CHECK(off.paged_bytes() == 0);
  const auto& step = moment(off, "optimizer step");
  CHECK(step.fixed[M::kStatesC] == 0);
  CHECK(step.fixed[M::kGradsC] == 0);
  CHECK(step.fixed[M::kWeightsC] == moment(hf, "optimizer step").fixed[M::kWeightsC]);
}

TEST_CASE("activation offload: the GPU holds the running block's saved tensors (and the prefetched next)") {
  const M ckpt = model_of(R"({"grad_ckpt": true})", Mode::full);
  const M off = model_of(R"({"grad_ckpt": true, "activation_offload": true})", Mode::full);
  const size_t nb = ckpt.blocks().size();
  const auto& a = moment(ckpt, "loss");
  const auto& b = moment(off, "loss");
  // At the loss only the last block's tensors (the head's input; it is not checkpointed) remain.
  CHECK(b.per_sample[M::kCkptC] == 0);
  CHECK(b.per_sample[M::kActsC] == ckpt.blocks()[nb - 1].acts);
  const M none = model_of("", Mode::full);
  int64_t inputs = 0;  // the 32 checkpointed layers' inputs
  for (size_t bi = 0; bi < nb; ++bi)
    if (ckpt.blocks()[bi].acts != none.blocks()[bi].acts) inputs += ckpt.blocks()[bi].acts;
  CHECK(a.per_sample[M::kCkptC] == inputs);
  CHECK(inputs == kLayers * 2048 * kHidden * 4);  // fp32 residual stream of a mixed-precision full fine-tune
  same_except(a, b, {M::kActsC, M::kCkptC});
  int64_t checked = 0;
  for (const auto& e : off.events())
    if (e.phase == 1 && e.block > 0) {
      const auto bi = size_t(e.block);
      CHECK(e.per_sample[M::kActsC] + e.per_sample[M::kCkptC] == ckpt.blocks()[bi].acts + ckpt.blocks()[bi - 1].acts);
      ++checked;
    }
  CHECK(checked > kLayers);
  // torchtune refuses it without checkpointing: nothing moves then.
  CHECK(moment(model_of(R"({"activation_offload": true})", Mode::full), "loss").per_sample ==
        moment(model_of("", Mode::full), "loss").per_sample);
}

TEST_CASE("ckpt_every k checkpoints the layers torchtune's counter wraps (count % k == 0)") {
  const M all = model_of(R"({"grad_ckpt": true})", Mode::full), none = model_of("", Mode::full);
  const M half = model_of(R"({"grad_ckpt": true, "ckpt_every": 2})", Mode::full);
  int64_t count = 0, wrapped = 0;
  for (size_t bi = 0; bi < all.blocks().size(); ++bi) {
    const bool ckpt = all.blocks()[bi].acts != none.blocks()[bi].acts;
    if (!ckpt) {
      CHECK(half.blocks()[bi].acts == none.blocks()[bi].acts);
      continue;
    }
    ++count;
    const bool expect = count % 2 == 0;
    wrapped += expect;
    CHECK(half.blocks()[bi].acts == (expect ? all.blocks()[bi].acts : none.blocks()[bi].acts));
  }
  CHECK(count == kLayers);
  CHECK(wrapped == kLayers / 2);
}

TEST_CASE("load phase: an nf4 QLoRA load holds the quantized weights and the largest 16-bit tensor") {
  const M q = model_of(R"({"load_phase": true, "kbit_upcast": false})", Mode::qlora);
  REQUIRE(q.phase_names().front() == "load");
  const auto& load = q.events().front();
  CHECK(load.phase == 0);
  const int64_t weights = moment(q, "optimizer step").fixed[M::kWeightsC];
  // bitsandbytes Params4bit._quantize: the 16-bit copy of the MLP matrix being quantized.
  CHECK(load.fixed_total == weights + kInter * kHidden * 2);
  CHECK(load.per_sample_total == 0);
  // With prepare_model_for_kbit_training the embedding (and the untied head) are cast to fp32
  // one by one: the largest 16-bit tensor is then the vocabulary matrix.
  const M up = model_of(R"({"load_phase": true})", Mode::qlora);
  CHECK(up.events().front().fixed_total == moment(up, "optimizer step").fixed[M::kWeightsC] + kVocab * kHidden * 2);
  // A full fine-tune from a bf16 checkpoint into fp32 weights: the tensor converted in both dtypes.
  const M full = model_of(R"({"load_phase": true})", Mode::full);
  CHECK(full.events().front().fixed_total == 4 * llama().parameter_count() + kVocab * kHidden * 2);
  // Same dtype (pure bf16 from bf16): nothing is converted.
  const M pure = model_of(R"({"load_phase": true, "master_weights": "none"})", Mode::full);
  CHECK(pure.events().front().fixed_total == 2 * llama().parameter_count());
  // The load is a phase of the plan and can be its peak (a card too small for it fits nothing).
  const MemoryPlan p = q.at(1);
  CHECK(p.phases.front().name == "load");
  CHECK(p.phases.front().bytes == load.fixed_total);
  // LoRA on a bf16 base from an fp32 checkpoint, short sequences: converting the 525M-element
  // vocabulary matrix (fp32 source next to its bf16 copy) outweighs the step.
  const M lora = model_of(R"({"load_phase": true, "checkpoint_dtype": "fp32"})", Mode::lora, 16);
  CHECK(lora.events().front().fixed_total == 2 * llama().parameter_count() + kVocab * kHidden * 4);
  CHECK(lora.at(1).peak_phase == "load");
  CHECK(lora.largest_batch(lora.events().front().fixed_total - 1, 1000) == 0);
}

TEST_CASE("each stack's policies are its table row, and an option set wins over the row") {
  for (const auto& e : stack_names) {
    Options o;
    o.stack = e.value;
    const Policies p = resolve_policies(o), r = stack_row(e.value).policies;
    CHECK(p.loss == r.loss);
    CHECK(p.loss_chunks == r.loss_chunks);
    CHECK(p.loss_chunk_tokens == r.loss_chunk_tokens);
    CHECK(p.master_weights == r.master_weights);
    CHECK(p.optimizer_in_bwd == r.optimizer_in_bwd);
    CHECK(p.paged_optimizer == r.paged_optimizer);
    CHECK(p.activation_offload == r.activation_offload);
    CHECK(p.compile == r.compile);
    CHECK(p.load_phase == r.load_phase);
    CHECK_FALSE(stack_row(e.value).source.empty());
  }
  CHECK(stack_rows().size() == std::size(stack_names));
  const Policies tt = resolve_policies(parse_options(R"({"stack": "torchtune", "loss": "full", "paged_optimizer": false})"));
  CHECK(tt.loss == LossKind::full);
  CHECK_FALSE(tt.paged_optimizer);
  CHECK(tt.optimizer_in_bwd);  // the rest of the row stays
  const Policies lit = resolve_policies(parse_options(R"({"stack": "litgpt", "loss_chunks": 4})"));
  CHECK(lit.loss_chunks == 4);
  CHECK(lit.loss_chunk_tokens == 0);  // a chunk count chooses torchtune's style
}

TEST_CASE("a stack's plan lists every policy it used, with its source, and the load phase") {
  const auto r = plan(example("Meta-Llama-3-8B.json"), {{"stack", "torchtune"}});
  REQUIRE(r.value("ok", true));
  std::map<std::string, nlohmann::json> by_id;
  for (const auto& a : r["assumptions"]) by_id[a["id"].get<std::string>()] = a;
  for (const char* id : {"stack", "loss", "master_weights", "optimizer_in_bwd", "paged_optimizer", "optimizer_offload",
                         "activation_offload", "ckpt_every", "compile", "packing", "load_phase"}) {
    INFO(id);
    REQUIRE(by_id.count(id));
    CHECK(by_id[id]["source"].get<std::string>().size() > 10);
  }
  CHECK(by_id["loss"]["source"].get<std::string>().find("cross_entropy_loss.py") != std::string::npos);
  CHECK(by_id["packing"]["text"].get<std::string>().find("longest") != std::string::npos);
  const auto over = plan(example("Meta-Llama-3-8B.json"), {{"stack", "torchtune"}, {"loss", "fused"}});
  for (const auto& a : over["assumptions"])
    if (a["id"] == "loss") CHECK(a["source"].get<std::string>().find("option") == 0);
}

TEST_CASE("the stack options are in the schema the CLI and the page derive from") {
  const nlohmann::json s = option_schema_json();
  std::map<std::string, nlohmann::json> by_name;
  for (const auto& o : s["options"]) by_name[o["name"].get<std::string>()] = o;
  for (const char* name : {"stack", "loss", "loss_chunks", "loss_chunk_tokens", "master_weights", "optimizer_in_bwd",
                           "paged_optimizer", "optimizer_offload", "activation_offload", "ckpt_every", "compile",
                           "packing", "load_phase", "checkpoint_dtype"}) {
    INFO(name);
    REQUIRE(by_name.count(name));
    CHECK(by_name[name]["group"] == "stack");
  }
  CHECK(by_name["stack"]["values"] == nlohmann::json({"hf", "torchtune", "litgpt", "unsloth", "axolotl", "llamafactory"}));
  CHECK(by_name["stack"]["flag"] == "--stack");
}

TEST_CASE("every golden model plans under every stack in every mode, its components summing to the peak") {
  const char* option_sets[] = {
      R"({"stack": "torchtune", "grad_ckpt": true, "activation_offload": true, "ckpt_every": 2})",
      R"({"stack": "litgpt"})", R"({"stack": "unsloth", "grad_ckpt": true, "compile": false})",
      R"({"stack": "llamafactory", "optimizer_offload": true, "checkpoint_dtype": "fp32"})",
      R"({"loss": "chunked", "loss_chunks": 3, "paged_optimizer": true, "optimizer": "adamw8bit", "grad_accum": 2})"};
  for (const auto& e : std::filesystem::directory_iterator(CARDFIT_GOLDEN_DIR)) {
    if (e.path().extension() != ".json") continue;
    INFO(e.path().filename().string());
    const Model m = trace_golden(e.path().filename().string());
    for (const char* text : option_sets) {
      INFO(text);
      const Options o = parse_options(text);
      for (Mode mode : all_modes) {
        const M mm(m, o, mode, 256, kOv);
        const MemoryPlan p = mm.at(2);
        int64_t sum = 0;
        for (const auto& c : p.components) sum += c.bytes;
        CHECK(sum == p.peak_bytes);
        CHECK(p.peak_bytes > 0);
        bool non_negative = true;  // the offload differences and the paged split never go below zero
        for (const auto& ev : mm.events())
          for (int c = 0; c < M::kComponents; ++c)
            non_negative = non_negative && ev.fixed[size_t(c)] >= 0 && ev.per_sample[size_t(c)] >= 0;
        CHECK(non_negative);
      }
    }
  }
}
}  // namespace stacks_test

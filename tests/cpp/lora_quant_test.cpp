// LoRA on the head and the embeddings, quantizing only the adapted linears, bitsandbytes' saved
// input by release, torchao float8 linears, and the defaults of what runs (QLoRA checkpointing,
// eager attention for a logit-capping model). Every expected number is derived here from the
// model's dimensions and the rule in docs/memory-model.md, never copied from a run.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>

#include "arch/registry.hpp"
#include "config.hpp"
#include "plan/checks.hpp"
#include "plan/graph_costs.hpp"
#include "plan/memory.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"

namespace lora_quant_test {

using namespace cardfit;

namespace {
// Llama-3-8B's dimensions (web/examples/Meta-Llama-3-8B.json).
constexpr int64_t H = 4096, I = 14336, L = 32, V = 128256, KV = 8 * 128;

Model llama() { return trace_model(Config::parse(example("Meta-Llama-3-8B.json"))); }

const MemoryModel::Event& event(const MemoryModel& mm, const char* what) {
  for (const auto& e : mm.events())
    if (e.what && std::strcmp(e.what, what) == 0) return e;
  FAIL("no event " << what);
  return mm.events().front();
}
// Saved for backward by every block at the loss (no checkpointing: every block's saved bytes).
int64_t saved_at_loss(const Model& m, const Options& o, Mode mode, int64_t seq) {
  const MemoryModel mm(m, o, mode, seq, {});
  return event(mm, "loss").per_sample[MemoryModel::kActsC];
}
// bitsandbytes nf4 storage of n weights with double quantization (QLoRA paper §3).
int64_t nf4_bytes(int64_t n) { return int64_t(std::ceil(double(n) / 2 + double(n) / 64 + double(n) / 64 / 256 * 4)); }
}  // namespace

TEST_CASE("LoRA on lm_head and embed_tokens: r x (in + out) parameters each, derived from the dims") {
  const Model m = llama();
  REQUIRE(find_node(m, "lm_head"));
  REQUIRE(find_node(m, "model.embed_tokens"));
  Options o;
  o.mode = Mode::lora;
  o.lora_rank = 8;
  o.lora_targets = {"lm_head"};
  CHECK(lora_parameter_count(m, o) == 8 * (H + V));  // A: r x hidden, B: vocab x r
  o.lora_targets = {"embed_tokens"};
  CHECK(lora_parameter_count(m, o) == 8 * (V + H));  // lora_embedding_A: r x vocab, B: hidden x r
  o.lora_targets = {"q_proj", "lm_head", "embed_tokens"};
  const int64_t q = L * 8 * (H + H);
  CHECK(lora_parameter_count(m, o) == q + 2 * 8 * (H + V));
  // The plan trains exactly those, in fp32 (PEFT autocast_adapter_dtype).
  const MemoryPlan p = plan_memory(m, o, Mode::lora, 1, 512, {});
  CHECK(p.trainable_params == q + 2 * 8 * (H + V));
  CHECK(component(p, "adapters") == 4 * (q + 2 * 8 * (H + V)));
  // Through the report: the names are accepted, and the assumption names the wrapped modules.
  const auto r = plan(example("Meta-Llama-3-8B.json"), {{"mode", "lora"}, {"lora_rank", 8}, {"lora_targets", {"lm_head", "embed_tokens"}}});
  REQUIRE(r.contains("plan"));
  CHECK(r["plan"]["trainable_params"] == 2 * 8 * (H + V));
  std::string wrapped;
  for (const auto& a : r["assumptions"])
    if (a["id"] == "lora_head_embedding") wrapped = a["value"];
  CHECK(wrapped == "model.embed_tokens, lm_head");
  // The default (all-linear) never adapts the head or the embedding.
  CHECK_FALSE(is_lora_target(*find_node(m, "lm_head"), Options{}));
  CHECK_FALSE(is_lora_target(*find_node(m, "model.embed_tokens"), Options{}));
}

TEST_CASE("LoRA on the head keeps A's dropped-out input and its r-wide output, the embedding the ids and A's rows") {
  const Model m = llama();
  const int64_t seq = 512, r = 16;
  Options base;
  base.lora_rank = r;
  base.grad_ckpt = false;
  base.lora_targets = {"q_proj"};
  Options head = base, embed = base;
  head.lora_targets = {"q_proj", "lm_head"};
  embed.lora_targets = {"q_proj", "embed_tokens"};
  const int64_t before = saved_at_loss(m, base, Mode::lora, seq);
  // Head (lora_dropout 0.05): a 1-byte mask and the 16-bit dropped-out final-norm output (the
  // frozen bf16 base: a 16-bit stream), and lora_A's 16-bit output.
  CHECK(saved_at_loss(m, head, Mode::lora, seq) - before == seq * (H * 1 + H * 2 + r * 2));
  // Embedding: the int64 ids (the frozen table kept none) and after_A's 16-bit cast (r per token).
  CHECK(saved_at_loss(m, embed, Mode::lora, seq) - before == seq * (8 + r * 2));
  // Autocast casts B of the embedding adapter (hidden x r), not A (looked up in fp32).
  const MemoryModel mb(m, base, Mode::lora, seq, {}), me(m, embed, Mode::lora, seq, {});
  CHECK(event(me, "loss").fixed[MemoryModel::kCastC] - event(mb, "loss").fixed[MemoryModel::kCastC] == 2 * r * H);
  // B's vocabulary-wide output and its scaled copy are live in the head's forward: 2 x V x 2 bytes per token.
  const MemoryModel mh(m, head, Mode::lora, seq, {});
  const auto work_of_head = [&](const MemoryModel& mm) {
    for (const auto& e : mm.events())
      if (e.phase == 0 && e.block == int(m.blocks.size()) - 1) return e.per_sample[MemoryModel::kWorkC];
    return int64_t(-1);
  };
  CHECK(work_of_head(mh) - work_of_head(mb) == seq * 2 * V * 2);
}

TEST_CASE("quantize=adapted: the non-adapted linears keep 16-bit (or kbit-upcast fp32) bytes exactly") {
  const Model m = llama();
  Options all;
  all.mode = Mode::qlora;
  all.kbit_upcast = false;  // every non-quantized parameter stays bf16
  all.lora_targets = {"q_proj", "v_proj"};
  Options adapted = all;
  adapted.quantize = QuantScope::adapted;
  const int64_t q = H * H, v = H * KV;
  const int64_t other = H * KV + H * H + 3 * H * I;  // k, o, gate, up, down
  const int64_t w_all = component(plan_memory(m, all, Mode::qlora, 1, 512, {}), "weights");
  const int64_t w_adapted = component(plan_memory(m, adapted, Mode::qlora, 1, 512, {}), "weights");
  CHECK(w_adapted - w_all == L * (2 * other - (nf4_bytes(H * KV) + nf4_bytes(H * H) + 3 * nf4_bytes(H * I))));
  // Every linear 16-bit but q and v: the weights are the bf16 model less q and v's 16-bit bytes, plus their nf4.
  CHECK(w_adapted == 2 * m.parameter_count() - L * 2 * (q + v) + L * (nf4_bytes(q) + nf4_bytes(v)));
  // prepare_model_for_kbit_training casts what is not Params4bit to fp32: 4 bytes per non-adapted weight.
  adapted.kbit_upcast = true;
  all.kbit_upcast = true;
  const int64_t u_all = component(plan_memory(m, all, Mode::qlora, 1, 512, {}), "weights");
  const int64_t u_adapted = component(plan_memory(m, adapted, Mode::qlora, 1, 512, {}), "weights");
  CHECK(u_adapted - u_all == L * (4 * other - (nf4_bytes(H * KV) + nf4_bytes(H * H) + 3 * nf4_bytes(H * I))));
}

TEST_CASE("bnb_version 0.39-0.43.1 keeps each 4-bit linear's 16-bit input: exactly those bytes more") {
  const Model m = llama();
  const int64_t seq = 512;
  Options now;
  now.grad_ckpt = false;  // every block's saved bytes at the loss
  Options old = now;
  old.bnb_version = BnbVersion::v0_39;
  // kbit_upcast: the stream and the norms are fp32, and a 4-bit linear returns its input's dtype, so
  // q, k, v, gate and up read the fp32 norm output and down the fp32 product: x.to(bf16) makes a
  // copy for each. o_proj reads SDPA's 16-bit output, which x.to(bf16) returns as is and SDPA keeps
  // already: nothing more.
  CHECK(saved_at_loss(m, old, Mode::qlora, seq) - saved_at_loss(m, now, Mode::qlora, seq) ==
        L * seq * 2 * (5 * H + I));
  const auto assumption_value = [](const nlohmann::json& report, const char* id) {
    for (const auto& a : report["assumptions"])
      if (a["id"] == id) return a["value"].get<std::string>();
    return std::string();
  };
  CHECK(assumption_value(plan(example("Meta-Llama-3-8B.json"), {{"mode", "qlora"}, {"bnb_version", "0.39-0.43.1"}}),
                         "bnb_version") == "0.39-0.43.1");
  CHECK(assumption_value(plan(example("Meta-Llama-3-8B.json"), {{"mode", "qlora"}}), "bnb_version") == "0.43.2+");
  // Without the upcast every input is 16-bit already: the same tensors LoRA keeps (no dropout),
  // nothing more; with dropout LoRA keeps the dropped-out copy, and bitsandbytes the input itself.
  now.kbit_upcast = old.kbit_upcast = false;
  now.lora_dropout = old.lora_dropout = 0;
  CHECK(saved_at_loss(m, old, Mode::qlora, seq) == saved_at_loss(m, now, Mode::qlora, seq));
  now.lora_dropout = old.lora_dropout = 0.05;
  // q/k/v read one bf16 tensor, input_layernorm's output, and gate/up another,
  // post_attention_layernorm's (each kept once however many linears read it), down the bf16 product
  // of the gated activation (which nothing else keeps), o_proj SDPA's output (kept already).
  CHECK(saved_at_loss(m, old, Mode::qlora, seq) - saved_at_loss(m, now, Mode::qlora, seq) ==
        L * seq * 2 * (2 * H + I));
}

TEST_CASE("QLoRA checkpoints by default (prepare_model_for_kbit_training) and an explicit grad_ckpt wins") {
  const Model m = llama();
  const Options unset;
  CHECK(make_setup(m, unset, Mode::qlora).grad_ckpt);
  CHECK_FALSE(make_setup(m, unset, Mode::lora).grad_ckpt);
  CHECK_FALSE(make_setup(m, unset, Mode::full).grad_ckpt);
  Options on, off;
  on.grad_ckpt = true;
  off.grad_ckpt = false;
  CHECK_FALSE(make_setup(m, off, Mode::qlora).grad_ckpt);
  CHECK(make_setup(m, on, Mode::full).grad_ckpt);
  const auto peak = [&](const Options& o) { return MemoryModel(m, o, Mode::qlora, 2048, {}).peak(4); };
  CHECK(peak(unset) == peak(on));
  CHECK(peak(off) > peak(on));
  // The report says which applied and why.
  const auto r = plan(example("Meta-Llama-3-8B.json"), {{"mode", "qlora"}});
  CHECK(r["plan"]["grad_ckpt"] == true);
  bool sourced = false;
  for (const auto& a : r["assumptions"])
    if (a["id"] == "grad_ckpt")
      sourced = a["value"] == "true" && a["source"].get<std::string>().find("prepare_model_for_kbit_training") != std::string::npos;
  CHECK(sourced);
  CHECK(plan(example("Meta-Llama-3-8B.json"), {{"mode", "qlora"}, {"grad_ckpt", false}})["plan"]["grad_ckpt"] == false);
}

TEST_CASE("gemma-2 (attention logits capped) trains with eager by default, and an explicit sdpa wins") {
  const Model g = trace_golden("gemma-2-9b-it.json");
  REQUIRE(g.facts.attn_logit_softcap > 0);
  const Options unset;
  Options sdpa, eager;
  sdpa.attention = Attention::sdpa;
  eager.attention = Attention::eager;
  for (Mode mode : {Mode::full, Mode::lora, Mode::qlora}) {
    CHECK(make_setup(g, unset, mode).attention == Attention::eager);
    CHECK(make_setup(g, sdpa, mode).attention == Attention::sdpa);
    CHECK(MemoryModel(g, unset, mode, 1024, {}).peak(1) == MemoryModel(g, eager, mode, 1024, {}).peak(1));
  }
  CHECK(make_setup(g, unset, Mode::serve).attention == Attention::sdpa);  // generate(): sdpa by default
  CHECK(make_setup(llama(), unset, Mode::full).attention == Attention::sdpa);
  // The finding about SDPA and the cap fires only for an explicit sdpa.
  const auto has = [](const std::vector<Finding>& fs, const std::string& id) {
    for (const auto& f : fs)
      if (f.id == id) return true;
    return false;
  };
  Options lora_sdpa = sdpa, lora_unset;
  lora_sdpa.mode = lora_unset.mode = Mode::lora;
  CHECK(has(run_checks(g, lora_sdpa, 1024), "softcapping-needs-eager"));
  CHECK_FALSE(has(run_checks(g, lora_unset, 1024), "softcapping-needs-eager"));
}

TEST_CASE("float8: no autocast cast of the Float8Linear weights, the same saved inputs, fp8 weight casts transient") {
  const Model m = llama();
  Options o, f8;
  f8.float8 = true;
  const int64_t seq = 512;
  const MemoryModel a(m, o, Mode::full, seq, {}), b(m, f8, Mode::full, seq, {});
  const auto& ea = event(a, "loss");
  const auto& eb = event(b, "loss");
  // The cache held a 16-bit copy of every linear weight; the head's stays (it is not converted).
  const int64_t linears = L * (H * H + 2 * H * KV + H * H + 3 * H * I);
  CHECK(ea.fixed[MemoryModel::kCastC] - eb.fixed[MemoryModel::kCastC] == 2 * linears);
  CHECK(ea.per_sample[MemoryModel::kActsC] == eb.per_sample[MemoryModel::kActsC]);  // input_hp: the bf16 cast, as before
  // The largest fp8 weight (gate/up/down, 1 byte each) is live while its block runs.
  bool seen = false;
  for (const auto& e : b.events())
    if (e.phase == 0 && e.block == 1) {
      const auto& e0 = a.events()[size_t(&e - &b.events()[0])];
      CHECK(e.fixed[MemoryModel::kCastC] - (e0.fixed[MemoryModel::kCastC] - 2 * linears / L) == H * I);
      seen = true;
    }
  CHECK(seen);
  // Outside a full fine-tune it changes nothing.
  CHECK(MemoryModel(m, o, Mode::lora, seq, {}).peak(1) == MemoryModel(m, f8, Mode::lora, seq, {}).peak(1));
}

TEST_CASE("float8 is flagged on a card without fp8 tensor cores (no fp8 rate in the catalog)") {
  const auto findings = [](const nlohmann::json& options) {
    std::vector<std::string> ids;
    const auto r = plan(example("Meta-Llama-3-8B.json"), options);
    for (const auto& c : r["checks"]) ids.push_back(c["id"]);
    return ids;
  };
  const auto has = [](const std::vector<std::string>& ids, const char* id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  };
  CHECK(has(findings({{"float8", true}, {"card", "a100-80gb"}}), "float8-unsupported-card"));
  CHECK_FALSE(has(findings({{"float8", true}, {"card", "h100-sxm"}}), "float8-unsupported-card"));
  CHECK_FALSE(has(findings({{"card", "a100-80gb"}}), "float8-unsupported-card"));
}
}  // namespace lora_quant_test

// "Make it fit": every change re-planned with the memory model at the changed options (the same
// MemoryModel the planner's requested plan is, so a change's saving is the difference of two
// plans), the multi-card cut from the planner's split solver, the step time from the step FLOPs.
#include "fit_advisor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "../error.hpp"
#include "cost.hpp"
#include "split.hpp"
#include "stacks.hpp"

namespace cardfit {
using nlohmann::json;

namespace {
constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
constexpr int64_t kMaxSeq = int64_t(1) << 24;

// One candidate configuration: the options, the mode and the sequence length the mode plans with
// (serving: serve_seq).
struct Candidate {
  Options o;
  Mode mode = Mode::full;
  int64_t seq = 0;
  json delta = json::object();  // the option changes from the request
  std::vector<std::string> ids;
};

struct Evaluated {
  int64_t reserved = kNever;
  int64_t max_batch = 0;
  int64_t cards = 1;
  bool fits = false;
};

class Advisor {
 public:
  Advisor(const Model& m, const Plan& p, const Catalog& cat, const Card& card)
      : m_(m), p_(p), card_(card), ov_(p.overheads), owned_(std::max<int64_t>(1, p.options.fit_cards)) {
    mfu_ = p.options.mfu.value_or(cat.mfu);
  }

  Candidate request() const {
    Candidate c;
    c.o = p_.options;
    c.mode = p_.options.mode;
    c.seq = c.mode == Mode::serve ? p_.serve_seq : p_.seq;
    return c;
  }

  // Reserved bytes of one card at the config's batch (the planner's requested plan at those
  // options); kNever when the model overflows (a seq the search probes far beyond any card).
  int64_t reserved(const Candidate& c, int64_t batch) const {
    try {
      const MemoryModel mm(m_, c.o, c.mode, c.seq, ov_);
      return mm.reserved(batch);
    } catch (const Error&) {
      return kNever;
    }
  }

  Evaluated evaluate(const Candidate& c) const {
    Evaluated e;
    try {
      const MemoryModel mm(m_, c.o, c.mode, c.seq, ov_);
      e.reserved = mm.reserved(c.o.batch);
      const int64_t cap = card_.capacity_bytes;
      e.max_batch = mm.reserved(1) <= cap ? mm.largest_batch(mm.largest_peak(cap), kMaxBatch) : 0;
    } catch (const Error&) {
      e.reserved = kNever;
    }
    e.fits = e.reserved <= card_.capacity_bytes;
    return e;
  }

  // The split solver's cut of `strategy` (zero3 / tensor) over cards of this type, at micro-batch
  // 1 (what the planner's splits plan): within the cards you have, or (one card) the fewest needed.
  std::optional<SplitOption> sharded(const Candidate& c, const std::string& strategy) const {
    try {
      const MemoryModel mm(m_, c.o, c.mode, c.seq, ov_);
      SplitSolver solver(mm);
      const int64_t max_cards = owned_ > 1 ? owned_ : 1024;
      const auto s = solver.split(card_.capacity_bytes, std::max<int64_t>(1, c.o.cost_batch), max_cards);
      if (!s) return std::nullopt;
      if (s->strategy == strategy) return SplitOption(*s);
      for (const auto& a : s->alternatives)
        if (a.strategy == strategy) return a;
    } catch (const Error&) {
    }
    return std::nullopt;
  }

  // Per-rank reserved bytes of `strategy` over n cards at micro-batch 1, fitting or not.
  int64_t sharded_at(const Candidate& c, const std::string& strategy, int64_t n) const {
    try {
      const MemoryModel mm(m_, c.o, c.mode, c.seq, ov_);
      SplitSolver solver(mm);
      return solver.sharded_reserved(strategy, n);
    } catch (const Error&) {
      return kNever;
    }
  }

  double flops_per_token(const Candidate& c) const {
    if (c.mode == Mode::serve) return 0;
    return step_flops_per_token(m_, c.o, c.mode, c.seq);
  }
  double step_seconds(const Candidate& c) const {
    const double peak = card_.dense_tflops(c.o.precision);
    if (c.mode == Mode::serve || peak <= 0) return 0;
    const double tokens = double(c.seq) * double(c.o.batch) * double(c.o.grad_accum);
    return flops_per_token(c) * tokens / (peak * 1e12 * mfu_);
  }

  // The largest value in [lo, hi] at which `fits(v)` holds, for a predicate true below some
  // point (memory grows with v); lo - 1 if none.
  template <class F>
  static int64_t largest(int64_t lo, int64_t hi, F fits) {
    if (hi < lo || !fits(lo)) return lo - 1;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      if (fits(mid)) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  const Model& m_;
  const Plan& p_;
  const Card& card_;
  Overheads ov_;
  int64_t owned_;
  double mfu_ = 0.4;
};

std::string pct(double factor) {
  const long v = std::lround((factor - 1.0) * 100.0);
  return (v >= 0 ? "+" : "") + std::to_string(v) + " %";
}

// The attention query and value projections, the LoRA paper's targets, as this model names them.
std::vector<std::string> query_value_targets(const Model& m) {
  const auto leaves = linear_leaves(m);
  auto has = [&](const char* n) { return std::find(leaves.begin(), leaves.end(), n) != leaves.end(); };
  for (const auto& pair : std::vector<std::vector<std::string>>{{"q_proj", "v_proj"}, {"query", "value"}, {"q", "v"}})
    if (has(pair[0].c_str()) && has(pair[1].c_str())) return pair;
  for (const char* fused : {"qkv_proj", "c_attn", "query_key_value", "Wqkv", "qkv", "W_pack"})
    if (has(fused)) return {fused};
  return {};
}

const char* kCkptSource = "Chen et al. 2016, Training Deep Nets with Sublinear Memory Cost, arXiv:1604.06174";
const char* kAdam8Source = "Dettmers et al. 2022, 8-bit Optimizers via Block-wise Quantization, arXiv:2110.02861";
const char* kLoraSource = "Hu et al. 2021, LoRA, arXiv:2106.09685; Biderman et al. 2024, LoRA Learns Less and Forgets Less, arXiv:2405.09673";
const char* kQloraSource = "Dettmers et al. 2023, QLoRA, arXiv:2305.14314";
const char* kZeroSource = "Rajbhandari et al. 2020, ZeRO, arXiv:1910.02054";
}  // namespace

FitAdvice advise_fit(const Model& m, const Plan& plan, const Catalog& cat, const Card& card) {
  Advisor a(m, plan, cat, card);
  FitAdvice out;
  out.card = &card;
  out.cards = a.owned_;
  out.mfu = a.mfu_;
  const Candidate base = a.request();
  out.mode = base.mode;
  out.batch = base.o.batch;
  out.grad_accum = base.o.grad_accum;
  out.seq = base.seq;
  out.capacity_bytes = card.capacity_bytes;
  const Evaluated be = a.evaluate(base);
  out.reserved_bytes = be.reserved;
  out.fits = be.fits;
  out.step_seconds = a.step_seconds(base);
  const double base_flops = a.flops_per_token(base);
  const bool serve = base.mode == Mode::serve;
  const bool adapters = base.mode == Mode::lora || base.mode == Mode::qlora;

  auto with = [&](const Candidate& from, const char* id, auto&& change) {
    Candidate c = from;
    change(c);
    c.o.mode = c.mode;
    c.ids.push_back(id);
    return c;
  };
  auto ratio = [&](const Candidate& c) {
    const double f = a.flops_per_token(c);
    return base_flops > 0 && f > 0 ? f / base_flops : 1.0;
  };
  auto row = [&](const Candidate& c, std::string id, std::string title, std::string cost, std::string source) {
    FitChange ch;
    ch.id = std::move(id);
    ch.title = std::move(title);
    ch.options = c.delta.dump();
    const Evaluated e = a.evaluate(c);
    ch.reserved_bytes = e.reserved;
    ch.saved_bytes = e.reserved == kNever || be.reserved == kNever ? 0 : be.reserved - e.reserved;
    ch.fits = e.fits;
    ch.max_batch = e.max_batch;
    ch.time_factor = ratio(c);
    ch.step_seconds = a.step_seconds(c);
    ch.cost = std::move(cost);
    ch.source = std::move(source);
    out.changes.push_back(std::move(ch));
  };
  auto missing = [&](std::string id, std::string title, std::string note, std::string source) {
    FitChange ch;
    ch.id = std::move(id);
    ch.title = std::move(title);
    ch.options = "{}";
    ch.available = false;
    ch.cost = std::move(note);
    ch.source = std::move(source);
    out.changes.push_back(std::move(ch));
  };

  // ---- the single changes
  const auto qv = query_value_targets(m);
  // The largest value of a knob in [1, current − 1] that fits; else `fallback` (which does not).
  auto searched = [&](const Candidate& from, int64_t current, auto set, int64_t fallback) {
    auto at = [&](int64_t v) {
      Candidate c = from;
      set(c, v);
      return a.reserved(c, c.o.batch) <= card.capacity_bytes;
    };
    const int64_t v = Advisor::largest(1, current - 1, at);
    return v >= 1 ? v : fallback;
  };
  auto set_seq = [&](Candidate& c, int64_t v) {
    c.seq = v;
    if (c.mode == Mode::serve) {
      c.o.serve_seq = v;
      c.delta["serve_seq"] = v;
    } else {
      c.o.seq = v;
      c.delta["seq"] = v;
    }
  };
  auto set_rank = [](Candidate& c, int64_t v) {
    c.o.lora_rank = v;
    c.delta["lora_rank"] = v;
  };
  // Batch × accumulation: the largest divisor of the batch below it that fits, the accumulation
  // multiplied so that the effective batch stays batch × grad_accum.
  auto accumulate = [&](const Candidate& from) {
    const int64_t b = from.o.batch;
    int64_t pick = 1;
    for (int64_t d = b - 1; d >= 1; --d)
      if (b % d == 0) {
        Candidate c = from;
        c.o.batch = d;
        if (a.reserved(c, d) <= card.capacity_bytes) {
          pick = d;
          break;
        }
      }
    Candidate c = with(from, "grad_accum", [&](Candidate& x) {
      x.o.grad_accum = from.o.grad_accum * (b / pick);
      x.o.batch = pick;
      x.delta["batch"] = pick;
      x.delta["grad_accum"] = x.o.grad_accum;
    });
    return c;
  };

  if (!serve) {
    if (!base.o.grad_ckpt) {
      const Candidate c = with(base, "grad_ckpt", [](Candidate& x) { x.o.grad_ckpt = true; x.delta["grad_ckpt"] = true; });
      row(c, "grad_ckpt", "Gradient checkpointing",
          "Recomputes each checkpointed block's forward in backward: step FLOPs " + pct(ratio(c)) +
              " (one more forward; about +33 % for a full fine-tune, whose step is 3 forwards).",
          kCkptSource);
    }
    if (base.o.optimizer == Optimizer::adamw) {
      const Candidate c = with(base, "adamw8bit", [](Candidate& x) { x.o.optimizer = Optimizer::adamw8bit; x.delta["optimizer"] = "adamw8bit"; });
      row(c, "adamw8bit", "8-bit AdamW (bitsandbytes)",
          "No extra FLOPs; block-wise 8-bit states matched 32-bit Adam on the paper's benchmarks (tensors under 4096 "
          "elements stay 32-bit).",
          kAdam8Source);
      if (base.o.optimizer_impl != OptimizerImpl::fused) {
        const Candidate f = with(base, "fused_optimizer", [](Candidate& x) {
          x.o.optimizer_impl = OptimizerImpl::fused;
          x.delta["optimizer_impl"] = "fused";
        });
        row(f, "fused_optimizer", "Fused AdamW (torch.optim fused=True)",
            "No cost: one fused kernel, no state-sized temporary at the step (same numbers as foreach).",
            "torch.optim.AdamW(fused=True)");
      }
    }
    missing("paged_optimizer", "Paged optimizer (bitsandbytes PagedAdamW)",
            "Not modelled: paged states have the same size as the unpaged optimizer's (see adamw8bit) and are evicted "
            "to CPU memory only under pressure, which the peak does not assume.",
            kQloraSource);
    if (base.mode == Mode::full && base.o.precision == Precision::bf16_mixed && card.bf16) {
      const Candidate c = with(base, "precision", [](Candidate& x) { x.o.precision = Precision::bf16; x.delta["precision"] = "bf16"; });
      row(c, "precision", "Pure bf16 (no fp32 master weights)",
          "No extra FLOPs; bf16 weight updates round away small steps (use stochastic rounding or Kahan summation for "
          "long runs).",
          "Zamirai et al. 2020, Revisiting BFloat16 Training, arXiv:2010.06192");
    }
    if (base.mode == Mode::full) {
      const Candidate c = with(base, "lora", [](Candidate& x) { x.mode = Mode::lora; x.delta["mode"] = "lora"; });
      row(c, "lora", "LoRA instead of a full fine-tune",
          "Trains adapters only: step FLOPs " + pct(ratio(c)) + " (no weight gradients of the frozen base). Quality: "
          "LoRA can trail full fine-tuning on hard domains (code, math) and forgets less.",
          kLoraSource);
    }
    if (base.mode != Mode::qlora) {
      const Candidate c = with(base, "qlora", [](Candidate& x) { x.mode = Mode::qlora; x.delta["mode"] = "qlora"; });
      row(c, "qlora", "QLoRA (4-bit NF4 base)",
          "Step FLOPs " + pct(ratio(c)) + ", plus dequantizing the base per matmul (not in the FLOP count: steps run "
          "slower than LoRA's). Quality: NF4 QLoRA matched 16-bit fine-tunes on the paper's benchmarks; the "
          "quantized base is an approximation of the checkpoint.",
          kQloraSource);
    }
    if (adapters && !qv.empty() && base.o.lora_targets != qv) {
      const Candidate c = with(base, "lora_targets", [&](Candidate& x) { x.o.lora_targets = qv; x.delta["lora_targets"] = qv; });
      row(c, "lora_targets", "Fewer LoRA targets (query and value only)",
          "Step FLOPs " + pct(ratio(c)) + ". Quality: the QLoRA paper found adapters on every linear layer necessary "
          "to match full fine-tuning.",
          kQloraSource);
    }
    if (adapters && base.o.lora_rank > 1) {
      const int64_t r = searched(base, base.o.lora_rank, set_rank, std::max<int64_t>(1, base.o.lora_rank / 2));
      const Candidate c = with(base, "lora_rank", [&](Candidate& x) { set_rank(x, r); });
      row(c, "lora_rank", "A lower LoRA rank (" + std::to_string(r) + ")",
          "Fewer adapter parameters; quality: lower capacity (ranks 1-8 sufficed for the LoRA paper's GPT-3 tasks, "
          "harder tasks need more).",
          kLoraSource);
    }
  } else {
    const std::vector<std::pair<WeightDtype, const char*>> quant = {
        {WeightDtype::fp8, "fp8"}, {WeightDtype::int8, "int8"}, {WeightDtype::int4, "int4"}};
    for (const auto& q : quant) {
      const WeightDtype dtype = q.first;  // not a structured binding: lambdas capture it (clang 14)
      const char* name = q.second;
      if (dtype == WeightDtype::fp8 && !card.fp8) continue;
      if (base.o.serve_dtype == dtype || base.o.serve_dtype == WeightDtype::nf4 || base.o.serve_dtype == WeightDtype::int4) continue;
      if (dtype == WeightDtype::int8 && base.o.serve_dtype == WeightDtype::fp8) continue;
      const Candidate c = with(base, "serve_dtype", [&](Candidate& x) { x.o.serve_dtype = dtype; x.o.serve_dtype_set = true; x.delta["serve_dtype"] = name; });
      row(c, "serve_dtype", std::string("A quantized base for serving (") + name + " weights)",
          dtype == WeightDtype::int4
              ? "Quality: 4-bit weight-only quantization (GPTQ, AWQ) costs a little accuracy; decode reads fewer bytes."
              : "Quality: 8-bit weights are close to the 16-bit model; decode reads half the bytes.",
          dtype == WeightDtype::int4 ? "Frantar et al. 2022, GPTQ, arXiv:2210.17323; Lin et al. 2023, AWQ, arXiv:2306.00978"
                                     : "Dettmers et al. 2022, LLM.int8(), arXiv:2208.07339");
    }
    if (!(base.o.kv_dtype_set && base.o.kv_dtype == WeightDtype::fp8)) {
      const Candidate c = with(base, "kv_dtype", [](Candidate& x) {
        x.o.kv_dtype = WeightDtype::fp8;
        x.o.kv_dtype_set = true;
        x.delta["kv_dtype"] = "fp8";
      });
      row(c, "kv_dtype", "An fp8 KV cache", "Quality: a small loss at long context (vLLM kv_cache_dtype=fp8).",
          "vLLM docs, Quantized KV Cache");
    }
  }
  if (base.seq > 1) {
    const int64_t s = searched(base, base.seq, set_seq, std::max<int64_t>(1, base.seq / 2));
    const Candidate c = with(base, serve ? "serve_seq" : "seq", [&](Candidate& x) { set_seq(x, s); });
    row(c, serve ? "serve_seq" : "seq", "A shorter sequence (" + std::to_string(s) + " tokens)",
        serve ? "Shorter contexts per request." : "Truncate or pack the data to " + std::to_string(s) +
                                                       " tokens: longer samples are cut, long-context behaviour is not trained.",
        "");
  }
  if (base.o.batch > 1) {
    const Candidate c = serve ? with(base, "batch", [&](Candidate& x) {
      const int64_t b = searched(base, base.o.batch, [](Candidate& y, int64_t v) { y.o.batch = v; }, 1);
      x.o.batch = b;
      x.delta["batch"] = b;
    }) : accumulate(base);
    row(c, c.ids.back(), serve ? "Fewer concurrent sequences (batch " + std::to_string(c.o.batch) + ")"
                               : "Batch " + std::to_string(c.o.batch) + " × gradient accumulation " +
                                     std::to_string(c.o.grad_accum) + " (same effective batch)",
        serve ? "Lower throughput: fewer sequences decode together."
              : "Same FLOPs; smaller micro-batches use the card less efficiently (not in the roofline), and "
                "accumulation keeps the gradients allocated through every micro-batch (counted).",
        "");
  }
  {  // ZeRO-3 / FSDP (training) or tensor parallelism (serving), by the planner's split solver;
     // not for Muon, which steps each matrix whole (validate.cpp).
    const std::string strategy = serve ? "tensor" : "zero3";
    Candidate c = with(base, strategy.c_str(), [](Candidate&) {});
    if (serve || optimizer_shardable(base.o.optimizer)) {
      FitChange ch;
      ch.id = strategy;
      ch.title = serve ? "Tensor parallelism over several cards" : "ZeRO-3 / FSDP over several cards";
      const auto cut = a.sharded(base, strategy);
      if (cut) {
        ch.cards = cut->cards;
        ch.reserved_bytes = cut->per_card_bytes;
        ch.saved_bytes = be.reserved == kNever ? 0 : be.reserved - cut->per_card_bytes;
        ch.fits = cut->cards <= a.owned_;
        ch.options = json{{"strategy", strategy}, {"cards", cut->cards}, {"batch", 1}}.dump();
        ch.step_seconds = a.step_seconds(c);
        ch.cost = "Needs " + std::to_string(cut->cards) + " cards (you have " + std::to_string(a.owned_) + "), at micro-batch 1 " +
                  (serve ? "(the planner's tensor-parallel cut); an all-reduce per layer over the interconnect."
                         : "(the planner's ZeRO-3 cut); card-hours unchanged if communication overlaps: ZeRO-3 moves "
                           "1.5× the data-parallel volume per step.");
      } else {
        // No count holds it: the per-card bytes over the cards you have (8, a node, with one card).
        const int64_t n = a.owned_ > 1 ? a.owned_ : 8;
        ch.cards = n;
        ch.reserved_bytes = a.sharded_at(base, strategy, n);
        ch.saved_bytes = be.reserved == kNever || ch.reserved_bytes == kNever ? 0 : be.reserved - ch.reserved_bytes;
        ch.fits = false;
        ch.options = json{{"strategy", strategy}, {"cards", n}, {"batch", 1}}.dump();
        ch.step_seconds = a.step_seconds(c);
        ch.cost = "Over " + std::to_string(n) + " cards at micro-batch 1 it still does not fit, nor over up to " +
                  std::to_string(a.owned_ > 1 ? a.owned_ : 1024) + " cards: " +
                  (serve ? "what is not split (activations, the logits) exceeds the card."
                         : "ZeRO-3 shards weights, gradients and optimizer states, not the activations; combine it "
                           "with checkpointing or a shorter sequence.");
      }
      ch.source = serve ? "Shoeybi et al. 2019, Megatron-LM, arXiv:1909.08053" : kZeroSource;
      out.changes.push_back(std::move(ch));
    }
    if (const auto pipe = a.sharded(base, "pipeline")) {  // the planner's pipeline cut, when there is one
      FitChange pc;
      pc.id = "pipeline";
      pc.title = "A pipeline cut over several cards";
      pc.cards = pipe->cards;
      pc.reserved_bytes = pipe->per_card_bytes;
      pc.saved_bytes = be.reserved == kNever ? 0 : be.reserved - pipe->per_card_bytes;
      pc.fits = pipe->cards <= a.owned_;
      pc.options = json{{"strategy", "pipeline"}, {"cards", pipe->cards}, {"stage_blocks", pipe->stage_layers}}.dump();
      pc.time_factor = pipe->card_hours;
      pc.step_seconds = a.step_seconds(c);
      pc.cost = "Needs " + std::to_string(pipe->cards) + " cards (you have " + std::to_string(a.owned_) +
                "), blocks per stage as the planner cuts them; the 1F1B bubble makes it ×" +
                std::to_string(pipe->card_hours).substr(0, 4) + " card-hours at " +
                std::to_string(std::max<int64_t>(1, base.o.cost_batch)) + " micro-batches.";
      pc.source = "Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU Clusters, arXiv:2104.04473";
      out.changes.push_back(std::move(pc));
    }
  }
  if (!serve)
    missing("offload", "CPU offload (ZeRO-Offload, FSDP cpu_offload)",
            "Not modelled on main: the planner has no offload option, so its saving is not computed (it moves optimizer "
            "states, and optionally parameters, to CPU memory at the cost of PCIe traffic per step).",
            "Ren et al. 2021, ZeRO-Offload, arXiv:2101.06840");

  // ---- the best combination, when no single change fits
  bool any = false;
  // (A shorter sequence alone does not count: it changes the data, so the combination is still
  // worth giving.)
  for (const auto& ch : out.changes) any = any || (ch.available && ch.fits && ch.id != "seq" && ch.id != "serve_seq");
  if (!out.fits && !any) {
    using Step = std::function<std::optional<Candidate>(const Candidate&)>;
    std::vector<std::pair<std::string, Step>> steps;
    auto simple = [&](const char* id, auto change, auto applicable) {
      steps.push_back({id, [=, &with](const Candidate& c) -> std::optional<Candidate> {
                         if (!applicable(c)) return std::nullopt;
                         return with(c, id, change);
                       }});
    };
    if (!serve) {
      simple("adamw8bit", [](Candidate& x) { x.o.optimizer = Optimizer::adamw8bit; x.delta["optimizer"] = "adamw8bit"; },
             [](const Candidate& c) { return c.o.optimizer == Optimizer::adamw; });
      simple("grad_ckpt", [](Candidate& x) { x.o.grad_ckpt = true; x.delta["grad_ckpt"] = true; },
             [](const Candidate& c) { return !c.o.grad_ckpt; });
      steps.push_back({"grad_accum", [&](const Candidate& c) -> std::optional<Candidate> {
                         if (c.o.batch <= 1) return std::nullopt;
                         return accumulate(c);
                       }});
      simple("lora", [](Candidate& x) { x.mode = Mode::lora; x.delta["mode"] = "lora"; },
             [](const Candidate& c) { return c.mode == Mode::full; });
      simple("qlora", [](Candidate& x) { x.mode = Mode::qlora; x.delta["mode"] = "qlora"; },
             [](const Candidate& c) { return c.mode == Mode::full || c.mode == Mode::lora; });
      simple("lora_targets", [qv](Candidate& x) { x.o.lora_targets = qv; x.delta["lora_targets"] = qv; },
             [qv](const Candidate& c) { return c.mode != Mode::full && !qv.empty() && c.o.lora_targets != qv; });
      steps.push_back({"lora_rank", [&](const Candidate& c) -> std::optional<Candidate> {
                         if (c.mode == Mode::full || c.o.lora_rank <= 4) return std::nullopt;
                         const int64_t r = searched(c, c.o.lora_rank, set_rank, 4);
                         return with(c, "lora_rank", [&](Candidate& x) { set_rank(x, std::max<int64_t>(r, 4)); });
                       }});
    } else {
      simple("serve_dtype", [](Candidate& x) { x.o.serve_dtype = WeightDtype::int4; x.o.serve_dtype_set = true; x.delta["serve_dtype"] = "int4"; },
             [](const Candidate& c) { return c.o.serve_dtype != WeightDtype::int4 && c.o.serve_dtype != WeightDtype::nf4; });
      simple("kv_dtype", [](Candidate& x) { x.o.kv_dtype = WeightDtype::fp8; x.o.kv_dtype_set = true; x.delta["kv_dtype"] = "fp8"; },
             [](const Candidate& c) { return !(c.o.kv_dtype_set && c.o.kv_dtype == WeightDtype::fp8); });
    }
    // The cards you have (ZeRO-3 / tensor), then (last resort) a shorter sequence.
    const std::string strategy = serve ? "tensor" : "zero3";
    auto fits_config = [&](const Candidate& c, int64_t* reserved, int64_t* cards) {
      const Evaluated e = a.evaluate(c);
      *reserved = e.reserved;
      *cards = 1;
      if (e.fits) return true;
      if (c.ids.empty() || c.ids.back() != strategy) return false;
      const auto cut = a.sharded(c, strategy);
      if (!cut || cut->cards > a.owned_) return false;
      *reserved = cut->per_card_bytes;
      *cards = cut->cards;
      return true;
    };
    if (a.owned_ > 1)
      steps.push_back({strategy, [&](const Candidate& c) -> std::optional<Candidate> {
                         Candidate x = c;
                         x.o.batch = 1;
                         x.delta["batch"] = 1;
                         x.ids.push_back(strategy);
                         return x;
                       }});
    steps.push_back({serve ? "serve_seq" : "seq", [&](const Candidate& c) -> std::optional<Candidate> {
                       if (c.seq <= 1) return std::nullopt;
                       const int64_t s = searched(c, c.seq, set_seq, 0);
                       if (s < 1) return std::nullopt;
                       Candidate x = c;
                       set_seq(x, s);
                       x.ids.push_back(serve ? "serve_seq" : "seq");
                       return x;
                     }});
    Candidate cur = base;
    int64_t reserved = be.reserved, cards = 1;
    bool done = false;
    for (const auto& [id, step] : steps) {
      auto next = step(cur);
      if (!next) continue;
      int64_t r = 0, k = 1;
      const bool ok = fits_config(*next, &r, &k);
      // A sharding step only counts where it fits; any other step where it saves memory.
      if (id == strategy && !ok) continue;
      if (!ok && r >= reserved) continue;
      cur = std::move(*next);
      reserved = r;
      cards = k;
      if (ok) {
        done = true;
        break;
      }
    }
    if (done) {
      FitCombination best;
      best.ids = cur.ids;
      best.options = cur.delta.dump();
      if (cur.ids.back() == strategy) best.options = [&] {
        json d = cur.delta;
        d["strategy"] = strategy;
        d["cards"] = cards;
        return d.dump();
      }();
      best.reserved_bytes = reserved;
      best.saved_bytes = be.reserved == kNever ? 0 : be.reserved - reserved;
      best.cards = cards;
      best.fits = true;
      best.time_factor = ratio(cur);
      best.step_seconds = a.step_seconds(cur);
      out.best = std::move(best);
    }
  }

  // ---- the longest sequence that fits at the requested batch, per card (exact search; the
  // reserved bytes grow with seq). Cards by capacity, each search starting at the last answer.
  const int64_t context = m.dims.max_positions;
  out.seq_limit = context > 0 ? std::min(context, kMaxSeq) : kMaxSeq;
  std::map<int64_t, int64_t> memo;  // seq → reserved bytes
  auto reserved_at = [&](int64_t s) {
    auto it = memo.find(s);
    if (it != memo.end()) return it->second;
    Candidate c = base;
    set_seq(c, s);
    return memo[s] = a.reserved(c, c.o.batch);
  };
  std::vector<const Card*> cards;
  for (const auto& r : plan.cards) cards.push_back(r.card);
  std::vector<size_t> order(cards.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return cards[x]->capacity_bytes < cards[y]->capacity_bytes; });
  std::vector<int64_t> longest(cards.size(), 0);
  int64_t floor_seq = 1;
  for (size_t i : order) {
    const int64_t cap = cards[i]->capacity_bytes;
    const int64_t s = Advisor::largest(floor_seq, out.seq_limit, [&](int64_t v) { return reserved_at(v) <= cap; });
    longest[i] = s >= floor_seq ? s : (floor_seq > 1 ? floor_seq - 1 : 0);
    if (longest[i] >= 1) floor_seq = longest[i];
  }
  for (size_t i = 0; i < cards.size(); ++i) out.longest_seq.push_back({cards[i], longest[i]});
  return out;
}

}  // namespace cardfit

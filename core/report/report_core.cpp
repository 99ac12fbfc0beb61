// The core report (cardfit.report/2 without the on-request sections) written straight to a string:
// model, params (no tensor list), checkpoint, plan, modes, cards, cost, checks, assumptions, the
// headline, and what the page needs to re-evaluate a batch change without the core (the memory
// events per mode, the checks at batch 1 and above). Keys are written in nlohmann's (sorted) order
// so the text is byte-identical to the tree-built report's. Formats only; computes nothing.
#include <algorithm>
#include <array>
#include <map>

#include "json_writer.hpp"
#include "report.hpp"
#include "report_serving.hpp"

namespace cardfit {

namespace {
// An object whose keys come from data: sorted, the last of equal keys kept (as nlohmann's map).
template <class T, class F>
void sorted_object(JsonWriter& w, const std::vector<T>& items, F key_and_value) {
  std::map<std::string, const T*> by_key;
  for (const auto& x : items) by_key[key_and_value(x, nullptr)] = &x;
  w.begin_object();
  for (const auto& [k, x] : by_key) {
    w.data_key(k);
    key_and_value(*x, &w);
  }
  w.end_object();
}

void shape(JsonWriter& w, const Shape& s) { w.array_of(s); }

void strings(JsonWriter& w, const std::vector<std::string>& s) { w.array_of(s); }

// MemoryPlan members, optionally merged with the plan's option echo (the "plan" section).
void memory(JsonWriter& w, const MemoryPlan& p, const Plan* echo) {
  const Options* o = echo ? &echo->options : nullptr;
  w.begin_object();
  if (o) w.field("attention", attention_name(echo->attention));
  w.field("batch", p.batch);
  if (o) w.field("borderline_factor", echo->borderline_factor);
  w.key("component_labels");
  sorted_object(w, p.components, [](const Component& c, JsonWriter* v) { if (v) v->value(c.label); return c.id; });
  w.key("components");
  sorted_object(w, p.components, [](const Component& c, JsonWriter* v) { if (v) v->value(c.bytes); return c.id; });
  if (o) {
    w.field("double_quant", o->double_quant);  // as planned: a bitsandbytes checkpoint's, unless given
    w.field("grad_accum", o->grad_accum).field("grad_ckpt", echo->grad_ckpt).field("images", echo->cost.images);
    w.field("lora_dropout", o->lora_dropout).field("lora_rank", o->lora_rank);
  }
  w.field("mode", mode_name(p.mode));
  if (o) w.field("optimizer", optimizer_name(o->optimizer)).field("optimizer_impl", optimizer_impl_name(o->optimizer_impl));
  w.key("overheads");
  sorted_object(w, p.overheads, [](const Component& c, JsonWriter* v) { if (v) v->value(c.bytes); return c.id; });
  w.field("peak_bytes", p.peak_bytes).field("peak_event", p.peak_event).field("peak_phase", p.peak_phase);
  w.key("phases");
  sorted_object(w, p.phases, [](const Phase& ph, JsonWriter* v) { if (v) v->value(ph.bytes); return ph.name; });
  if (o) w.field("precision", precision_name(o->precision)).field("qlora_quant", quant_name(o->qlora_quant));
  w.field("reserved_bytes", p.reserved_bytes).field("seq", p.seq).field("trainable_params", p.trainable_params);
  w.end_object();
}

// A pipeline's blocks per stage as runs, [[blocks, stages], ...] in stage order: a 1,024-layer model's
// cut has ~1,000 stages per card and mode, nearly all of one size ([[1, 1000], [2, 7], ...]).
void stage_runs(JsonWriter& w, const std::vector<int64_t>& stage_blocks) {
  w.begin_array();
  for (size_t i = 0; i < stage_blocks.size();) {
    size_t j = i;
    while (j < stage_blocks.size() && stage_blocks[j] == stage_blocks[i]) ++j;
    w.begin_array().value(stage_blocks[i]).value(int64_t(j - i)).end_array();
    i = j;
  }
  w.end_array();
}

// The chosen cut with its alternatives (full set), or one alternative. The chosen strategy's own entry
// among the alternatives leaves out its stages: they are the chosen cut's.
void split_option(JsonWriter& w, const SplitOption& s, const Split* full, bool with_stages = true) {
  w.begin_object();
  if (full) {
    w.key("alternatives").begin_array();
    for (const auto& a : full->alternatives) split_option(w, a, nullptr, a.strategy != full->strategy);
    w.end_array();
  }
  w.field("card_hours", s.card_hours).field("cards", s.cards);
  if (full) w.field("cheapest", full->cheapest);
  w.field("per_card_bytes", s.per_card_bytes);
  if (with_stages) {
    w.key("stage_runs");
    stage_runs(w, s.stage_layers);
  }
  w.field("strategy", s.strategy);
  w.end_object();
}

// A split as written the first time it was asked for (Split::json).
void split_section(JsonWriter& w, const Split& s) {
  if (s.json.empty()) {
    JsonWriter text(s.json);
    split_option(text, s, &s);
  }
  w.raw(s.json);
}

template <class F>
void per_mode(JsonWriter& w, F value) {
  w.begin_object();  // full, lora, qlora, serve: already in sorted order
  for (Mode m : all_modes) {
    w.data_key(mode_name(m));
    value(int(m));
  }
  w.end_object();
}

void cost_row(JsonWriter& w, const CostRow& r) {
  w.begin_object();
  w.field("card", r.card ? r.card->id : std::string()).field("cards", r.cards).field("fits", r.fits);
  w.field("hours", r.hours).field("mode", mode_name(r.mode)).field("priced", r.priced);
  w.field("step_seconds", r.step_seconds).field("strategy", r.strategy).field("tokens_per_s", r.tokens_per_s);
  w.field("usd", r.usd);
  w.end_object();
}

void optional_cost_row(JsonWriter& w, const std::optional<CostRow>& r) {
  if (r) cost_row(w, *r);
  else w.null();
}

template <class T>
void optional_int(JsonWriter& w, const std::optional<T>& v) {
  if (v) w.value(*v);
  else w.null();
}

void findings(JsonWriter& w, const std::vector<Finding>& fs) {
  w.begin_array();
  for (const auto& f : fs)
    w.begin_object().field("fix", f.fix).field("id", f.id).field("message", f.message).field("severity", f.severity).end_object();
  w.end_array();
}

void model_section(JsonWriter& w, const Model& m) {
  const Dims& d = m.dims;
  w.begin_object().field("approximate", m.approximate);
  w.key("dims").begin_object();
  w.field("encoder_decoder", d.encoder_decoder).field("encoder_only", d.encoder_only).field("experts", d.experts);
  w.field("experts_per_token", d.experts_per_token).field("head_dim", d.head_dim).field("heads", d.heads);
  w.field("hidden", d.hidden).field("intermediate", d.intermediate).field("kv_heads", d.kv_heads);
  w.field("layers", d.layers).field("max_positions", d.max_positions).field("sliding_window", d.sliding_window);
  w.field("tied_embeddings", d.tied_embeddings).field("vocab", d.vocab);
  w.end_object();
  w.field("family", m.family).field("model_type", m.model_type);
  w.key("notes");
  strings(w, m.notes);
  w.end_object();
}

void params_section(JsonWriter& w, const Model& m) {
  w.begin_object().key("buffers").begin_array();
  for (const auto& t : m.buffers) {
    w.begin_object().field("count", t.count()).field("name", t.name).key("shape");
    shape(w, t.shape);
    w.end_object();
  }
  w.end_array();
  w.field("buffers_total", m.buffer_count());
  // Summed by the Role enum (a tensor list can be ~100,000 long), then written in name order.
  std::array<int64_t, size_t(Role::other) + 1> by_role{};
  std::array<bool, size_t(Role::other) + 1> seen{};
  for (const auto& t : m.tensors)
    if (t.tied_to.empty()) {
      by_role[size_t(t.role)] = checked_add(by_role[size_t(t.role)], t.count(), "a role's parameters");
      seen[size_t(t.role)] = true;
    }
  std::map<std::string_view, int64_t> named;
  for (size_t r = 0; r < by_role.size(); ++r)
    if (seen[r]) named[role_name(Role(r))] = by_role[r];
  w.key("by_role").begin_object();
  for (const auto& [role, n] : named) w.data_key(role).value(n);
  w.end_object();
  w.field("tensor_count", expanded_size(m.tensors)).field("total", m.parameter_count());
  w.end_object();
}

void checkpoint_section(JsonWriter& w, const std::optional<Reconciliation>& ck) {
  if (!ck) {
    w.null();
    return;
  }
  const Reconciliation& c = *ck;
  w.begin_object().field("buffers", c.buffers).key("dtypes");
  strings(w, c.dtypes);
  w.key("extra");
  strings(w, c.extra);
  // What the file stores beyond the model class, by role, with exact scalar counts.
  w.field("extra_scalars", c.extra_scalars).key("extras").begin_array();
  for (const auto& g : c.extras) {
    w.begin_object().key("dtypes");
    strings(w, g.dtypes);
    w.field("example", g.example).field("role", extra_role_name(g.role)).field("scalars", g.scalars);
    w.field("tensors", g.tensors).end_object();
  }
  w.end_array();
  w.key("missing");
  strings(w, c.missing);
  w.field("packed_counting", c.packed_counting).field("packed_replaced", c.packed_replaced);
  w.field("params", c.params).key("scalars");
  optional_int(w, c.scalars);
  w.key("shape_mismatches").begin_array();
  for (const auto& x : c.shape_mismatches) {
    w.begin_object().key("expected");
    shape(w, x.expected);
    w.key("found");
    shape(w, x.found);
    w.field("name", x.name).end_object();
  }
  w.end_array();
  w.field("source", c.source).field("tied_copies", c.tied_copies).key("total_bytes");
  optional_int(w, c.total_bytes);
  w.key("unexplained");
  optional_int(w, c.unexplained);
  if (c.variable_tensors > 0)  // only bitsandbytes' double-quantized quant_state JSON has any
    w.field("variable_assigned", c.variable_assigned).field("variable_max", c.variable_max)
        .field("variable_tensors", c.variable_tensors);
  w.end_object();
}

void cards_section(JsonWriter& w, const Plan& p) {
  w.begin_array();
  for (const auto& row : p.cards) {
    w.begin_object().field("bf16", row.card->bf16).key("borderline");
    per_mode(w, [&](int i) { w.value(row.borderline[i]); });
    w.field("capacity_bytes", row.card->capacity_bytes).field("custom", row.card->custom);
    w.field("dense_tflops", row.card->dense_tflops(p.options.precision)).field("driver_mib", row.card->driver_mib);
    w.field("fp8", row.card->fp8).field("id", row.card->id).key("max_batch");
    per_mode(w, [&](int i) { w.value(row.max_batch[i]); });
    w.field("mem_bw_gbps", row.card->mem_bw_gbps).field("name", row.card->name).key("safe_batch");
    per_mode(w, [&](int i) { w.value(row.safe_batch[i]); });
    w.key("split");
    per_mode(w, [&](int i) {
      if (row.split[i]) split_section(w, *row.split[i]);
      else w.null();
    });
    w.key("usd_per_gpu_hr");
    if (auto price = row.card->price(p.options)) w.value(*price);
    else w.null();
    w.end_object();
  }
  w.end_array();
}

void cost_section(JsonWriter& w, const Plan& p) {
  const Cost& c = p.cost;
  const Options& o = p.options;
  w.begin_object().field("batch", o.cost_batch).key("cheapest");
  optional_cost_row(w, c.cheapest);
  w.field("epochs", o.epochs).field("flops_per_image_forward", c.flops_per_image_forward);
  w.field("flops_per_token_forward", c.flops_per_token_forward).field("flops_per_token_step", c.flops_per_token_step);
  w.field("images", c.images).field("mfu", c.mfu).field("mode", mode_name(o.mode == Mode::serve ? Mode::full : o.mode));
  w.key("priced");
  optional_cost_row(w, c.priced);
  w.key("rows").begin_array();
  for (const auto& r : c.rows) cost_row(w, r);
  w.end_array();
  w.field("samples", o.samples).field("seq", p.seq).field("tokens", c.tokens).field("total_flops", c.total_flops);
  w.end_object();
}

// Per mode: the moments that can be the peak (MemoryModel::peak_candidates) with their bytes by
// component, and what turns a peak into reserved bytes: enough for web/src/batch.js to give the
// plan section and the curve at any batch exactly as the core would.
void memory_events_section(JsonWriter& w, const Plan& p) {
  constexpr int kN = MemoryModel::kComponents;
  per_mode(w, [&](int mi) {
    const MemoryModel& mm = p.memory[size_t(mi)];
    std::vector<int> listed;
    for (int c = 0; c < kN; ++c)
      if (mm.listed(c)) listed.push_back(c);
    w.begin_object();
    w.field("allocator_reserve_fraction", mm.overheads().allocator_reserve_fraction);
    w.key("components").begin_array();  // at() order; only those the plan section lists
    for (int c : listed) {
      w.begin_object().field("id", mm.component_id_of(c)).field("label", mm.component_label_of(c));
      w.field("only_if_fixed", mm.listed_if_fixed(c)).end_object();
    }
    w.end_array();
    w.field("cuda_context_bytes", mm.overheads().cuda_context_bytes);
    w.key("events").begin_array();
    for (const auto& e : mm.peak_candidates(kMaxPlanBatch)) {
      w.begin_object().key("fixed").begin_array();
      for (int c : listed) w.value(e.fixed[size_t(c)]);
      w.end_array().field("fixed_total", e.fixed_total).key("per_sample").begin_array();
      for (int c : listed) w.value(e.per_sample[size_t(c)]);
      w.end_array().field("per_sample_total", e.per_sample_total).field("phase", e.phase);
      w.field("what", e.what).end_object();
    }
    w.end_array();
    w.field("max_batch", kMaxPlanBatch).field("mode", mode_name(Mode(mi)));
    w.key("phases");
    strings(w, mm.phase_names());
    w.field("seq", mm.seq()).field("trainable_params", p.modes[mi].trainable_params);
    w.end_object();
  });
}

void assumptions_section(JsonWriter& w, const std::vector<Assumption>& as) {
  w.begin_array();
  for (const auto& a : as)
    w.begin_object().field("id", a.id).field("option", a.option).field("source", a.source).field("text", a.text)
        .field("value", a.value).end_object();
  w.end_array();
}
}  // namespace

std::string core_report(const CoreReportInput& in) {
  const Model& m = in.model;
  const Plan& p = in.plan;
  std::string out;
  out.reserve(128 * 1024);  // every golden core report is under 100 KB: one allocation
  JsonWriter w(out);
  w.begin_object().key("assumptions");
  assumptions_section(w, p.assumptions);
  w.key("cards");
  cards_section(w, p);
  w.key("checkpoint");
  checkpoint_section(w, in.checkpoint);
  w.key("checks");
  findings(w, in.checks);
  w.key("checks_by_batch").begin_object().key("batched");
  findings(w, in.checks_batched);
  w.key("single");
  findings(w, in.checks_single);
  w.end_object();
  w.key("cost");
  cost_section(w, p);
  if (in.fit) w.key("fit").raw(*in.fit);
  w.field("headline", headline(m, p));
  w.key("linear_names").begin_array();  // the LoRA target choices: distinct leaf names of linears
  for (const auto& n : linear_leaves(m)) w.value(n);
  w.end_array();
  w.key("memory_events");
  memory_events_section(w, p);
  w.key("model");
  model_section(w, m);
  w.key("modes");
  per_mode(w, [&](int i) { memory(w, p.modes[i], nullptr); });
  w.field("ok", true);
  if (p.parallel.active) w.key("parallel").raw(parallel_report(p));
  w.key("params");
  params_section(w, m);
  w.key("plan");
  memory(w, p.requested, &p);
  w.field("schema", kReportSchema);
  w.key("serving");
  serving_section(w, p);
  w.end_object();
  return out;
}

}  // namespace cardfit

// See report_serving.hpp. Keys in sorted order (JsonWriter's contract).
#include "report_serving.hpp"

namespace cardfit {

namespace {
void serving_row(JsonWriter& w, const ServingRow& r) {
  const EngineBudget& b = r.budget;
  const EngineKnobs& k = b.knobs;
  w.begin_object();
  w.field("activation_bytes", b.activation_bytes).field("block_bytes", b.block_bytes).field("block_tokens", b.block_tokens);
  w.field("blocks", b.blocks).field("budget_bytes", b.budget_bytes).field("capacity_bytes", b.capacity_bytes);
  w.field("card", r.card ? r.card->id : std::string()).field("compute_bytes_per_sequence", b.compute_bytes_per_sequence);
  w.field("concurrency", b.concurrency);
  w.field("cuda_graph_bytes", b.cuda_graph_bytes).field("decode_bytes_per_step", r.decode_bytes_per_step);
  w.field("decode_step_seconds", r.decode_step_seconds).field("fits", b.fits);
  w.field("input_tokens_per_second", r.input_tokens_per_second);
  w.key("knobs").begin_object();
  w.field("cuda_graph_max_bs", k.cuda_graph_max_bs).field("flash_attention", k.flash_attention);
  w.field("gpu_layers", k.gpu_layers).field("max_seqs", k.max_seqs);
  w.field("memory_fraction", k.memory_fraction).field("output_on_gpu", k.output_on_gpu).field("profile_tokens", k.profile_tokens);
  w.end_object();
  w.field("kv_bytes", b.kv_bytes).field("kv_replicated", b.kv_replicated).field("kv_tokens", b.kv_tokens);
  w.field("memory_bound", r.memory_bound).field("non_torch_bytes", b.non_torch_bytes);
  w.field("output_tokens_per_second", r.output_tokens_per_second);
  w.field("prefill_seconds_per_token", r.prefill_seconds_per_token).field("priced", r.priced);
  w.field("sequence_bytes", b.sequence_bytes).field("usd_per_m_input", r.usd_per_m_input);
  w.field("usd_per_m_output", r.usd_per_m_output).field("weights_bytes", b.weights_bytes);
  w.field("workload_batch", b.workload_batch);
  w.end_object();
}

void write_serving(JsonWriter& w, const Serving& s) {
  w.begin_object();
  w.field("bandwidth_efficiency", s.bandwidth_efficiency);
  w.field("card", s.priced ? s.rows[*s.priced].card->id : std::string());
  w.field("decode_context", s.decode_context).field("decode_flops_per_token", s.decode_flops_per_token);
  if (!s.devices.empty()) {
    // Only under a generation layout (stack litgpt or serve_parallel): one entry per device.
    w.key("devices").begin_array();
    for (const auto& d : s.devices) {
      w.begin_object();
      w.field("end_layer", d.end_layer).field("first_layer", d.first_layer).field("kv_bytes", d.kv_bytes);
      w.field("peak_bytes", d.peak_bytes).field("root", d.root).field("transient_bytes", d.transient_bytes);
      w.field("weights_bytes", d.weights_bytes);
      w.end_object();
    }
    w.end_array();
  }
  w.field("engine", engine_name(s.engine)).field("max_model_len", s.max_model_len).field("mfu", s.mfu);
  w.key("notes").array_of(s.notes);
  w.field("output_tokens", s.output_tokens);
  if (!s.parallel.empty()) w.field("parallel", s.parallel);
  w.field("prefill_flops_per_token", s.prefill_flops_per_token);
  w.key("priced");
  if (s.priced) serving_row(w, s.rows[*s.priced]);
  else w.null();
  w.field("prompt_tokens", s.prompt_tokens);
  w.key("rows").begin_array();
  for (const auto& r : s.rows) serving_row(w, r);
  w.end_array();
  w.field("tp", s.tp);
  w.end_object();
}
}  // namespace

void serving_section(JsonWriter& w, const Plan& p) {
  // Written once per shared serving plan (plan.hpp), then copied.
  const SharedServing& shared = *p.shared_serving;
  if (shared.json.empty()) {
    JsonWriter text(shared.json);
    write_serving(text, shared.serving);
  }
  w.raw(shared.json);
}

}  // namespace cardfit

// The Markdown twin (rendered from the report JSON, graph included) and the headline sentence.
#include <cstdio>
#include <sstream>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "report.hpp"

namespace cardfit {
using nlohmann::json;

namespace {
int64_t i64(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<int64_t>() : 0;
}

// A pipeline cut's blocks per stage from its runs ([[blocks, stages], ...]): each stage listed up to
// 12 stages ("10 + 11 + 11"), runs above that ("1 × 1000 + 2 × 7": 1,000 stages of 1 block, then 7 of 2).
std::string stage_text(const json& runs) {
  int64_t stages = 0;
  for (const auto& r : runs) stages += r[1].get<int64_t>();
  std::string out;
  for (const auto& r : runs) {
    const std::string blocks = std::to_string(r[0].get<int64_t>());
    const int64_t n = r[1].get<int64_t>();
    if (stages > 12) out += (out.empty() ? "" : " + ") + blocks + (n > 1 ? " × " + std::to_string(n) : "");
    else
      for (int64_t i = 0; i < n; ++i) out += (out.empty() ? "" : " + ") + blocks;
  }
  return out;
}

std::string cell(const json& card, const char* mode) {
  const int64_t b = i64(card["max_batch"], mode);
  if (b > 0) {
    const int64_t safe = card.contains("safe_batch") ? i64(card["safe_batch"], mode) : b;
    if (card["borderline"].value(mode, false)) return "batch " + std::to_string(b) + ", borderline";
    return "batch " + std::to_string(b) + (safe < b ? " (" + std::to_string(safe) + " with margin)" : "");
  }
  const json& s = card["split"][mode];
  if (s.is_null()) return "does not fit at batch 1";
  const std::string cut = stage_text(s.value("stage_runs", json::array()));
  std::string out = std::to_string(i64(s, "cards")) + " cards at batch 1 (" + s["strategy"].get<std::string>() +
                    (cut.empty() ? "" : ": " + cut + " blocks") + ")";
  const json alternatives = s.value("alternatives", json::array());
  for (const auto& a : alternatives)
    if (a["strategy"] != s["strategy"])
      out += "; " + a["strategy"].get<std::string>() + ": " + std::to_string(i64(a, "cards"));
  if (s.contains("cheapest") && s["cheapest"] != s["strategy"]) out += "; cheapest in card-hours: " + s["cheapest"].get<std::string>();
  return out;
}

std::string usd(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.2f", v);
  return buf;
}

std::string fixed(double v, int digits) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}
std::string seconds(double v) { return v <= 0 ? "–" : fixed(v, v < 10 ? 2 : 1); }
std::string rate(double v) { return v <= 0 ? "–" : format_thousands(int64_t(v + 0.5)); }
std::string hours(double v) { return v <= 0 ? "–" : fixed(v, v < 10 ? 2 : 1); }

// The fit section: the changes that make the plan fit the chosen card, each re-planned.
// The stored extras of a reconciliation, each named with its role and exact scalar count; the
// parameters stored packed are subtracted (they are in the file as their blocks).
std::string checkpoint_extras_text(const json& c) {
  std::string out;
  const int64_t packed = c.value("packed_replaced", int64_t(0));
  if (packed > 0) out += " - " + format_thousands(packed) + " parameters stored packed";
  for (const auto& g : c.value("extras", json::array())) {
    const std::string role = g["role"].get<std::string>();
    const char* what = role == "mtp"            ? "multi-token-prediction layer scalars"
                       : role == "quant_blocks" ? "packed quantized blocks"
                       : role == "quant_scale"  ? "quantization scales"
                       : role == "lookup_table" ? "lookup-table scalars"
                       : role == "quant_state"  ? "quantization-state scalars"
                                                : "position-table scalars";
    std::string dtypes;
    for (const auto& d : g["dtypes"]) {
      if (!dtypes.empty()) dtypes += '/';
      dtypes += d.get<std::string>();
    }
    out += " + " + format_thousands(g["scalars"].get<int64_t>()) + " " + what + " (" +
           std::to_string(g["tensors"].get<int64_t>()) + " tensors, " + dtypes + ", e.g. " +
           g["example"].get<std::string>() + ")";
  }
  if (c.value("packed_counting", std::string()) == "values") out += " [packed blocks counted as the values they hold]";
  // Lengths the config leaves open (bitsandbytes' nested_offset digits), counted at their least.
  if (c.value("variable_tensors", int64_t(0)) > 0)
    out += " + " + format_thousands(c.value("variable_assigned", int64_t(0))) + " of up to " +
           format_thousands(c.value("variable_max", int64_t(0))) + " scalars of data-dependent length (" +
           std::to_string(c.value("variable_tensors", int64_t(0))) + " quant_state JSON tensors: their nested_offset digits)";
  return out;
}

std::string fit_markdown(const json& f) {
  std::ostringstream md;
  md << "## Make it fit: " << f["card_name"].get<std::string>();
  if (i64(f, "cards") > 1) md << " × " << i64(f, "cards");
  md << "\n\nThe requested plan (" << f["mode"].get<std::string>() << ", batch " << i64(f, "batch") << ", "
     << i64(f, "seq") << " tokens) reserves " << format_gb(i64(f, "reserved_bytes")) << " per card; the card holds "
     << format_gb(i64(f, "capacity_bytes")) << ": " << (f.value("fits", false) ? "it fits." : "it does not fit.")
     << " Each change below is re-planned with the memory model.\n\n"
        "| Change | Options | Reserved | Saves | Fits alone | Step FLOPs | Cost and caveats |\n|---|---|---:|---:|---|---:|---|\n";
  for (const auto& c : f["changes"]) {
    if (!c.value("available", true)) {
      md << "| " << c["title"].get<std::string>() << " | – | – | – | not modelled | – | " << c["cost"].get<std::string>() << " |\n";
      continue;
    }
    const double tf = c["time_factor"].get<double>();
    md << "| " << c["title"].get<std::string>() << " | `" << c["options"].dump() << "` | " << format_gb(i64(c, "reserved_bytes"))
       << " | " << format_gb(i64(c, "saved_bytes")) << " | "
       << (c.value("fits", false) ? "yes" : "no") << (i64(c, "cards") > 1 ? " (" + std::to_string(i64(c, "cards")) + " cards)" : "")
       << " | ×" << fixed(tf, 2) << " | " << c["cost"].get<std::string>()
       << (c["source"].get<std::string>().empty() ? "" : " (" + c["source"].get<std::string>() + ")") << " |\n";
  }
  const json& b = f["best"];
  if (b.is_object()) {
    std::string ids;
    for (const auto& id : b["ids"]) ids += (ids.empty() ? "" : " + ") + id.get<std::string>();
    md << "\nNo single change fits; together: **" << ids << "** (`" << b["options"].dump() << "`), "
       << format_gb(i64(b, "reserved_bytes")) << " per card, step FLOPs ×" << fixed(b["time_factor"].get<double>(), 2) << ".\n";
  } else if (!f.value("fits", false)) {
    bool any = false;
    for (const auto& c : f["changes"]) any = any || (c.value("available", true) && c.value("fits", false));
    if (!any) md << "\nNo combination of these changes fits this card.\n";
  }
  md << "\nLongest sequence that fits at batch " << i64(f, "batch") << " (" << f["mode"].get<std::string>()
     << ", exact search up to " << i64(f, "seq_limit") << "):\n\n| Card | Longest seq |\n|---|---:|\n";
  for (const auto& s : f["longest_seq"])
    md << "| " << s["card"].get<std::string>() << " | "
       << (i64(s, "longest_seq") > 0 ? format_thousands(i64(s, "longest_seq")) : std::string("none")) << " |\n";
  md << "\n";
  return md.str();
}

// "fits one T4 16 GB", "2 × H200 (pipeline)", "does not fit on any card of the catalog".
std::string where_it_fits(const Plan& p, Mode mode) {
  const int mi = int(mode);
  for (const auto& c : p.cards)
    if (c.max_batch[mi] > 0) return "fits one " + c.card->name + (c.borderline[mi] ? ", borderline" : "");
  for (const auto& c : p.cards) {  // cards are ordered by capacity: the first cut is on the smallest card
    if (!c.split[mi]) continue;
    const Split& s = *c.split[mi];
    return std::to_string(s.cards) + " × " + c.card->name + ", " +
           (s.strategy == "pipeline" ? std::string("split by layer")
            : s.strategy == "tensor" ? std::string("tensor parallel")
                                     : "ZeRO-" + s.strategy.substr(4) + " sharded");
  }
  return "does not fit on any card of the catalog";
}

// The serving section: the priced card's budget, then concurrency, throughput and cost per card.
std::string serving_markdown(const json& s) {
  std::ostringstream md;
  auto num = [](double v, const char* fmt) {
    char buf[48];
    std::snprintf(buf, sizeof buf, fmt, v);
    return std::string(buf);
  };
  md << "## Serving: " << s.value("engine", "") << ", tp " << i64(s, "tp") << ", max_model_len "
     << i64(s, "max_model_len") << "\n\n";
  const json& pr = s["priced"];
  if (pr.is_object()) {
    md << "Budget on " << pr.value("card", "") << " (per rank):\n\n| Term | Bytes | GB |\n|---|---:|---:|\n";
    for (const auto& [label, key] : std::vector<std::pair<const char*, const char*>>{
             {"Card (torch total)", "capacity_bytes"}, {"Engine budget", "budget_bytes"}, {"Weights", "weights_bytes"},
             {"Activations peak", "activation_bytes"}, {"CUDA graphs", "cuda_graph_bytes"},
             {"Non-torch (context, buffers)", "non_torch_bytes"}, {"KV cache", "kv_bytes"}})
      md << "| " << label << " | " << format_thousands(i64(pr, key)) << " | " << format_gb(i64(pr, key)) << " |\n";
    md << "\n" << format_thousands(i64(pr, "blocks")) << " blocks of " << i64(pr, "block_tokens") << " tokens ("
       << format_thousands(i64(pr, "kv_tokens")) << " tokens of KV); " << i64(pr, "concurrency")
       << " sequences of max_model_len at once.\n\n";
  }
  md << "| Card | Concurrency | Batch at " << i64(s, "prompt_tokens") << " + " << i64(s, "output_tokens")
     << " tokens | Output tok/s per card | $/M output | $/M input |\n|---|---:|---:|---:|---:|---:|\n";
  for (const auto& row : s["rows"]) {
    md << "| " << row.value("card", "") << " | " << (row.value("fits", false) ? std::to_string(i64(row, "concurrency")) : "does not fit")
       << " | " << i64(row, "workload_batch") << " | ";
    if (row.value("priced", false))
      md << num(row.value("output_tokens_per_second", 0.0), "%.0f") << " | " << usd(row.value("usd_per_m_output", 0.0))
         << " | " << usd(row.value("usd_per_m_input", 0.0)) << " |\n";
    else
      md << "– | – | – |\n";
  }
  md << "\nRoofline: prefill at the dense peak × MFU " << s.value("mfu", 0.0) << ", decode reading the weights and the "
     << "batch's KV cache at " << s.value("bandwidth_efficiency", 0.0) << " of peak bandwidth.";
  for (const auto& n : s.value("notes", json::array())) md << " " << n.get<std::string>();
  md << "\n\n";
  return md.str();
}
}  // namespace

std::string headline(const Model& m, const Plan& p) {
  const MemoryPlan& full = p.modes[int(Mode::full)];
  const MemoryPlan& lora = p.modes[int(Mode::lora)];
  std::ostringstream s;
  s << "Fine-tuning this " << m.model_type << " model at batch 1 and " << full.seq << " tokens takes about "
    << format_gb(full.peak_bytes) << " of GPU memory for a full fine-tune (" << where_it_fits(p, Mode::full)
    << "), and " << format_gb(lora.peak_bytes) << " with LoRA r=" << p.options.lora_rank
    << " on a bf16 base (" << where_it_fits(p, Mode::lora) << ").";
  return s.str();
}

std::string report_markdown(const json& r) {
  std::ostringstream md;
  const json& m = r["model"];
  md << "# " << m["model_type"].get<std::string>() << ": GPU memory and cost\n\n";
  md << r.value("headline", "") << " Estimated from the model's structure; peak = what "
        "torch.cuda.max_memory_allocated would report, reserved = what the card must hold.\n\n";
  if (m.value("approximate", false)) md << "> **Approximate:** " << m["notes"].dump() << "\n\n";

  md << "## Parameters\n\n" << format_thousands(i64(r["params"], "total")) << " parameters in "
     << i64(r["params"], "tensor_count") << " tensors";
  if (i64(r["params"], "buffers_total") > 0)
    md << ", plus " << format_thousands(i64(r["params"], "buffers_total")) << " buffer scalars the checkpoint stores";
  md << ".\n\n";
  if (!r["checkpoint"].is_null()) {
    const json& c = r["checkpoint"];
    md << "Checkpoint (" << c["source"].get<std::string>() << "): ";
    if (!c["scalars"].is_null()) md << format_thousands(c["scalars"].get<int64_t>()) << " scalars = "
        << format_thousands(i64(c, "params")) << " parameters + " << format_thousands(i64(c, "buffers"))
        << " buffers" << checkpoint_extras_text(c) << " + " << format_thousands(c["unexplained"].get<int64_t>())
        << " unexplained.";
    md << " Missing: " << c["missing"].size() << ", extra: " << c["extra"].size() << ", shape mismatches: "
       << c["shape_mismatches"].size() << ".\n\n";
  }

  md << "## Memory at batch 1\n\n| Mode | Seq | Peak | Reserved | Peak phase |\n|---|---:|---:|---:|---|\n";
  for (const char* mode : {"full", "lora", "qlora", "serve"}) {
    const json& x = r["modes"][mode];
    md << "| " << mode << " | " << i64(x, "seq") << " | " << format_gb(i64(x, "peak_bytes")) << " | "
       << format_gb(i64(x, "reserved_bytes")) << " | " << x["peak_phase"].get<std::string>() << " |\n";
  }
  const json& p = r["plan"];
  md << "\n## Requested plan: " << p["mode"].get<std::string>() << ", batch " << i64(p, "batch") << ", "
     << i64(p, "seq") << " tokens\n\n| Component | Bytes | GB |\n|---|---:|---:|\n";
  for (const auto& [id, bytes] : p["components"].items())
    if (bytes.get<int64_t>() > 0)
      md << "| " << p["component_labels"].value(id, id) << " | " << format_thousands(bytes.get<int64_t>()) << " | "
         << format_gb(bytes.get<int64_t>()) << " |\n";
  md << "| **Peak** (" << p["peak_phase"].get<std::string>() << ") | " << format_thousands(i64(p, "peak_bytes"))
     << " | " << format_gb(i64(p, "peak_bytes")) << " |\n";
  const json overheads = p.value("overheads", json::object());
  for (const auto& [id, bytes] : overheads.items())
    md << "| + " << id << " | " << format_thousands(bytes.get<int64_t>()) << " | " << format_gb(bytes.get<int64_t>()) << " |\n";
  md << "| **Reserved** | " << format_thousands(i64(p, "reserved_bytes"))
     << " | " << format_gb(i64(p, "reserved_bytes")) << " |\n\n";

  md << "## Largest batch per card\n\n| Card | Full fine-tune | LoRA | QLoRA | Serve |\n|---|---|---|---|---|\n";
  for (const auto& c : r["cards"])
    md << "| " << c["name"].get<std::string>() << " | " << cell(c, "full") << " | " << cell(c, "lora") << " | "
       << cell(c, "qlora") << " | " << cell(c, "serve") << " |\n";

  if (r.contains("parallel")) {
    // Multi-GPU training per rank (plan/parallel.hpp): the requested layout, then per card the
    // smallest N per strategy.
    const json& x = r["parallel"];
    const json& l = x["layout"];
    md << "\n## Multi-GPU: " << x["strategy"].get<std::string>() << " over " << i64(l, "gpus") << " GPUs (dp "
       << i64(l, "dp") << ", shard " << i64(l, "shard_group") << ", tp " << i64(l, "tp") << ", cp " << i64(l, "cp")
       << ", ep " << i64(l, "ep") << ")\n\n";
    if (!x["supported"].get<bool>()) {
      md << x["note"].get<std::string>() << "\n";
    } else {
      const json& pr = x["per_rank"];
      md << "| Per rank | Bytes | GB |\n|---|---:|---:|\n";
      for (const auto& c : pr["components"])
        md << "| " << c["label"].get<std::string>() << " | " << format_thousands(i64(c, "bytes")) << " | "
           << format_gb(i64(c, "bytes")) << " |\n";
      md << "| **Peak** (" << pr["peak_event"].get<std::string>() << ") | " << format_thousands(i64(pr, "peak_bytes"))
         << " | " << format_gb(i64(pr, "peak_bytes")) << " |\n| **Reserved** | "
         << format_thousands(i64(pr, "reserved_bytes")) << " | " << format_gb(i64(pr, "reserved_bytes")) << " |\n";
      if (i64(pr, "host_bytes") > 0) md << "| Host memory (offloaded) | " << format_thousands(i64(pr, "host_bytes"))
                                        << " | " << format_gb(i64(pr, "host_bytes")) << " |\n";
      if (!x["topology"].is_null())
        md << "\nTopology on " << x["priced_card"].get<std::string>() << ": " << i64(x["topology"], "nodes")
           << " node(s), " << x["topology"]["intra_node"].get<std::string>()
           << (x["topology"]["recommended"].get<bool>() ? "" : " — not recommended") << ".\n";
      md << "\n| Card | Smallest N per strategy |\n|---|---|\n";
      for (const auto& c : x["cards"]) {
        std::string cells;
        for (const auto& sm : c["smallest"]) {
          if (!cells.empty()) cells += ", ";
          cells += sm["strategy"].get<std::string>() + (sm["offload"].get<bool>() ? "+offload" : "") + " ";
          cells += sm["gpus"].is_null() ? std::string("—")
                                        : std::to_string(sm["gpus"].get<int64_t>()) +
                                              (sm["topology"]["recommended"].get<bool>() ? "" : " (not recommended)") +
                                              (i64(sm, "host_bytes") > 0 ? " (host " + format_gb(i64(sm, "host_bytes")) + " per rank)" : "");
        }
        md << "| " << c["name"].get<std::string>() << " | " << cells << " |\n";
      }
    }
  }

  const json& cost = r["cost"];
  md << "\n## Cost\n\n" << i64(cost, "epochs") << " epochs × " << i64(cost, "samples") << " samples × "
     << i64(cost, "seq") << " tokens, MFU " << cost["mfu"].get<double>() << ".";
  if (!cost["priced"].is_null() && cost["priced"].value("priced", false))
    md << " On " << cost["priced"]["card"].get<std::string>() << ": " << usd(cost["priced"]["usd"].get<double>()) << ".";
  if (!cost["cheapest"].is_null())
    md << " Cheapest that fits: " << cost["cheapest"]["mode"].get<std::string>() << " on "
       << i64(cost["cheapest"], "cards") << " × " << cost["cheapest"]["card"].get<std::string>() << ", "
       << usd(cost["cheapest"]["usd"].get<double>()) << ".";
  md << "\n\n";
  if (r.contains("serving") && r["serving"].is_object()) md << serving_markdown(r["serving"]);
  // Training throughput at the planned batch (roofline: step FLOPs / (cards × dense peak × MFU)).
  bool any_rate = false;
  for (const auto& row : cost["rows"]) any_rate = any_rate || row.value("tokens_per_s", 0.0) > 0;
  if (any_rate) {
    md << "## Training throughput\n\nAt batch " << i64(p, "batch") << " × " << i64(p, "grad_accum")
       << " accumulation, " << i64(cost, "seq") << " tokens, MFU " << cost["mfu"].get<double>()
       << " (roofline: step FLOPs / (cards × dense peak × MFU)).\n\n"
          "| Card | Cards | Step (s) | Tokens/s | Run hours | Run cost |\n|---|---:|---:|---:|---:|---:|\n";
    for (const auto& row : cost["rows"]) {
      if (row.value("tokens_per_s", 0.0) <= 0) continue;
      md << "| " << row["card"].get<std::string>() << " | " << i64(row, "cards") << " | " << seconds(row["step_seconds"].get<double>())
         << " | " << rate(row["tokens_per_s"].get<double>()) << " | " << hours(row["hours"].get<double>()) << " | "
         << (row.value("priced", false) ? usd(row["usd"].get<double>()) : std::string("–")) << " |\n";
    }
    md << "\n";
  }
  if (r.contains("fit") && r["fit"].is_object()) md << fit_markdown(r["fit"]);
  md << "## Structure\n\n| Block | Repeat | Params | Nodes |\n|---|---:|---:|---:|\n";
  for (const auto& b : r["graph"]["blocks"])
    md << "| " << b["first"].get<std::string>() << (i64(b, "repeat") > 1 ? " … " + b["last"].get<std::string>() : "")
       << (b.value("contiguous", true) ? "" : " (interleaved)")
       << " | " << i64(b, "repeat") << " | " << format_thousands(i64(b, "params")) << " | " << b["nodes"].size() << " |\n";
  md << "\n## Checks\n\n";
  for (const auto& c : r["checks"])
    md << "- **" << c["severity"].get<std::string>() << "** `" << c["id"].get<std::string>() << "`: "
       << c["message"].get<std::string>() << (c["fix"].get<std::string>().empty() ? "" : " Fix: " + c["fix"].get<std::string>()) << "\n";
  md << "\n## Assumptions\n\n";
  for (const auto& a : r["assumptions"])
    md << "- " << a["text"].get<std::string>() << " (" << (a["option"].get<std::string>().empty() ? a["id"].get<std::string>() : "option `" + a["option"].get<std::string>() + "`")
       << " = " << a["value"].get<std::string>() << ")\n";
  return md.str();
}

}  // namespace cardfit

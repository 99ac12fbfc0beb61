// The Markdown twin (rendered from the report JSON, graph included) and the headline sentence.
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report.hpp"

namespace cardfit {
using nlohmann::json;

namespace {
int64_t i64(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<int64_t>() : 0;
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
  std::string cut;
  for (const auto& n : s["stage_blocks"]) cut += (cut.empty() ? "" : " + ") + std::to_string(n.get<int64_t>());
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
        << " buffers + " << format_thousands(c["unexplained"].get<int64_t>()) << " unexplained.";
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
  md << "\n\n## Structure\n\n| Block | Repeat | Params | Nodes |\n|---|---:|---:|---:|\n";
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

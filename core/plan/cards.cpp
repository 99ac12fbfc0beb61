// Catalog parsing and the monotone batch search.
#include "cards.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "../error.hpp"
#include "card_data.hpp"

namespace cardfit {
using nlohmann::json;

double Card::dense_tflops(Precision p) const {
  if (p == Precision::fp32) return fp32_tflops;
  if (p == Precision::fp16_mixed) return fp16_tflops > 0 ? fp16_tflops : bf16_tflops;
  return bf16_tflops > 0 ? bf16_tflops : fp16_tflops;  // T4/V100 have no bf16: fp16 rate
}

std::optional<double> Card::price(const Options& opt) const {
  if (auto it = opt.prices.find(id); it != opt.prices.end()) return it->second;
  std::optional<double> best;
  for (const auto& p : prices)
    if (p.usd_per_gpu_hr > 0 && (!best || p.usd_per_gpu_hr < *best)) best = p.usd_per_gpu_hr;
  return best;
}

namespace {
double num(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0;
}
std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
}  // namespace

Catalog load_catalog() {
  Catalog cat;
  try {
    const json j = json::parse(card_catalog_json());
    const json& d = j.at("defaults");
    cat.priced_card = d.at("priced_card").get<std::string>();
    cat.mfu = d.at("mfu").at("value").get<double>();
    for (const auto& s : d.at("mfu").value("sources", json::array())) cat.mfu_source += (cat.mfu_source.empty() ? "" : "; ") + s.get<std::string>();
    cat.overheads.cuda_context_bytes = d.at("cuda_context_bytes").at("value").get<int64_t>();
    cat.overheads.allocator_reserve_fraction = d.at("allocator_reserve_fraction").at("value").get<double>();
    cat.updated = str(j, "updated");
    for (const auto& c : j.at("cards")) {
      Card card;
      card.id = c.at("id").get<std::string>();
      card.name = c.at("name").get<std::string>();
      card.rocm = str(c, "vendor") == "AMD";
      // What the process can allocate in (torch total_memory); the CUDA context lives inside it.
      card.capacity_bytes = c.at("framework_total_bytes").get<int64_t>();
      if (c.contains("driver_reported_mib") && c["driver_reported_mib"].is_number())
        card.driver_mib = c["driver_reported_mib"].get<int64_t>();
      card.mem_bw_gbps = num(c, "mem_bw_gbps");
      const json& t = c.at("tflops");
      card.bf16_tflops = num(t, "bf16");
      card.fp16_tflops = num(t, "fp16");
      card.fp32_tflops = num(t, "fp32");
      card.fp8_tflops = num(t, "fp8");
      // bf16/fp8 support: the card's "supports" when stated, else a published peak for the dtype.
      const json sup = c.value("supports", json::object());
      card.bf16 = sup.contains("bf16") && sup["bf16"].is_boolean() ? sup["bf16"].get<bool>() : card.bf16_tflops > 0;
      card.fp8 = sup.contains("fp8") && sup["fp8"].is_boolean() ? sup["fp8"].get<bool>() : card.fp8_tflops > 0;
      // The GPU-to-GPU link (multi-GPU topology, parallel.cpp): kind as data/cards.json spells it.
      if (c.contains("interconnect") && c["interconnect"].is_object()) {
        card.interconnect = str(c["interconnect"], "kind");
        card.interconnect_gbps = num(c["interconnect"], "gbps_bidir");
      }
      for (const auto& p : c.value("prices", json::array()))
        card.prices.push_back({str(p, "provider"), str(p, "product"), str(p, "date"), str(p, "source"),
                               num(p, "usd_per_gpu_hr")});
      cat.cards.push_back(std::move(card));
    }
  } catch (const json::exception& e) {
    throw Error(ErrorCode::internal, std::string("the embedded card catalog is malformed: ") + e.what());
  }
  return cat;
}

const Card* find_card(const Catalog& cat, const std::string& id) {
  for (const auto& c : cat.cards)
    if (c.id == id) return &c;
  return nullptr;
}

Catalog request_catalog(const Catalog& cat, const Options& o) {
  if (o.cards.empty() && !o.custom_memory_bytes) return cat;
  Catalog out = cat;
  if (!o.cards.empty()) {
    out.cards.clear();
    for (const auto& c : cat.cards)
      if (std::find(o.cards.begin(), o.cards.end(), c.id) != o.cards.end()) out.cards.push_back(c);
  }
  const bool custom_kept = o.cards.empty() || std::find(o.cards.begin(), o.cards.end(), kCustomCardId) != o.cards.end();
  if (o.custom_memory_bytes && custom_kept) {
    Card c;
    c.id = kCustomCardId;
    c.name = o.custom_name.empty() ? "Custom card" : o.custom_name;
    c.capacity_bytes = *o.custom_memory_bytes;
    c.mem_bw_gbps = o.custom_bw_gbps.value_or(0);
    c.bf16 = o.custom_bf16;
    const double peak = o.custom_tflops.value_or(0);
    c.fp16_tflops = peak;
    c.bf16_tflops = o.custom_bf16 ? peak : 0;
    c.fp32_tflops = 0;  // unknown: an fp32 plan on the custom card has no throughput
    c.custom = true;
    if (o.custom_usd_per_hr) c.prices.push_back({"custom", "the user's price", "", "options.custom_usd_per_hr", *o.custom_usd_per_hr});
    out.cards.push_back(std::move(c));
  }
  return out;
}

int64_t largest_fitting(FunctionRef<bool(int64_t)> fits, int64_t limit) {
  if (limit < 1 || !fits(1)) return 0;
  int64_t lo = 1, hi = 2;  // invariant: fits(lo); grow hi until it does not fit
  while (hi <= limit && fits(hi)) { lo = hi; hi *= 2; }
  if (hi > limit) {
    if (fits(limit)) return limit;
    hi = limit;
  }
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace cardfit

// The card catalog (data/cards.json, embedded at build time) and the per-card batch solver.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../function_ref.hpp"
#include "memory.hpp"

namespace cardfit {

struct Price {
  std::string provider, product, date, source;
  double usd_per_gpu_hr = 0;
};

struct Card {
  std::string id, name;
  int64_t capacity_bytes = 0;   // what a process can allocate in: torch's total_memory
  int64_t driver_mib = 0;       // the total nvidia-smi shows (0 where unpublished)
  double mem_bw_gbps = 0;
  double bf16_tflops = 0, fp16_tflops = 0, fp32_tflops = 0, fp8_tflops = 0;
  bool bf16 = true, fp8 = false;  // the card runs bf16 / fp8 tensor math (data/cards.json "supports")
  bool custom = false;            // the user's custom card (options custom_*), not the catalog's
  bool rocm = false;              // an AMD card (data/cards.json vendor): engines take their ROCm / aiter paths
  std::string interconnect;      // data/cards.json interconnect.kind ("nvlink4", "none", ...; "" unknown)
  double interconnect_gbps = 0;  // per GPU, both directions (0 where unpublished)
  std::vector<Price> prices;
  double dense_tflops(Precision p) const;   // the training rate for the precision (bf16→fp16 fallback)
  std::optional<double> price(const Options& opt) const;  // user's override, else cheapest listed
};

struct Catalog {
  std::vector<Card> cards;
  std::string priced_card;
  double mfu = 0.4;
  std::string mfu_source;
  Overheads overheads;
  std::string updated;
};

/// Parses the embedded catalog (throws Error(internal) if the data file is broken).
Catalog load_catalog();
const Card* find_card(const Catalog& catalog, const std::string& id);

/// The id of the custom card (options custom_memory_bytes, custom_*).
inline constexpr const char* kCustomCardId = "custom";
/// The catalog a request plans over: the catalog's cards, kept to options.cards when given (in the
/// catalog's order), and the custom card last when options.custom_memory_bytes is set.
Catalog request_catalog(const Catalog& catalog, const Options& options);

/// Largest n in [1, limit] with fits(n), for a monotone predicate; 0 if fits(1) is false.
int64_t largest_fitting(FunctionRef<bool(int64_t)> fits, int64_t limit);

}  // namespace cardfit

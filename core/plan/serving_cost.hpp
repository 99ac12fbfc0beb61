// The serving section: the chosen engine's budget on every card of the catalog and a roofline of
// its throughput and cost. Prefill is compute-bound (forward FLOPs at the card's dense peak × MFU);
// a decode step is memory-bound (the rank's weights and the batch's KV cache read once at the
// card's bandwidth × bandwidth_efficiency) unless its FLOPs take longer; the batch is the engine's
// concurrency at prompt + output tokens. Assumptions: docs/memory-model.md, "Serving engines".
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "engines.hpp"

namespace cardfit {

struct ServingRow {
  const Card* card = nullptr;
  EngineBudget budget;
  bool priced = false;                 // the card has a dense peak, a bandwidth and a price, and it fits
  bool memory_bound = true;            // the decode step's bytes take longer than its FLOPs
  double prefill_seconds_per_token = 0;  // one replica (tp cards)
  double decode_bytes_per_step = 0;    // one rank: weights + batch × KV (and recurrent state) at the mean context
  double decode_step_seconds = 0;
  double output_tokens_per_second = 0;  // per card, at the workload batch, prefill and decode in turn
  double input_tokens_per_second = 0;   // per card, the prompts the same rounds take in
  double usd_per_m_output = 0;          // the replica's whole time charged to output tokens
  double usd_per_m_input = 0;           // prefill time alone, per input token
};

/// One device of a generation under the hf engine's layout (serve_parallel.hpp), at the plan's batch.
struct ServingDevice {
  int64_t first_layer = 0, end_layer = 0;  // the repeated layers it runs
  bool root = false;                       // holds the embedding, final norm and head
  int64_t weights_bytes = 0, kv_bytes = 0, transient_bytes = 0;
  int64_t peak_bytes = 0;                  // its torch.cuda.max_memory_allocated
};

struct Serving {
  Engine engine = Engine::hf;
  int64_t tp = 1;
  int64_t max_model_len = 0;            // serve_seq
  int64_t prompt_tokens = 0, output_tokens = 0;
  int64_t decode_context = 0;           // prompt + output / 2: the mean context of a decode step
  double mfu = 0, bandwidth_efficiency = 0;
  double prefill_flops_per_token = 0, decode_flops_per_token = 0;
  std::vector<ServingRow> rows;         // every card of the catalog, in order
  std::optional<size_t> priced;         // index of the priced card (option card)
  std::vector<std::string> notes;       // what this engine's numbers do not model
  std::vector<ServingDevice> devices;   // hf engine under stack litgpt or serve_parallel: every device
  std::string parallel;                 // serve_parallel's name when it splits ("" otherwise)
};

/// A serving plan shared by the plans whose serving inputs are equal (memory_cache.hpp
/// serving_options), and its report text, written once on first need (report_serving.cpp).
struct SharedServing {
  Serving serving;
  mutable std::string json;
};

/// hf_batch: the serve mode's largest batch per catalog card (the card solver's answer).
Serving plan_serving(const Model& model, const Options& opt, const Catalog& catalog, const MemoryModel& serve,
                     const Overheads& overheads, int64_t max_model_len, const std::vector<int64_t>& hf_batch);

}  // namespace cardfit

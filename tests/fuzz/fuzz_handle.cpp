// Fuzzing of handle(): every answer must be JSON that is either a report or a coded error from the
// table (never `internal`, never over 4 KiB for an error); a crash, a sanitizer report, a hang or an
// uncoded error fails. One input is the config text, optionally followed by kOptionsMark and the
// options text. Built three ways:
//  - libFuzzer, byte mutations (CARDFIT_LIBFUZZER): fuzz_handle CORPUS... -dict=tests/fuzz/handle.dict
//  - libFuzzer, structure-aware (CARDFIT_LIBFUZZER + CARDFIT_STRUCTURED): LLVMFuzzerCustomMutator
//    parses the config and sets numeric fields to extreme values, swaps types, deletes keys
//  - a plain program running N deterministic structured mutations (the smoke run in ctest):
//      fuzz_handle ITERATIONS SEED CONFIG.json...
// Long runs: scripts/fuzz (docs/testing.md).
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cardfit/handle.hpp"
#include "error.hpp"

using nlohmann::json;

namespace {

constexpr std::string_view kOptionsMark = "\n#OPTIONS#\n";

bool answer_is_well_formed(const std::string& out) {
  const json r = json::parse(out, nullptr, false);
  if (r.is_discarded() || !r.is_object()) return false;
  if (r.value("ok", false)) return r.value("schema", "") == cardfit::report_schema();
  static const std::set<std::string> codes = [] {
    std::set<std::string> s;
    for (int i = 0; i < cardfit::error_code_count; ++i)
      s.insert(std::string(cardfit::error_code_string(static_cast<cardfit::ErrorCode>(i))));
    return s;
  }();
  const json& e = r.value("error", json::object());
  return out.size() < 4096 && e.is_object() && codes.count(e.value("code", "")) &&
         !e.value("message", "").empty() && e.value("code", "") != "internal";
}

std::string run_one(std::string_view input) {
  const size_t mark = input.find(kOptionsMark);
  if (mark == std::string_view::npos) return cardfit::handle(input, "{}");
  return cardfit::handle(input.substr(0, mark), input.substr(mark + kOptionsMark.size()));
}

// Values that broke real parsers and planners: limits ± 1, powers of two, 2^53, 2^62, 2^63 − 1,
// huge and tiny doubles, wrong types.
json extreme(std::mt19937_64& rng) {
  static const json pool[] = {0, -1, 1, 2, 3, 7, 1023, 1024, 1025, 65536, 4194304, 4194305,
                              int64_t(1) << 31, int64_t(1) << 32, int64_t(1) << 40, int64_t(1) << 53,
                              int64_t(1) << 62, int64_t(INT64_MAX), int64_t(INT64_MIN), uint64_t(UINT64_MAX),
                              1e300, -1e300, 1e-300, 0.5, -0.0, 4096.0, 4096.5, 9e15, 1e16, "12", "auto", "",
                              nullptr, true, false, json::array(), json::object(), json::array({1, 2}),
                              json::array({0}), json::object({{"factor", -1}})};
  return pool[rng() % (sizeof(pool) / sizeof(pool[0]))];
}

// Every numeric leaf (and its parent's key) of a config, to a shallow depth.
void numeric_leaves(json& j, std::vector<json*>& out, int depth = 0) {
  if (depth > 6) return;
  if (j.is_number()) out.push_back(&j);
  else if (j.is_object() || j.is_array())
    for (auto& v : j) numeric_leaves(v, out, depth + 1);
}

// One structured mutation of a config object: extreme numbers, scaled numbers, wrong types,
// deleted or added keys.
void mutate_config(json& j, std::mt19937_64& rng) {
  const int edits = 1 + int(rng() % 3);
  for (int i = 0; i < edits && j.is_object() && !j.empty(); ++i) {
    std::vector<json*> leaves;
    numeric_leaves(j, leaves);
    switch (rng() % 6) {
      case 0: case 1: case 2:
        if (!leaves.empty()) {
          json& v = *leaves[rng() % leaves.size()];
          int64_t scaled = 0;  // a multiple of the value, when it stays in range (the mutator must not overflow itself)
          if (rng() % 3 == 0 && v.is_number_integer() &&
              !__builtin_mul_overflow(v.get<int64_t>(), int64_t(1 + rng() % 64), &scaled))
            v = scaled;
          else v = extreme(rng);
        }
        break;
      case 3: {
        auto it = j.begin();
        std::advance(it, long(rng() % j.size()));
        j.erase(it.key());
        break;
      }
      case 4: {
        auto it = j.begin();
        std::advance(it, long(rng() % j.size()));
        it.value() = extreme(rng);
        break;
      }
      default: {
        static const char* keys[] = {"num_hidden_layers", "head_dim", "num_key_value_heads", "rope_scaling",
                                     "num_local_experts", "num_experts_per_tok", "sliding_window", "text_config",
                                     "vision_config", "layer_types", "tie_word_embeddings", "model_type"};
        j[keys[rng() % (sizeof(keys) / sizeof(keys[0]))]] = extreme(rng);
      }
    }
  }
}

std::string options_for(std::mt19937_64& rng) {
  static const char* pool[] = {"{}", "{\"mode\":\"lora\"}", "{\"mode\":\"qlora\",\"batch\":8}", "{\"mode\":\"serve\",\"serve_seq\":8192}",
                               "{\"lora_targets\":[\"q_proj\"]}", "{\"checkpoint_total\":1000000}", "{\"seq\":16777216}",
                               "{\"gpus\":4096,\"batch\":1048576}", "{\"card\":\"h100-sxm\",\"prices\":{\"a10g\":0}}"};
  return pool[rng() % (sizeof(pool) / sizeof(pool[0]))];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string out = run_one(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!answer_is_well_formed(out)) {
    std::cerr << "bad answer: " << out.substr(0, 2000) << "\n";
    __builtin_trap();
  }
  return 0;
}

#if defined(CARDFIT_LIBFUZZER) && defined(CARDFIT_STRUCTURED)
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

// Structure-aware: a config that parses is mutated as JSON (3 in 4 times); anything else, and the
// rest of the time, by libFuzzer's byte mutations.
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  std::mt19937_64 rng(seed);
  if (rng() % 4 != 0) {
    std::string_view in(reinterpret_cast<const char*>(data), size);
    const size_t mark = in.find(kOptionsMark);
    json j = json::parse(in.substr(0, mark), nullptr, false);
    if (!j.is_discarded() && j.is_object()) {
      mutate_config(j, rng);
      std::string text = j.dump();
      if (rng() % 3 == 0) text += std::string(kOptionsMark) + options_for(rng);
      else if (mark != std::string_view::npos) text += std::string(in.substr(mark));
      if (text.size() <= max_size) {
        std::memcpy(data, text.data(), text.size());
        return text.size();
      }
    }
  }
  return LLVMFuzzerMutate(data, size, max_size);
}
#endif

#ifndef CARDFIT_LIBFUZZER
int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: fuzz_handle ITERATIONS SEED CONFIG.json...\n";
    return 2;
  }
  const long iterations = std::stol(argv[1]);
  std::mt19937_64 rng(std::stoull(argv[2]));
  std::vector<json> seeds;
  for (int i = 3; i < argc; ++i) {
    std::ifstream in(argv[i]);
    std::stringstream s;
    s << in.rdbuf();
    json j = json::parse(s.str());
    seeds.push_back(j.contains("config") ? j["config"] : j);  // golden files hold the config inside
  }
  long failures = 0;
  for (long i = 0; i < iterations; ++i) {
    json j = seeds[size_t(rng()) % seeds.size()];
    mutate_config(j, rng);
    std::string input = j.dump();
    if (rng() % 5 == 0 && !input.empty()) input[rng() % input.size()] = "{}[],:\"0-e\\ \x01"[rng() % 13];  // byte damage
    if (rng() % 4 == 0) input += std::string(kOptionsMark) + options_for(rng);
    const std::string out = run_one(input);
    if (!answer_is_well_formed(out)) {
      if (++failures <= 5) std::cerr << "bad answer for input:\n" << input << "\n→ " << out.substr(0, 400) << "\n";
    }
  }
  std::cout << iterations << " inputs, " << failures << " bad answers\n";
  return failures == 0 ? 0 : 1;
}
#endif

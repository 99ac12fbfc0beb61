// Fuzzing of handle(): structured mutations of real configs (values swapped for huge, negative,
// fractional, wrong-typed or missing ones) and raw byte mutations. Every answer must be JSON that
// is either a report or a coded error from the table; a crash, a hang or an uncoded error fails.
// Built two ways: with -fsanitize=fuzzer as a libFuzzer target (LLVMFuzzerTestOneInput), or as a
// plain program that runs N deterministic iterations (the smoke run in ctest):
//   fuzz_handle ITERATIONS SEED CONFIG.json...
#include <cstdint>
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
  return e.is_object() && codes.count(e.value("code", "")) && !e.value("message", "").empty() &&
         e.value("code", "") != "internal";
}

json mutate_value(std::mt19937_64& rng) {
  static const json pool[] = {0, -1, 1, 3, 7, 1e300, -1e300, 0.5, 4096.0, "12", nullptr, true,
                              json::array(), json::object(), int64_t(1) << 40, int64_t(INT64_MAX),
                              json::array({1, 2}), 100000, 65536};
  return pool[rng() % (sizeof(pool) / sizeof(pool[0]))];
}

std::string mutate(const json& seed, std::mt19937_64& rng) {
  json j = seed;
  const int edits = 1 + int(rng() % 3);
  for (int i = 0; i < edits && j.is_object() && !j.empty(); ++i) {
    auto it = j.begin();
    std::advance(it, long(rng() % j.size()));
    switch (rng() % 4) {
      case 0: j.erase(it.key()); break;
      case 1: it.value() = mutate_value(rng); break;
      case 2:
        if (it.value().is_number_integer()) it.value() = it.value().get<int64_t>() * int64_t(1 + rng() % 7);
        break;
      default: j["unknown_key_" + std::to_string(rng() % 10)] = mutate_value(rng);
    }
  }
  std::string text = j.dump();
  if (rng() % 5 == 0 && !text.empty()) {  // raw byte damage
    const size_t at = rng() % text.size();
    text[at] = "{}[],:\"0-e\\ \x01"[rng() % 13];
  }
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (!answer_is_well_formed(cardfit::handle(text, "{}"))) __builtin_trap();
  return 0;
}

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
    const std::string input = mutate(seeds[size_t(rng()) % seeds.size()], rng);
    const std::string out = cardfit::handle(input, "{}");
    if (!answer_is_well_formed(out)) {
      if (++failures <= 5) std::cerr << "bad answer for input:\n" << input << "\n→ " << out.substr(0, 400) << "\n";
    }
  }
  std::cout << iterations << " inputs, " << failures << " bad answers\n";
  return failures == 0 ? 0 : 1;
}
#endif

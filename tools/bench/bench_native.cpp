// cardfit_bench: the native half of scripts/bench. Reads a case list (JSON, written by
// tools/bench/bench.mjs so both halves plan the same texts), runs each case N times and prints one
// JSON line per case: {"case", "runs", "median_ms", "min_ms",
// "median_cpu_ms", "bytes", "configs"} (CPU time: steadier than the wall clock on a shared machine).
//   cardfit_bench CASES.json
// CASES.json: [{"case": "...", "calls": "plan"|"replan"|"replan_cost"|"configs", "runs": N,
//               "warm": N (calls before timing, default 0), "configs": ["path", ...], "options": {...}}]
// "plan": configs[0] planned as a new text (traced); "replan": an option change on a config already
// planned (trace cached); "replan_cost": a change no memory model reads (its models cached too);
// "configs": every config in turn (a configs/s figure, as the CLI's JSON Lines mode); "stages"
// (native only): the median of each step of handle() (bench_stages.hpp).
#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_calls.hpp"
#include "bench_stages.hpp"

using nlohmann::json;

namespace {
std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}
// CPU time of this process: on a shared machine far steadier than the wall clock.
double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: cardfit_bench CASES.json\n";
    return 2;
  }
  const json cases = json::parse(read_text(argv[1]));
  for (const auto& c : cases) {
    const std::string calls = c.at("calls");
    const int runs = c.value("runs", 5);
    const std::string options = c.value("options", json::object()).dump();
    std::vector<std::string> texts;
    for (const auto& p : c.at("configs")) texts.push_back(read_text(p.get<std::string>()));
    if (calls == "stages") {  // one line: the median of each step of handle()
      std::map<std::string, std::vector<double>> steps;
      for (int r = 0; r < runs; ++r)
        for (const auto& [name, v] : bench::handle_stages(texts[0], options)) steps[name].push_back(v);
      json line = {{"case", c.at("case")}, {"runs", runs}};
      for (auto& [name, v] : steps) {
        std::sort(v.begin(), v.end());
        line["stages"][name] = v[v.size() / 2];
      }
      std::cout << line.dump() << std::endl;
      continue;
    }
    std::vector<double> ms, cpu;
    size_t bytes = 0;
    cardfit::Planner planner;  // one per case, as the module keeps one (its catalog compiled once)
    planner.plan(texts[0], "{}");  // warm: the catalog compiled, the config planned once
    for (int i = 0; i < c.value("warm", 0); ++i)  // and "warm" calls of the case's kind (none timed repeats them)
      calls == "replan"        ? bench::replan(planner, texts[0], options, 100000 + i)
      : calls == "replan_cost" ? bench::replan_cost(planner, texts[0], options, 100000 + i)
                               : bench::full_plan(planner, texts[0], options, 100000 + i);
    for (int r = 0; r < runs; ++r) {
      const double t0 = now_ms(), c0 = cpu_ms();
      for (const auto& text : texts) {
        const std::string out = calls == "replan"        ? bench::replan(planner, text, options, r)
                                : calls == "replan_cost" ? bench::replan_cost(planner, text, options, r)
                                                         : bench::full_plan(planner, text, options, r + 1);
        bytes = std::max(bytes, out.size());
      }
      ms.push_back(now_ms() - t0);
      cpu.push_back(cpu_ms() - c0);
    }
    std::sort(ms.begin(), ms.end());
    std::sort(cpu.begin(), cpu.end());
    json line = {{"case", c.at("case")}, {"runs", runs}, {"median_ms", ms[ms.size() / 2]}, {"min_ms", ms.front()},
                 {"median_cpu_ms", cpu[cpu.size() / 2]},
                 {"bytes", bytes}, {"configs", texts.size()}};
    std::cout << line.dump() << std::endl;
  }
  return 0;
}

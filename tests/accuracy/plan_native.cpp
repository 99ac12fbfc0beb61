// A native runner of the core's handle() (the same function the wasm module exports):
//   plan_native CONFIG.json [OPTIONS-JSON]   prints the report JSON (scripts/accuracy --native)
//   plan_native -                            reads JSON Lines {"config": TEXT, "options": TEXT}
//                                            from stdin and prints one answer per line
//                                            (tests/js/determinism.test.mjs compares them with wasm)
// Built by CMake as build/tests/cpp/cardfit_plan_native, or by hand against a native core:
//   g++ -std=c++20 -O2 -Icore/include tests/accuracy/plan_native.cpp build/core/libcardfit_core.a -o plan_native
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cardfit/handle.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: plan_native CONFIG.json [OPTIONS-JSON] | plan_native - < requests.jsonl\n";
    return 2;
  }
  if (std::string(argv[1]) == "-") {
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.empty()) continue;
      const auto req = nlohmann::json::parse(line);
      std::cout << cardfit::handle(req.at("config").get<std::string>(), req.value("options", std::string("{}"))) << "\n";
    }
    return 0;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  std::cout << cardfit::handle(text.str(), argc > 2 ? argv[2] : "{}") << "\n";
  return 0;
}

// A native runner for scripts/accuracy --native: plan_native CONFIG.json OPTIONS-JSON prints the
// report JSON of the core (the same handle() the wasm module exports). Build it against a native
// build of the core, e.g.:
//   g++ -std=c++20 -O2 -Icore/include tests/accuracy/plan_native.cpp build/core/libcardfit_core.a -o plan_native
#include <fstream>
#include <iostream>
#include <sstream>

#include "cardfit/handle.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: plan_native CONFIG.json [OPTIONS-JSON]\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  std::cout << cardfit::handle(text.str(), argc > 2 ? argv[2] : "{}") << "\n";
  return 0;
}

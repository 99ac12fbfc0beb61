// Helpers shared by the tests: read a file, run handle() and parse its JSON.
#pragma once
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cardfit/handle.hpp"

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string example(const std::string& file) { return read_text(std::string(CARDFIT_EXAMPLES_DIR) + "/" + file); }

inline nlohmann::json plan(const std::string& config, const nlohmann::json& options = nlohmann::json::object()) {
  return nlohmann::json::parse(cardfit::handle(config, options.dump()));
}

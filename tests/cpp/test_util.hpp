// Helpers shared by the tests: read a file, run handle() and parse its JSON.
#pragma once
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "arch/registry.hpp"
#include "cardfit/handle.hpp"
#include "config.hpp"
#include "model.hpp"

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

// Shared by the architecture tests: golden files, tracing, and lookups in a traced model.
inline nlohmann::json golden_file(const std::string& file) {
  return nlohmann::json::parse(read_text(std::string(CARDFIT_GOLDEN_DIR) + "/" + file));
}
inline cardfit::Model trace_json(const nlohmann::json& config) {
  return cardfit::trace_model(cardfit::Config::parse(config.dump()));
}
inline cardfit::Model trace_golden(const std::string& file) { return trace_json(golden_file(file).at("config")); }

inline bool names(const cardfit::Tensor& stack, const std::string& name);
/// The tensor of that checkpoint name: its entry, or the stack (Tensor::copies) one of whose copies it is.
inline const cardfit::Tensor* find(const cardfit::Model& m, const std::string& name) {
  for (const auto& t : m.tensors)
    if (names(t, name)) return &t;
  return nullptr;
}
/// Whether `stack` (an entry of Tensor::copies alike tensors) is, or has a copy named, `name`.
inline bool names(const cardfit::Tensor& stack, const std::string& name) {
  if (stack.name == name) return true;
  const int64_t copy = cardfit::expert_index(name).index;
  return stack.copies > 1 && copy >= 0 && copy < stack.copies && cardfit::copy_name(stack.name, copy) == name;
}
/// The stored extra of that checkpoint name: its entry, or the stack one of whose copies it is.
inline const cardfit::StoredExtra* find_extra(const cardfit::Model& m, const std::string& name) {
  for (const auto& x : m.stored_extras)
    if (names(x.tensor, name)) return &x;
  return nullptr;
}
inline const cardfit::Node* find_node(const cardfit::Model& m, const std::string& name) {
  for (const auto& b : m.blocks)
    for (const auto& n : b.nodes)
      if (n.name == name) return &n;
  return nullptr;
}
inline std::vector<const cardfit::Node*> attention_nodes(const cardfit::Model& m) {
  std::vector<const cardfit::Node*> out;
  for (const auto& b : m.blocks)
    for (const auto& n : b.nodes)
      if (n.op == cardfit::Op::attention) out.push_back(&n);
  return out;
}
// A vector of pointers into the Model outlives a temporary one (a CI segfault, 2026-12): name the Model.
std::vector<const cardfit::Node*> attention_nodes(cardfit::Model&&) = delete;
/// A plan report's checkpoint group of stored extras of that role ("mtp", "quant_scale", ...), or null.
inline const nlohmann::json* group(const nlohmann::json& checkpoint, const std::string& role) {
  for (const auto& g : checkpoint["extras"])
    if (g["role"] == role) return &g;
  return nullptr;
}

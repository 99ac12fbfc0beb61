// Helpers the architecture and memory tests share: a plan's component bytes, the parameters under
// a checkpoint prefix, and the coded error a config is refused with.
#pragma once
#include <string>

#include "error.hpp"
#include "plan/memory.hpp"
#include "test_util.hpp"

// The bytes of one component of a memory plan (-1 when the plan has none of that id).
inline int64_t component(const cardfit::MemoryPlan& p, const std::string& id) {
  for (const auto& c : p.components)
    if (c.id == id) return c.bytes;
  return -1;
}

// The bytes of one phase of a memory plan (-1 when it has none of that name).
inline int64_t phase(const cardfit::MemoryPlan& p, const std::string& name) {
  for (const auto& ph : p.phases)
    if (ph.name == name) return ph.bytes;
  return -1;
}

// A web/examples config, traced.
inline cardfit::Model example_model(const std::string& file) {
  return cardfit::trace_model(cardfit::Config::parse(example(file)));
}

// The parameters of every tensor whose checkpoint name starts with `prefix`.
inline int64_t under(const cardfit::Model& m, const std::string& prefix) {
  int64_t n = 0;
  for (const auto& t : m.tensors)
    if (t.name.rfind(prefix, 0) == 0) n += t.count();
  return n;
}

// The coded error tracing `config` throws; fails the test when it traces.
inline cardfit::Error refusal(const nlohmann::json& config) {
  try {
    trace_json(config);
  } catch (const cardfit::Error& e) {
    return e;
  }
  FAIL("traced, not refused: " << config.dump());
  return cardfit::Error(cardfit::ErrorCode::internal, "");
}

// The JSON path of the error tracing `config` throws, or "traced".
inline std::string path_of(const nlohmann::json& config) {
  try {
    trace_json(config);
  } catch (const cardfit::Error& e) {
    return e.path;
  }
  return "traced";
}

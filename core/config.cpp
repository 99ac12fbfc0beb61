// Typed access to config.json. Every rejection names the path and what was expected.
#include "config.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "error.hpp"
#include "json_input.hpp"
#include "limits.hpp"

namespace cardfit {
using nlohmann::json;

namespace {
std::string type_name(const json& v) {
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_array()) return "a list";
  if (v.is_object()) return "an object";
  return "null";
}
}  // namespace

Config Config::parse(std::string_view text) {
  json parsed = read_json_text(text, JsonText::config);  // limits, strictness: json_input.hpp
  if (!parsed.is_object())
    throw Error(ErrorCode::config_not_object,
                "The config must be a JSON object ({...}), got " + type_name(parsed) + ".", "$");
  // Nested configs that families read as objects: the wrong type is refused here, before a
  // family falls back to defaults for a tower it cannot read.
  for (const char* key : {"text_config", "vision_config", "audio_config", "attn_config", "ffn_config", "rope_scaling"}) {
    auto it = parsed.find(key);
    if (it != parsed.end() && !it->is_null() && !it->is_object())
      throw Error(ErrorCode::field_type,
                  std::string("$.") + key + " must be an object (or null), got " + type_name(*it) + ".",
                  std::string("$.") + key);
  }
  return Config(std::make_shared<const json>(std::move(parsed)));
}

Config::Config(std::shared_ptr<const json> root, std::string path)
    : root_(std::move(root)), node_(root_.get()), path_(std::move(path)) {}

Config::Config(std::shared_ptr<const json> root, const json* node, std::string path)
    : root_(std::move(root)), node_(node), path_(std::move(path)) {}

const json* Config::find(std::string_view key) const {
  auto it = node_->find(std::string(key));
  if (it == node_->end() || it->is_null()) return nullptr;
  return &*it;
}

std::string Config::path_of(std::string_view key) const { return path_ + "." + std::string(key); }

bool Config::has(std::string_view key) const { return find(key) != nullptr; }

std::optional<std::string> Config::first_key(std::initializer_list<std::string_view> keys) const {
  for (auto k : keys)
    if (has(k)) return std::string(k);
  return std::nullopt;
}

int64_t Config::integer_at(std::string_view key, int64_t min_value) const {
  const json& v = *find(key);
  const int64_t max_value = field_max(key);  // limits.cpp: every integer field has a range
  std::optional<int64_t> value;
  bool beyond = false;  // an integer too large for 64 bits (or for a double's exact range)
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() <= uint64_t(INT64_MAX)) value = int64_t(v.get<uint64_t>());
    else beyond = true;
  } else if (v.is_number_integer()) {
    value = v.get<int64_t>();
  } else if (v.is_number_float()) {
    double d = v.get<double>();  // 4096.0 is accepted; 4096.5 is not
    if (std::isfinite(d) && d == std::floor(d)) {
      if (std::fabs(d) < 9e15) value = int64_t(d);
      else beyond = true;
    }
  }
  if (beyond)
    throw Error(ErrorCode::field_range,
                path_of(key) + " must be an integer from " + std::to_string(min_value) + " to " +
                    std::to_string(max_value) + ", got " + shown(v) + ".",
                path_of(key));
  if (!value)
    throw Error(ErrorCode::field_type,
                path_of(key) + " must be an integer, got " + type_name(v) +
                    (v.is_primitive() ? " (" + shown(v) + ")" : std::string()) + ".",
                path_of(key));
  if (*value < min_value || *value > max_value)
    throw Error(ErrorCode::field_range,
                path_of(key) + " must be " +
                    (min_value == INT64_MIN ? "at most " + std::to_string(max_value)
                                            : "an integer from " + std::to_string(min_value) + " to " +
                                                  std::to_string(max_value)) +
                    ", got " + std::to_string(*value) + " (docs/api.md, Limits).",
                path_of(key));
  return *value;
}

int64_t Config::positive(std::initializer_list<std::string_view> keys) const {
  if (auto k = first_key(keys)) return integer_at(*k, 1);
  std::string names;
  for (auto k : keys) names += (names.empty() ? "" : " or ") + std::string(k);
  throw Error(ErrorCode::field_missing,
              "The config needs " + names + " (a positive integer) at " + path_ + ".",
              path_of(*keys.begin()));
}

int64_t Config::positive_or(std::initializer_list<std::string_view> keys, int64_t fallback) const {
  if (auto k = first_key(keys)) return integer_at(*k, 1);
  return fallback;
}

int64_t Config::count_or(std::initializer_list<std::string_view> keys, int64_t fallback) const {
  if (auto k = first_key(keys)) return integer_at(*k, 0);
  return fallback;
}

std::optional<int64_t> Config::optional_integer(std::initializer_list<std::string_view> keys) const {
  if (auto k = first_key(keys)) return integer_at(*k, INT64_MIN);
  return std::nullopt;
}

double Config::number_or(std::string_view key, double fallback) const {
  const json* v = find(key);
  if (!v) return fallback;
  if (!v->is_number())
    throw Error(ErrorCode::field_type, path_of(key) + " must be a number, got " + type_name(*v) + ".",
                path_of(key));
  return v->get<double>();
}

bool Config::boolean_or(std::string_view key, bool fallback) const {
  const json* v = find(key);
  if (!v) return fallback;
  if (!v->is_boolean())
    throw Error(ErrorCode::field_type,
                path_of(key) + " must be true or false, got " + type_name(*v) + ".", path_of(key));
  return v->get<bool>();
}

std::string Config::string_or(std::string_view key, std::string fallback) const {
  const json* v = find(key);
  if (!v) return fallback;
  if (!v->is_string())
    throw Error(ErrorCode::field_type, path_of(key) + " must be a string, got " + type_name(*v) + ".",
                path_of(key));
  return v->get<std::string>();
}

std::vector<int64_t> Config::integer_list(std::string_view key) const {
  const json* v = find(key);
  if (!v) return {};
  std::vector<int64_t> out;
  if (v->is_array()) {
    for (const auto& e : *v) {
      if (e.is_number_integer() || e.is_number_unsigned()) out.push_back(e.get<int64_t>());
      else if (e.is_boolean()) out.push_back(e.get<bool>() ? 1 : 0);
      else { out.clear(); break; }
    }
  }
  if (out.size() != (v->is_array() ? v->size() : size_t(-1)))
    throw Error(ErrorCode::field_type, path_of(key) + " must be a list of integers.", path_of(key));
  return out;
}

std::vector<std::string> Config::string_list(std::string_view key) const {
  const json* v = find(key);
  if (!v) return {};
  std::vector<std::string> out;
  if (v->is_array())
    for (const auto& e : *v)
      if (e.is_string()) out.push_back(e.get<std::string>());
  if (!v->is_array() || out.size() != v->size())
    throw Error(ErrorCode::field_type, path_of(key) + " must be a list of strings.", path_of(key));
  return out;
}

bool Config::has_object(std::string_view key) const {
  const json* v = find(key);
  return v && v->is_object();
}

Config Config::child(std::string_view key) const {
  const json* v = find(key);
  if (!v || !v->is_object())
    throw Error(ErrorCode::field_missing, path_of(key) + " must be an object.", path_of(key));
  return Config(root_, v, path_of(key));
}

void require(bool cond, const Config& cfg, std::string_view key, const std::string& message) {
  if (!cond) throw Error(ErrorCode::field_inconsistent, message, cfg.path_of(key));
}

}  // namespace cardfit

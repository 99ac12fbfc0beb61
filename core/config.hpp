// A parsed config.json with typed, validated access that names the JSON path in every error.
// Not a schema of any particular family: families ask for the keys they need.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace cardfit {

class Config {
 public:
  /// Parses config text; throws Error(json_syntax with line/column, or config_not_object).
  static Config parse(std::string_view text);
  explicit Config(std::shared_ptr<const nlohmann::json> root, std::string path = "$");

  bool has(std::string_view key) const;  // present and not null
  /// The first present (non-null) key of `keys` (legacy aliases: {"n_embd", "hidden_size"}).
  std::optional<std::string> first_key(std::initializer_list<std::string_view> keys) const;

  /// A required positive integer (accepts 12.0, rejects 12.5 and "12").
  int64_t positive(std::initializer_list<std::string_view> keys) const;
  int64_t positive_or(std::initializer_list<std::string_view> keys, int64_t fallback) const;
  /// Non-negative integer (0 allowed).
  int64_t count_or(std::initializer_list<std::string_view> keys, int64_t fallback) const;
  std::optional<int64_t> optional_integer(std::initializer_list<std::string_view> keys) const;
  double number_or(std::string_view key, double fallback) const;
  bool boolean_or(std::string_view key, bool fallback) const;
  std::string string_or(std::string_view key, std::string fallback) const;
  /// A list of integers (e.g. layer types as ints); empty if absent.
  std::vector<int64_t> integer_list(std::string_view key) const;
  std::vector<std::string> string_list(std::string_view key) const;

  bool has_object(std::string_view key) const;
  Config child(std::string_view key) const;  // a nested object such as text_config

  std::string path_of(std::string_view key) const;  // "$.text_config.hidden_size"
  const std::string& path() const { return path_; }
  const nlohmann::json& raw() const { return *node_; }

 private:
  Config(std::shared_ptr<const nlohmann::json> root, const nlohmann::json* node, std::string path);
  const nlohmann::json* find(std::string_view key) const;
  int64_t integer_at(std::string_view key, int64_t min_value) const;

  std::shared_ptr<const nlohmann::json> root_;
  const nlohmann::json* node_;
  std::string path_;
};

/// Throws Error(field_inconsistent) naming `key` unless `cond` holds.
void require(bool cond, const Config& cfg, std::string_view key, const std::string& message);

}  // namespace cardfit

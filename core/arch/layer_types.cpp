// See layer_types.hpp.
#include "layer_types.hpp"

#include <algorithm>

namespace cardfit {

std::vector<std::string> read_layer_types(const Config& c, int64_t layers,
                                          std::initializer_list<std::string_view> allowed,
                                          FunctionRef<std::string(int64_t)> fallback,
                                          std::string_view key) {
  std::vector<std::string> types = c.string_list(key);
  if (types.empty()) {
    for (int64_t i = 0; i < layers; ++i) types.push_back(fallback(i));
    return types;
  }
  require(int64_t(types.size()) == layers, c, key,
          std::string(key) + " lists " + std::to_string(types.size()) + " layers, but num_hidden_layers is " +
              std::to_string(layers) + ".");
  std::string names;
  for (auto a : allowed) names += (names.empty() ? "\"" : ", \"") + std::string(a) + "\"";
  for (const auto& t : types)
    require(std::find(allowed.begin(), allowed.end(), t) != allowed.end(), c, key,
            std::string(key) + " has \"" + t + "\"; this model_type's layers are " + names + ".");
  return types;
}

int64_t window_of(const std::string& layer_type, int64_t sliding_window) {
  return layer_type == "sliding_attention" ? sliding_window : 0;
}

}  // namespace cardfit

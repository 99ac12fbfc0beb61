// config.layer_types → the mixer of each layer, shared by every family whose config lists them
// (gpt-oss, Qwen3-Next / Qwen3.5, Gemma 3/4, SmolLM3...). One place checks the list's length and
// values, applies the config class's default pattern when the key is absent, and maps a
// "sliding_attention" entry to the layer's window.
#pragma once
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "../config.hpp"
#include "../function_ref.hpp"

namespace cardfit {

/// layer_types of `c` (key `key`), one per layer, each one of `allowed`; when the key is absent,
/// `fallback(i)` gives layer i's type (the config class's __post_init__ pattern). Errors name the key.
std::vector<std::string> read_layer_types(const Config& c, int64_t layers,
                                          std::initializer_list<std::string_view> allowed,
                                          FunctionRef<std::string(int64_t)> fallback,
                                          std::string_view key = "layer_types");

/// The attention window of a layer of this type: `sliding_window` for "sliding_attention", else 0.
int64_t window_of(const std::string& layer_type, int64_t sliding_window);

}  // namespace cardfit

// EXAONE 4.0 (transformers models/exaone4/modeling_exaone4.py, Exaone4ForCausalLM): OLMo 2's layer
// (post_attention_layernorm and post_feedforward_layernorm only, each before its residual add) with
// per-head q/k RMSNorms over head_dim and bias-free projections; sliding layers from layer_types, or
// sliding_window_pattern (an int n: every n-th layer is global; a string such as "LLLG": L sliding,
// G global, repeated), all global when sliding_window is null. Exaone4Config: tie_word_embeddings=False,
// sliding_window=4096, sliding_window_pattern=4.
#include <nlohmann/json.hpp>

#include "../decoder.hpp"
#include "../layer_types.hpp"
#include "families.hpp"

namespace cardfit::families {

Model exaone4(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 2048});
  const auto pattern = c.raw().find("sliding_window_pattern");
  const bool has_window = !c.raw().contains("sliding_window") || !c.raw().at("sliding_window").is_null();
  const int64_t window = has_window ? c.count_or({"sliding_window"}, 4096) : 0;
  const std::string letters = pattern != c.raw().end() && pattern->is_string() ? pattern->get<std::string>() : "";
  const int64_t every = letters.empty() ? c.positive_or({"sliding_window_pattern"}, 4) : 0;
  require(letters.find_first_not_of("LG") == std::string::npos, c, "sliding_window_pattern",
          "sliding_window_pattern must be an integer or a string of L (sliding) and G (global).");
  const auto types = read_layer_types(c, d.layers, {"sliding_attention", "full_attention"}, [&](int64_t i) {
    if (window == 0) return "full_attention";
    if (!letters.empty()) return letters[size_t(i) % letters.size()] == 'L' ? "sliding_attention" : "full_attention";
    return (i + 1) % every != 0 ? "sliding_attention" : "full_attention";
  });

  ModelBuilder b("exaone4", "exaone4");
  set_dims(b, d, c);
  b.dims().sliding_window = window;
  causal_lm_stack(b, d, {}, [&](int i, const std::string& p) {
    sandwich_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                     .head_dim = d.head_dim, .q_norm = "q_norm", .k_norm = "k_norm",
                     .window = window_of(types[size_t(i)], window)},
            .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate,
                    .act = c.string_or("hidden_act", "silu")},
            .input_norm = "", .pre_ff_norm = "", .hidden = d.hidden});
  });
  return b.finish();
}

}  // namespace cardfit::families

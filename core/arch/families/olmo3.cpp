// Olmo 3 (transformers models/olmo3/modeling_olmo3.py, Olmo3ForCausalLM): OLMo 2's layer (no input
// norm; post_attention_layernorm and post_feedforward_layernorm, each before its residual add; q_norm /
// k_norm over the whole projection, [heads * head_dim] and [kv_heads * head_dim]) with sliding layers
// from layer_types, else every layer but each 4th slides; sliding layers attend within sliding_window,
// none when it is null. The per-layer-type rope_parameters hold no weights. Olmo3Config:
// tie_word_embeddings=False, max_position_embeddings=2048, sliding_window=4096.
#include <nlohmann/json.hpp>

#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model olmo3(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 2048});
  const bool null_window = c.raw().contains("sliding_window") && c.raw().at("sliding_window").is_null();
  const int64_t window = null_window ? 0 : c.count_or({"sliding_window"}, 4096);
  const auto windows = layer_windows(c, d.layers, window, [](int i) { return (i + 1) % 4 != 0; });
  const bool bias = c.boolean_or("attention_bias", false);

  ModelBuilder b("olmo3", "olmo");
  b.facts().depth_scaled_init = true;  // as olmo2: the OLMo lineage scales residual outputs by depth
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int i, const std::string& p) {
    sandwich_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                     .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias, .v_bias = bias, .o_bias = bias,
                     .qk_norm = NormKind::rmsnorm, .q_norm = "q_norm", .k_norm = "k_norm",
                     .qk_norm_per_head = false, .window = windows[size_t(i)]},
            .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate,
                    .act = c.string_or("hidden_act", "silu")},
            .input_norm = "", .pre_ff_norm = "", .hidden = d.hidden});
  });
  return b.finish();
}

}  // namespace cardfit::families

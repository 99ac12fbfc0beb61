// Phi-3 / Phi-3.5 / Phi-4-mini (transformers models/phi3): Llama's block with fused projections,
// self_attn.qkv_proj ((heads + 2 * kv_heads) * head_dim rows) and mlp.gate_up_proj (2 *
// intermediate rows), no biases, RMSNorms; sliding_window applies to every layer when set.
// Phi3Config: tie_word_embeddings=False, max_position_embeddings=4096.
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model phi3(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 4096});
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("phi3", "phi3");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int, const std::string& p) {
    pre_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads,
                     .kv_heads = d.kv_heads, .head_dim = d.head_dim, .fused_qkv = "qkv_proj",
                     .window = d.sliding_window},
            .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate,
                    .act = act, .fused_gate_up = "gate_up_proj"},
            .hidden = d.hidden});
  });
  return b.finish();
}

}  // namespace cardfit::families

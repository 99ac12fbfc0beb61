// Baichuan / Baichuan 2 (remote code, modeling_baichuan.py, model_type "baichuan"): Llama's block
// with q, k and v fused into one bias-free self_attn.W_pack [3 * hidden, hidden]; Baichuan 2's
// NormHead normalises lm_head.weight at run time (same tensor). The 13B models use ALiBi instead
// of RoPE (no tensors either way). BaichuanConfig: tie_word_embeddings=False; the 13B configs
// give the context as model_max_length rather than max_position_embeddings.
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model baichuan(const Config& c) {
  DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 4096});
  if (!c.has("max_position_embeddings")) d.max_positions = c.positive_or({"model_max_length"}, 4096);
  require(d.kv_heads == d.heads, c, "num_key_value_heads",
          "Baichuan's W_pack projects full q, k and v: num_key_value_heads must equal num_attention_heads.");
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("baichuan", "baichuan");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int, const std::string& p) {
    pre_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads,
                     .kv_heads = d.kv_heads, .head_dim = d.head_dim, .fused_qkv = "W_pack"},
            .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate, .act = act},
            .hidden = d.hidden});
  });
  return b.finish();
}

}  // namespace cardfit::families

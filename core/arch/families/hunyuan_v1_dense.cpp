// Hunyuan dense (transformers models/hunyuan_v1_dense/modular_hunyuan_v1_dense.py,
// HunYuanDenseV1ForCausalLM; Hunyuan-7B, Hy-MT2): Llama's layers with per-head RMSNorms on q and k
// after RoPE (self_attn.query_layernorm / key_layernorm, one [head_dim] weight each, always built by
// HunYuanDenseV1Attention: the remote code's use_qk_norm switch is not read), attention_bias on q/k/v/o,
// a bias-free MLP. The dynamic-NTK alpha RoPE has no parameters. HunYuanDenseV1Config: vocab 290943,
// hidden 4096, intermediate 11008, 32 layers, 32 heads, head_dim = hidden / heads unless given,
// max_position_embeddings 2048, tie_word_embeddings False (the released checkpoints set True).
#include "../decoder.hpp"
#include "zoo2026.hpp"

namespace cardfit::families {

Model hunyuan_v1_dense(const Config& c) {
  const DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 2048});
  const bool bias = c.boolean_or("attention_bias", false);
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("hunyuan_v1_dense", "hunyuan_v1_dense");
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int, const std::string& p) {
    pre_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                     .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias, .v_bias = bias, .o_bias = bias,
                     .qk_norm = NormKind::rmsnorm, .q_norm = "query_layernorm", .k_norm = "key_layernorm"},
            .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate, .act = act},
            .hidden = d.hidden});
  });
  if (c.has("use_cla") && c.boolean_or("use_cla", false))
    b.note("use_cla (cross-layer attention sharing, remote code only) is not read by HunYuanDenseV1ForCausalLM: every "
           "layer is traced with its own k/v projections.");
  return b.finish();
}

}  // namespace cardfit::families

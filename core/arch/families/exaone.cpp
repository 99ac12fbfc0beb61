// EXAONE 3.0 / 3.5 (LG AI Research, remote code modeling_exaone.py, model_type "exaone"): a Llama
// block under GPT-2-style names. transformer.wte; transformer.h.{i}.ln_1 / ln_2 (RMSNorm);
// attn.attention.{q,k,v,out}_proj (no bias, GQA); mlp.c_fc_0 / c_fc_1 / c_proj = gate / up / down;
// transformer.ln_f; lm_head. ExaoneConfig: num_layers (alias num_hidden_layers),
// num_key_value_heads default num_attention_heads, intermediate_size default 4 * hidden_size,
// max_position_embeddings=2048, tie_word_embeddings=True.
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model exaone(const Config& c) {
  const DecoderShape d = read_decoder_shape(
      c, {.tie_word_embeddings = true, .max_positions = 2048, .intermediate_required = false});
  const std::string act = c.string_or("activation_function", c.string_or("hidden_act", "silu"));

  ModelBuilder b("exaone", "exaone");
  set_dims(b, d, c);
  b.block("transformer.wte", "embedding");
  token_embedding(b, "transformer.wte", d.vocab, d.hidden);
  for (int i = 0; i < d.layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    pre_norm_decoder_layer(
        b, {.prefix = p,
            .attn = {.prefix = p + ".attn.attention", .hidden = d.hidden, .heads = d.heads,
                     .kv_heads = d.kv_heads, .head_dim = d.head_dim, .o = "out_proj"},
            .mlp = {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate,
                    .act = act, .gate = "c_fc_0", .up = "c_fc_1", .down = "c_proj"},
            .input_norm = "ln_1", .post_attn_norm = "ln_2", .hidden = d.hidden});
  }
  b.block("final", "final");
  b.norm("transformer.ln_f", d.hidden, NormKind::rmsnorm);
  lm_head(b, "lm_head", d.hidden, d.vocab, d.tied ? "transformer.wte.weight" : "");
  return b.finish();
}

}  // namespace cardfit::families

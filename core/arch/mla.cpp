// Multi-head latent attention (see mla.hpp).
#include "mla.hpp"

#include "dsa_indexer.hpp"

namespace cardfit {

void mla_attention_block(ModelBuilder& b, const MlaSpec& s) {
  const std::string p = s.prefix + ".";
  const int64_t qk_head_dim = checked_add(s.qk_nope_head_dim, s.qk_rope_head_dim, "qk_nope_head_dim + qk_rope_head_dim");
  const int64_t cache_dim = checked_add(s.kv_lora_rank, s.qk_rope_head_dim, "kv_lora_rank + qk_rope_head_dim");
  const int64_t q_out = checked_mul(s.heads, qk_head_dim, "the query width");
  // The query path and the compressed key/value path both read x.
  const ValueId x = b.cursor();
  ValueId q_latent = kNoValue;
  if (s.q_lora_rank == 0) {
    b.linear(p + "q_proj", s.hidden, q_out, {.bias = false, .role = Role::attention});
  } else {
    b.linear(p + "q_a_proj", s.hidden, s.q_lora_rank, {.bias = s.bias, .role = Role::attention});
    b.norm(p + "q_a_layernorm", s.q_lora_rank, s.latent_norm);
    q_latent = b.cursor();
    b.linear(p + "q_b_proj", s.q_lora_rank, q_out, {.bias = false, .role = Role::attention});
  }
  const ValueId q = b.cursor();
  b.read(x);
  b.linear(p + "kv_a_proj_with_mqa", s.hidden, cache_dim,
           {.bias = s.bias, .role = Role::attention});
  b.norm(p + "kv_a_layernorm", s.kv_lora_rank, s.latent_norm);
  b.linear(p + "kv_b_proj", s.kv_lora_rank,
           checked_mul(s.heads, checked_add(s.qk_nope_head_dim, s.v_head_dim, "qk_nope_head_dim + v_head_dim"), "the decompressed key/value width"),
           {.bias = false, .role = Role::attention});
  const ValueId kv = b.cursor();
  std::vector<ValueId> inputs{q, kv, kv};  // keys and values are views of the decompressed kv
  if (s.index_heads > 0) {
    // A shared indexer (indexer_types "shared") selects nothing here: it writes no value to read.
    if (const ValueId selected = lightning_indexer(b, {.prefix = p + "indexer.", .hidden = s.hidden, .q_lora_rank = s.q_lora_rank,
                                           .heads = s.index_heads, .head_dim = s.index_head_dim,
                                           .topk = s.index_topk, .runs = s.index_runs},
                                       x, q_latent);
        selected != kNoValue)
      inputs.push_back(selected);
  }
  AttentionGeom g;
  g.heads = s.heads;
  g.kv_heads = s.heads;  // every head has its own decompressed key and value
  g.head_dim = qk_head_dim;
  g.v_head_dim = s.v_head_dim;
  g.window = s.window;
  // The indexer keeps its keys of every token beside the latent (GlmMoeDsaIndexer._cached_keys).
  g.cache_dim = s.index_heads > 0 && s.index_runs ? checked_add(cache_dim, s.index_head_dim, "the cached width")
                                                   : cache_dim;
  const int64_t out = checked_mul(s.heads, s.v_head_dim, "the attention output width");
  b.reads(inputs);
  b.attention(p + "attn", g, out);
  if (!s.output_gate.empty()) {
    const ValueId attended = b.cursor();
    b.read(x);
    b.linear(p + s.output_gate, s.hidden, out, {.bias = false, .role = Role::attention});
    b.reads({attended, b.cursor()});
    b.activation(p + "output_gate", out, "sigmoid_gate");
  }
  b.linear(p + "o_proj", out, s.hidden, {.bias = s.bias, .role = Role::attention});
}

}  // namespace cardfit

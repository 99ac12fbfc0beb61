// Gemma 4 text (transformers models/gemma4/modeling_gemma4.py, Gemma4ForCausalLM, model_type
// gemma4_text): Gemma 3's sandwich-norm layers with per-head q/k norms (v_norm has no weight), sliding
// layers of head_dim and full layers of global_head_dim (with num_global_key_value_heads and no
// v_proj when attention_k_eq_v); the last num_kv_shared_layers layers reuse an earlier layer's keys
// and values (no k/v projections; a double-wide MLP with use_double_wide_mlp); per-layer embeddings
// when hidden_size_per_layer_input > 0 (per_layer_inputs.hpp). With enable_moe_block (Gemma 4
// 26B-A4B) every layer runs routed experts beside its MLP (gemma4_moe.hpp), stored as
// layers.N.router.{proj.weight, scale, per_expert_scale} and layers.N.experts.{gate_up_proj, down_proj}.
// Each layer stores a layer_scalar buffer [1]. Gemma4TextConfig: vocab 262144, head_dim 256,
// global_head_dim 512, sliding_window 512, tie_word_embeddings=True; layer_types default 5 sliding : 1 full.
#include "../decoder.hpp"
#include "../gemma4_moe.hpp"
#include "../layer_types.hpp"
#include "../per_layer_inputs.hpp"
#include "families.hpp"

namespace cardfit::families {

Model gemma4_text(const Config& c) {
  DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = true, .max_positions = 131072});
  if (!c.has("head_dim")) d.head_dim = 256;
  d.sliding_window = c.count_or({"sliding_window"}, 512);
  const int64_t global_dim = c.positive_or({"global_head_dim"}, 512);
  const bool k_eq_v = c.boolean_or("attention_k_eq_v", false);
  const int64_t global_kv = k_eq_v ? c.positive_or({"num_global_key_value_heads"}, d.kv_heads) : d.kv_heads;
  const int64_t shared = c.count_or({"num_kv_shared_layers"}, 0), first_shared = d.layers - shared;
  require(shared < d.layers, c, "num_kv_shared_layers", "num_kv_shared_layers must leave a layer that computes its KV.");
  const bool double_wide = c.boolean_or("use_double_wide_mlp", false);
  const bool moe = c.boolean_or("enable_moe_block", false);
  Gemma4MoeSpec experts;
  if (moe) {  // Gemma4TextConfig leaves these None: a MoE config must give them
    experts.experts = c.positive({"num_experts"});
    experts.top_k = c.positive({"top_k_experts"});
    experts.intermediate = c.positive({"moe_intermediate_size"});
    require(experts.top_k <= experts.experts, c, "top_k_experts", "top_k_experts must not exceed num_experts.");
  }
  const int64_t ple = c.count_or({"hidden_size_per_layer_input"}, 256);
  const std::string act = c.string_or("hidden_activation", "gelu_pytorch_tanh");
  experts.act = act;
  auto types = read_layer_types(c, d.layers, {"sliding_attention", "full_attention"},
                                [](int64_t i) { return (i + 1) % 6 != 0 ? "sliding_attention" : "full_attention"; });
  types.back() = "full_attention";  // Gemma4TextConfig forces the last layer to full attention

  ModelBuilder b("gemma4_text", "gemma4");
  set_dims(b, d, c);
  b.block("model.embed_tokens", "embedding");
  token_embedding(b, "model.embed_tokens", d.vocab, d.hidden);
  if (ple > 0)
    per_layer_input_tables(b, {.prefix = "model", .hidden = d.hidden, .layers = d.layers,
                               .vocab = c.positive_or({"vocab_size_per_layer_input"}, 262144), .width = ple});
  for (int i = 0; i < d.layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    const bool full = types[size_t(i)] == "full_attention", kv_shared = i >= first_shared;
    b.block(p, "decoder_layer", i);
    const AttentionSpec attn{.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads,
                             .kv_heads = full ? global_kv : d.kv_heads, .head_dim = full ? global_dim : d.head_dim,
                             .q_norm = "q_norm", .k_norm = "k_norm", .window = window_of(types[size_t(i)], d.sliding_window),
                             .kv_shared = kv_shared, .k_eq_v = full && k_eq_v};
    const MlpSpec mlp{.prefix = p + ".mlp", .hidden = d.hidden,
                      .intermediate = d.intermediate * (double_wide && kv_shared && first_shared > 0 ? 2 : 1), .act = act};
    if (moe) gemma4_moe_decoder_layer(b, {.prefix = p, .attn = attn, .mlp = mlp, .hidden = d.hidden}, experts);
    else sandwich_norm_decoder_layer(b, {.prefix = p, .attn = attn, .mlp = mlp, .hidden = d.hidden});
    b.buffer(p + ".layer_scalar", {1});
    if (ple > 0) per_layer_input_merge(b, p, d.hidden, ple, act);
  }
  b.block("final", "final");
  b.norm("model.norm", d.hidden, NormKind::rmsnorm);
  lm_head(b, "lm_head", d.hidden, d.vocab, d.tied ? "model.embed_tokens.weight" : "");
  if (shared > 0)
    b.note("The last " + std::to_string(shared) + " layers share an earlier layer's keys and values: the checkpoint "
           "still stores their self_attn.k_proj / v_proj / k_norm, which Gemma4TextModel drops on load "
           "(_keys_to_ignore_on_load_unexpected), so they are not counted here.");
  return b.finish();
}

}  // namespace cardfit::families

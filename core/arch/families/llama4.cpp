// Llama 4 text (transformers models/llama4/modeling_llama4.py, Llama4ForCausalLM, model_type
// llama4_text): Llama's pre-norm layers; the q/k L2 norm (use_qk_norm) and the NoPE layers have no
// parameters. Layers in moe_layers (default every interleave_moe_layer_step-th) are MoE: a bias-free
// router feed_forward.router [experts, hidden], experts stored stacked input-major
// (feed_forward.experts.gate_up_proj [E, hidden, 2 * intermediate_size], down_proj [E,
// intermediate_size, hidden]; fused_moe_block, stacked_in_out) and a shared_expert MLP of
// intermediate_size beside them; the other layers are a dense MLP of intermediate_size_mlp. RoPE
// layers (no_rope_layers[i] == 1) attend in chunks of attention_chunk_size, which bounds their cache.
#include <algorithm>

#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model llama4_text(const Config& c) {
  DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 4096 * 32});
  if (!c.has("head_dim")) d.head_dim = 128;
  const int64_t experts = c.positive_or({"num_local_experts"}, 16), top_k = c.positive_or({"num_experts_per_tok"}, 1);
  const int64_t step = c.positive_or({"interleave_moe_layer_step"}, 1);
  const int64_t dense_inter = c.positive_or({"intermediate_size_mlp"}, 16384);
  const int64_t chunk = c.count_or({"attention_chunk_size"}, 8192);
  std::vector<int64_t> moe_layers = c.integer_list("moe_layers");
  if (moe_layers.empty())
    for (int64_t i = step - 1; i < d.layers; i += step) moe_layers.push_back(i);
  const std::vector<int64_t> rope = c.integer_list("no_rope_layers");  // 1: this layer uses RoPE
  require(rope.empty() || int64_t(rope.size()) >= d.layers, c, "no_rope_layers",
          "no_rope_layers must have an entry for each of the " + std::to_string(d.layers) + " layers.");
  const int64_t nope_every = c.positive_or({"no_rope_layer_interval"}, 4);
  const bool bias = c.boolean_or("attention_bias", false);
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("llama4_text", "llama4");
  set_dims(b, d, c);
  b.dims().experts = experts;
  b.dims().experts_per_token = top_k;
  causal_lm_stack(b, d, {}, [&](int i, const std::string& p) {
    const bool uses_rope = rope.empty() ? (i + 1) % nope_every != 0 : rope[size_t(i)] != 0;
    b.norm(p + ".input_layernorm", d.hidden, NormKind::rmsnorm);
    attention_block(b, {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                        .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias, .v_bias = bias, .o_bias = bias,
                        .window = uses_rope ? chunk : 0});
    b.residual(p + ".residual_attn", d.hidden);
    b.norm(p + ".post_attention_layernorm", d.hidden, NormKind::rmsnorm);
    const std::string f = p + ".feed_forward";
    if (std::find(moe_layers.begin(), moe_layers.end(), i) != moe_layers.end()) {
      const ValueId x = b.cursor();  // the routed experts and the shared expert both read x
      fused_moe_block(b, {.prefix = f, .hidden = d.hidden, .experts = experts, .top_k = top_k,
                          .intermediate = d.intermediate, .router = "router", .down = "experts.down_proj",
                          .layout = FusedExpertLayout::stacked_in_out, .act = act,
                          .gate_up = "experts.gate_up_proj", .weighted_sum = true});
      b.read(x);
      mlp_block(b, {.prefix = f + ".shared_expert", .hidden = d.hidden, .intermediate = d.intermediate, .act = act});
    } else {
      mlp_block(b, {.prefix = f, .hidden = d.hidden, .intermediate = dense_inter, .act = act});
    }
    b.residual(p + ".residual_mlp", d.hidden);
  });
  return b.finish();
}

}  // namespace cardfit::families

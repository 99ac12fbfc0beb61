// DeepSeek-V2 and DeepSeek-V3 (transformers models/deepseek_v2, models/deepseek_v3; the published
// checkpoints' remote code modeling_deepseek.py has the same tensors): multi-head latent attention,
// first_k_dense_replace dense layers, then MoE layers with routed experts (per-expert tensors
// mlp.experts.{i}.*, as the checkpoints store them), one merged shared-expert MLP of
// moe_intermediate_size * n_shared_experts, and for V3 the router's e_score_correction_bias.
#include <nlohmann/json.hpp>

#include "../decoder.hpp"
#include "../mla.hpp"
#include "../stored_extras.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
// A key that is present but null means "none" in these configs (q_lora_rank: null on V2-Lite,
// n_routed_experts: null for a dense model), unlike an absent key, which takes the class default.
bool explicit_null(const Config& c, const char* key) {
  auto it = c.raw().find(key);
  return it != c.raw().end() && it->is_null();
}
int64_t optional_or(const Config& c, const char* key, int64_t fallback) {
  if (explicit_null(c, key)) return 0;
  return c.positive_or({key}, fallback);
}
}  // namespace

Model deepseek(const Config& c) {
  const std::string type = c.string_or("model_type", "deepseek_v3");
  const bool v3 = type == "deepseek_v3";
  // DeepseekV3Config / DeepseekV2Config defaults.
  const int64_t vocab = c.positive_or({"vocab_size"}, v3 ? 129280 : 32000);
  const int64_t hidden = c.positive_or({"hidden_size"}, v3 ? 7168 : 4096);
  const int64_t intermediate = c.positive_or({"intermediate_size"}, v3 ? 18432 : 11008);
  const int64_t layers = c.positive_or({"num_hidden_layers"}, v3 ? 61 : 32);
  const int64_t heads = c.positive_or({"num_attention_heads"}, v3 ? 128 : 32);
  const int64_t q_lora = optional_or(c, "q_lora_rank", 1536);
  const int64_t kv_lora = c.positive_or({"kv_lora_rank"}, 512);
  const int64_t nope = c.positive_or({"qk_nope_head_dim"}, 128);
  const int64_t rope = c.positive_or({"qk_rope_head_dim"}, 64);
  const int64_t v_dim = c.positive_or({"v_head_dim"}, 128);
  const int64_t routed = optional_or(c, "n_routed_experts", v3 ? 256 : 64);
  const int64_t shared = optional_or(c, "n_shared_experts", v3 ? 1 : 2);
  const int64_t moe_inter = c.positive_or({"moe_intermediate_size"}, v3 ? 2048 : 1407);
  const int64_t first_dense = c.count_or({"first_k_dense_replace"}, v3 ? 3 : 0);
  const int64_t moe_freq = c.positive_or({"moe_layer_freq"}, 1);  // remote code only; 1 everywhere published
  const bool tied = c.boolean_or("tie_word_embeddings", false);
  const bool bias = c.boolean_or("attention_bias", false);
  const std::string act = c.string_or("hidden_act", "silu");
  // V3 routes with sigmoid scores plus a learned correction bias ("noaux_tc"), which the checkpoints
  // store as mlp.gate.e_score_correction_bias.
  // DeepSeek-V2 configs of the remote code (DeepSeek-VL2's language model) may route the same way; their
  // MoEGate then holds the bias too (deepseek-ai/DeepSeek-VL2 modeling_deepseek.py, read 2026-12-01).
  const bool correction_bias = c.string_or("topk_method", v3 ? "noaux_tc" : "greedy") == "noaux_tc";
  int64_t top_k = 0;
  if (routed > 0) top_k = v3 ? c.positive_or({"num_experts_per_tok"}, 8) : c.positive({"num_experts_per_tok"});

  ModelBuilder b(type, "deepseek");
  Dims& d = b.dims();
  d.hidden = hidden;
  d.layers = layers;
  d.heads = heads;
  d.kv_heads = heads;
  d.head_dim = nope + rope;
  d.intermediate = intermediate;
  d.vocab = vocab;
  d.max_positions = c.positive_or({"max_position_embeddings"}, v3 ? 4096 : 2048);
  d.experts = routed;
  d.experts_per_token = top_k;
  d.tied_embeddings = tied;
  d.initializer_range = c.number_or("initializer_range", 0.02);

  const DecoderShape shape{.vocab = vocab, .hidden = hidden, .layers = layers, .tied = tied};
  causal_lm_stack(b, shape, {}, [&](int i, const std::string& p) {
    DecoderLayerSpec layer{
        .prefix = p,
        .mlp = {.prefix = p + ".mlp", .hidden = hidden, .intermediate = intermediate, .act = act},
        .hidden = hidden,
        .mla = MlaSpec{.prefix = p + ".self_attn", .hidden = hidden, .heads = heads, .q_lora_rank = q_lora,
                       .kv_lora_rank = kv_lora, .qk_nope_head_dim = nope, .qk_rope_head_dim = rope,
                       .v_head_dim = v_dim, .bias = bias}};
    if (routed > 0 && i >= first_dense && i % moe_freq == 0)
      layer.moe = MoeSpec{.prefix = p + ".mlp", .hidden = hidden, .experts = routed, .top_k = top_k,
                          .expert_intermediate = moe_inter, .expert = {.act = act}, .shared_experts = shared,
                          .shared_intermediate = checked_mul(moe_inter, shared, "the shared experts' width"),
                          .router_bias_name = correction_bias ? "e_score_correction_bias" : ""};
    pre_norm_decoder_layer(b, layer);
  });

  const int64_t mtp = c.count_or({"num_nextn_predict_layers"}, 0);
  if (mtp > 0) {
    // Layer `layers` repeats the last decoder layer's shape (an MoE layer in every published V3).
    add_nextn_layers(b.model(), mtp, layers, layers - 1, hidden, vocab);
    b.note("The published checkpoint also stores " + std::to_string(mtp) +
           " multi-token-prediction layer(s) as model.layers." + std::to_string(layers) +
           ".* (num_nextn_predict_layers); " + (v3 ? "DeepseekV3ForCausalLM" : "the causal-LM class") +
           " does not load them, so they are not counted here.");
  }
  return b.finish();
}

}  // namespace cardfit::families

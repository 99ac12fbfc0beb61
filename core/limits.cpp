// The field range table: the largest value each integer config key may take. Bounds are powers of
// two with headroom (4× or more) over the largest published model known on 2026-12-01:
//   layers      126  Llama-3.1-405B num_hidden_layers (config.json, meta-llama, 2024-07)
//   hidden      18432 Nemotron-4-340B hidden_size (nvidia, 2024-06); 16384 Llama-3.1-405B
//   ffn         65536 T5-11B d_ff (google-t5, 2019); 53248 Llama-3.1-405B intermediate_size
//   heads       128  Llama-3.1-405B, DeepSeek-V3, T5-11B
//   head_dim    256  Gemma 2/3 (head_dim); 192 DeepSeek-V3 q/k (qk_nope 128 + qk_rope 64)
//   vocab       262208 Gemma 3 vocab_size (google, 2025-03)
//   experts     512  Qwen3-Next n experts (2025-09); 384 Kimi K2; 256 DeepSeek-V3
//   positions   10485760 Llama 4 Scout max_position_embeddings (meta, 2025-04)
//   image       896  Gemma 3 SigLIP image_size; patch 14-32; 3 channels
//   ssm         d_state 128 (Mamba2), d_conv 4, expand 2, dt_rank = hidden/16
// Products of bounded fields stay far below 2^63 (hidden × ffn × experts = 2^16 · 2^19 · 2^11 = 2^46),
// and the families still multiply with checked_mul (model.hpp).
#include "limits.hpp"

namespace cardfit {
namespace {
struct Bound {
  std::string_view key;
  int64_t max;
};
constexpr int64_t k(int bits) { return int64_t(1) << bits; }
constexpr Bound bounds[] = {
    // layers
    {"num_hidden_layers", k(10)}, {"n_layer", k(10)}, {"n_layers", k(10)}, {"num_layers", k(10)},
    {"num_decoder_layers", k(10)}, {"encoder_layers", k(10)}, {"decoder_layers", k(10)},
    {"num_nextn_predict_layers", k(10)}, {"max_window_layers", k(10)}, {"first_k_dense_replace", k(10)},
    // model width
    {"hidden_size", k(16)}, {"n_embd", k(16)}, {"n_embed", k(16)}, {"d_model", k(16)}, {"dim", k(16)},
    {"hidden_dim", k(19)}, {"word_embed_proj_dim", k(16)}, {"kv_lora_rank", k(16)}, {"q_lora_rank", k(16)},
    // feed-forward width
    {"intermediate_size", k(19)}, {"n_inner", k(19)}, {"ffn_hidden_size", k(19)}, {"inner_hidden_size", k(19)},
    {"moe_intermediate_size", k(19)}, {"shared_expert_intermediate_size", k(19)}, {"ffn_dim", k(19)},
    {"encoder_ffn_dim", k(19)}, {"decoder_ffn_dim", k(19)}, {"d_ff", k(19)},
    // heads
    {"num_attention_heads", k(12)}, {"n_head", k(12)}, {"n_heads", k(12)}, {"num_key_value_heads", k(12)},
    {"n_head_kv", k(12)}, {"kv_n_heads", k(12)}, {"num_kv_heads", k(12)}, {"num_heads", k(12)},
    {"multi_query_group_num", k(12)}, {"encoder_attention_heads", k(12)}, {"decoder_attention_heads", k(12)},
    // per-head widths
    {"head_dim", k(13)}, {"kv_channels", k(13)}, {"d_kv", k(13)}, {"v_head_dim", k(13)},
    {"qk_rope_head_dim", k(13)}, {"qk_nope_head_dim", k(13)},
    // vocabulary
    {"vocab_size", k(22)}, {"padded_vocab_size", k(22)}, {"type_vocab_size", k(22)}, {"num_labels", k(22)},
    // experts
    {"num_experts", k(11)}, {"num_local_experts", k(11)}, {"n_routed_experts", k(11)},
    {"moe_num_experts", k(11)}, {"num_experts_per_tok", k(11)}, {"moe_top_k", k(11)},
    {"n_shared_experts", k(11)},
    // positions
    {"max_position_embeddings", k(30)}, {"n_positions", k(30)}, {"n_ctx", k(30)}, {"seq_length", k(30)},
    {"max_seq_len", k(30)}, {"max_sequence_length", k(30)}, {"model_max_length", k(30)},
    {"original_max_position_embeddings", k(30)}, {"sliding_window", k(30)},
    {"relative_attention_num_buckets", k(16)},
    // vision
    {"image_size", k(14)}, {"patch_size", k(14)}, {"num_channels", k(10)}, {"mm_tokens_per_image", k(20)},
    // state-space and convolution
    {"state_size", k(13)}, {"mamba_d_state", k(13)}, {"conv_kernel", k(8)}, {"mamba_d_conv", k(8)},
    {"expand", k(6)}, {"mamba_expand", k(6)}, {"expansion_ratio", k(6)},
    {"time_step_rank", k(16)}, {"mamba_dt_rank", k(16)},
    // layer patterns
    {"decoder_sparse_step", k(10)}, {"moe_layer_freq", k(10)}, {"sliding_window_pattern", k(10)},
    {"_sliding_window_pattern", k(10)}, {"expert_layer_period", k(10)}, {"expert_layer_offset", k(10)},
    {"attn_layer_period", k(10)}, {"attn_layer_offset", k(10)}, {"num_ln_in_parallel_attn", k(10)},
};
}  // namespace

int64_t field_max(std::string_view key) {
  for (const Bound& b : bounds)
    if (b.key == key) return b.max;
  return kDefaultFieldMax;
}

}  // namespace cardfit

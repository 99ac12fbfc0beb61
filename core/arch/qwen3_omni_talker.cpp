// Qwen3-Omni-MoE's talker and code predictor (see qwen3_omni.hpp). Fallbacks for absent keys are
// Qwen/Qwen3-Omni-30B-A3B-Instruct's published values (its config.json talker_config, read 2026-12-02).
#include "decoder.hpp"
#include "qwen3_omni.hpp"
#include "vision.hpp"

namespace cardfit {

namespace {
// Qwen3OmniMoeTalkerResizeMLP: linear_fc1 (in → in) → SiLU → linear_fc2 (in → out), both with bias.
void resize_mlp(ModelBuilder& b, const std::string& name, int64_t in, int64_t out) {
  b.linear(name + ".linear_fc1", in, in, {.bias = true, .role = Role::projector});
  b.activation(name + ".act_fn", in, "silu");
  b.linear(name + ".linear_fc2", in, out, {.bias = true, .role = Role::projector});
}

AttentionSpec qwen3_attention(const std::string& p, int64_t hidden, int64_t heads, int64_t kv_heads, int64_t head_dim) {
  return {.prefix = p + ".self_attn", .hidden = hidden, .heads = heads, .kv_heads = kv_heads, .head_dim = head_dim,
          .qk_norm = NormKind::rmsnorm, .q_norm = "q_norm", .k_norm = "k_norm"};
}
}  // namespace

void omni_talker(ModelBuilder& b, const Config& talker) {
  const Config t = child_or_empty(talker, "text_config");
  const int64_t h = t.positive_or({"hidden_size"}, 1024), layers = t.positive_or({"num_hidden_layers"}, 20);
  const int64_t heads = t.positive_or({"num_attention_heads"}, 16), kv = t.positive_or({"num_key_value_heads"}, 2);
  const int64_t hd = t.positive_or({"head_dim"}, 128), experts = t.positive_or({"num_local_experts", "num_experts"}, 128);
  const int64_t top_k = t.positive_or({"num_experts_per_tok"}, 6), moe = t.positive_or({"moe_intermediate_size"}, 384);
  const int64_t shared = t.positive_or({"shared_expert_intermediate_size"}, 768);
  const int64_t codec_vocab = t.positive_or({"vocab_size"}, 3072);
  const int64_t thinker = talker.positive_or({"thinker_hidden_size"}, 2048);
  const int64_t groups = talker.positive_or({"num_code_groups"}, 16);
  require(top_k <= experts, t, "num_experts_per_tok", "num_experts_per_tok cannot exceed num_local_experts.");
  require(groups >= 2, talker, "num_code_groups", "num_code_groups must be at least 2 (the code predictor predicts groups 1..n-1).");

  b.restart();
  b.block("talker.inputs", "other");
  b.reads({});
  resize_mlp(b, "talker.text_projection", thinker, h);      // the thinker's text embeddings
  b.reads({});
  resize_mlp(b, "talker.hidden_projection", thinker, h);    // the thinker's accept_hidden_layer states
  b.reads({});
  b.embedding("talker.model.codec_embedding", codec_vocab, h);
  for (int64_t i = 0; i < layers; ++i) {
    const std::string p = "talker.model.layers." + std::to_string(i);
    b.block(p, "other");
    // Qwen3OmniMoeTalkerDecoderLayer: every layer sparse (decoder_sparse_step 1, mlp_only_layers []).
    pre_norm_decoder_layer(b, {.prefix = p, .attn = qwen3_attention(p, h, heads, kv, hd), .hidden = h,
                               .moe = MoeSpec{.prefix = p + ".mlp", .hidden = h, .experts = experts, .top_k = top_k,
                                              .expert_intermediate = moe, .router = "gate", .expert = {.act = "silu"},
                                              .shared_experts = 1, .shared_intermediate = shared,
                                              .shared_name = "shared_expert", .shared_gate = "shared_expert_gate"}});
  }
  b.block("talker.final", "other");
  b.norm("talker.model.norm", h, NormKind::rmsnorm);
  b.linear("talker.codec_head", h, codec_vocab, {.bias = false, .role = Role::head});

  // The code predictor: group 0 comes from codec_head; it predicts groups 1..groups-1.
  const Config c = child_or_empty(talker, "code_predictor_config");
  const int64_t ch = c.positive_or({"hidden_size"}, 1024), cl = c.positive_or({"num_hidden_layers"}, 5);
  const int64_t cheads = c.positive_or({"num_attention_heads"}, 16), ckv = c.positive_or({"num_key_value_heads"}, 8);
  const int64_t chd = c.positive_or({"head_dim"}, 128), cinter = c.positive_or({"intermediate_size"}, 3072);
  const int64_t cvocab = c.positive_or({"vocab_size"}, 2048);
  const std::string cp = "talker.code_predictor.";
  b.restart();
  b.block(cp + "inputs", "other");
  for (int64_t g = 0; g + 1 < groups; ++g) {
    b.reads({});
    b.embedding(cp + "model.codec_embedding." + std::to_string(g), cvocab, ch);
  }
  for (int64_t i = 0; i < cl; ++i) {
    const std::string p = cp + "model.layers." + std::to_string(i);
    b.block(p, "other");
    pre_norm_decoder_layer(b, {.prefix = p, .attn = qwen3_attention(p, ch, cheads, ckv, chd),
                               .mlp = {.prefix = p + ".mlp", .hidden = ch, .intermediate = cinter, .act = "silu"},
                               .hidden = ch});
  }
  b.block(cp + "final", "other");
  b.norm(cp + "model.norm", ch, NormKind::rmsnorm);
  const ValueId normed = b.cursor();
  for (int64_t g = 0; g + 1 < groups; ++g) {
    b.read(normed);
    b.linear(cp + "lm_head." + std::to_string(g), ch, cvocab, {.bias = false, .role = Role::head});
  }
}

}  // namespace cardfit

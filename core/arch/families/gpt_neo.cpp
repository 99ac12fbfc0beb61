// GPT-Neo (transformers models/gpt_neo/modeling_gpt_neo.py, GPTNeoForCausalLM): GPT-2's layout with
// learned positions, LayerNorms and a GELU MLP, but separate q/k/v projections without bias and an
// out_proj with one, layers alternating "global" and "local" attention (attention_types), the head
// tied to wte. The model class has eager and flash_attention_2 only (no SDPA): its eager _attn
// casts q and k to fp32 for the scores. Local layers mask a window_size band of the full causal
// score matrix and the cache keeps every token, so memory is planned as global (a note says so).
#include <nlohmann/json.hpp>

#include "../../error.hpp"
#include "../blocks.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
[[noreturn]] void bad_attention_types(const Config& c, ErrorCode code, const char* what) {
  throw Error(code, c.path_of("attention_types") + what, c.path_of("attention_types"));
}

// GPTNeoConfig.expand_attention_types_params: [[["global", "local"], 6]] is 12 layer types, as many as
// num_layers (the class default: [[["global", "local"], 12]], 24 layers). Returns the local ones,
// counted without expanding (a hostile repeat count costs nothing).
int64_t local_layers(const Config& c, int64_t layers) {
  if (!c.has("attention_types")) {
    require(layers == 24, c, "num_layers", "Without attention_types GPT-Neo has 24 layers.");
    return 12;
  }
  const nlohmann::json& spec = c.raw().at("attention_types");
  if (!spec.is_array()) bad_attention_types(c, ErrorCode::field_type, " must list [[layer types...], repeats] pairs.");
  uint64_t types = 0, local = 0;
  for (const auto& item : spec) {
    if (!item.is_array() || item.size() != 2 || !item[0].is_array() || item[0].empty() || !item[1].is_number_unsigned())
      bad_attention_types(c, ErrorCode::field_type, " must list [[layer types...], repeats] pairs.");
    const auto repeats = item[1].get<uint64_t>();
    for (const auto& type : item[0]) {
      if (type != "local" && type != "global")
        bad_attention_types(c, ErrorCode::field_range, " may name only \"global\" and \"local\".");
      if (repeats > uint64_t(layers) - types)
        bad_attention_types(c, ErrorCode::field_inconsistent, " expands to more layer types than num_layers.");
      types += repeats;
      if (type == "local") local += repeats;
    }
  }
  if (types != uint64_t(layers)) bad_attention_types(c, ErrorCode::field_inconsistent, " expands to fewer layer types than num_layers.");
  return int64_t(local);
}
}  // namespace

Model gpt_neo(const Config& c) {
  ModelBuilder b("gpt_neo", "gpt_neo");
  b.facts().dropouts(0, 0, 0, 0);  // GPTNeoConfig resid_dropout, attention_dropout, embed_dropout: 0.0
  b.facts().sdpa = false;          // GPTNeoPreTrainedModel: eager and flash_attention_2 only
  const int64_t vocab = c.positive({"vocab_size"});
  const int64_t hidden = c.positive({"hidden_size"});
  const int64_t layers = c.positive({"num_layers"});
  const int64_t heads = c.positive({"num_heads"});
  const int64_t positions = c.positive_or({"max_position_embeddings"}, 2048);
  const int64_t inner = c.positive_or({"intermediate_size"}, checked_mul(4, hidden, "4 x hidden_size"));  // null: 4 x
  const bool tied = c.boolean_or("tie_word_embeddings", true);
  const std::string act = c.string_or("activation_function", "gelu_new");
  require(hidden % heads == 0, c, "num_heads", "hidden_size must be divisible by num_heads.");
  const int64_t local = local_layers(c, layers);
  b.dims().max_positions = positions;
  b.dims().initializer_range = c.number_or("initializer_range", 0.02);

  b.block("transformer.embeddings", "embedding");
  b.embedding("transformer.wte", vocab, hidden, Role::embedding);
  b.embedding("transformer.wpe", positions, hidden, Role::position_embedding);
  for (int i = 0; i < layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    b.norm(p + ".ln_1", hidden, NormKind::layernorm);
    attention_block(b, {.prefix = p + ".attn.attention", .hidden = hidden, .heads = heads, .kv_heads = heads,
                        .head_dim = hidden / heads, .o_bias = true, .o = "out_proj", .fp32_qk = true});
    // The published checkpoints (saved by the 2021 code, whose buffers were persistent) store each
    // layer's mask, uint8 [1, 1, P, P] (the local layers' banded), and masked_bias.
    b.buffer(p + ".attn.attention.bias", {1, 1, positions, positions});
    b.buffer(p + ".attn.attention.masked_bias", {});
    b.residual(p + ".residual_attn", hidden);
    b.norm(p + ".ln_2", hidden, NormKind::layernorm);
    mlp_block(b, {.prefix = p + ".mlp", .hidden = hidden, .intermediate = inner, .gated = false, .bias = true,
                  .act = act, .up = "c_fc", .down = "c_proj"});
    b.residual(p + ".residual_mlp", hidden);
  }
  b.block("final", "final");
  b.norm("transformer.ln_f", hidden, NormKind::layernorm);
  lm_head(b, "lm_head", hidden, vocab, tied ? "transformer.wte.weight" : "");

  if (local > 0)
    b.note("The \"local\" layers of attention_types are planned as global: eager attention masks the window_size band "
           "of the full score matrix and the cache keeps every token.");
  b.note("Buffers as EleutherAI's checkpoints store them: per layer attn.attention.bias and masked_bias (newer saves omit them).");
  return b.finish();
}

}  // namespace cardfit::families

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
// GPTNeoConfig.expand_attention_types_params: [[["global", "local"], 6]] is 12 layer types; the
// class requires as many as num_layers (its default: [[["global", "local"], 12]], 24 layers).
std::vector<bool> local_layers(const Config& c, int64_t layers) {
  const char* key = "attention_types";
  if (!c.has(key)) {
    require(layers == 24, c, "num_layers", "Without attention_types GPTNeoConfig expands 24 layer types; num_layers is " +
                                               std::to_string(layers) + ".");
    std::vector<bool> local(24);
    for (size_t i = 0; i < local.size(); ++i) local[i] = i % 2 == 1;
    return local;
  }
  const nlohmann::json& spec = c.raw().at(key);
  auto malformed = [&] {
    throw Error(ErrorCode::field_type,
                c.path_of(key) + " must be a list of [[layer types...], repeats] pairs, as GPTNeoConfig writes it.",
                c.path_of(key));
  };
  if (!spec.is_array()) malformed();
  std::vector<bool> local;
  for (const auto& item : spec) {
    if (!item.is_array() || item.size() != 2 || !item[0].is_array() || item[0].empty() || !item[1].is_number_integer() ||
        item[1].get<int64_t>() < 0)
      malformed();
    for (int64_t r = 0; r < item[1].get<int64_t>(); ++r)
      for (const auto& type : item[0]) {
        if (!type.is_string() || (type != "global" && type != "local"))
          throw Error(ErrorCode::field_range, c.path_of(key) + " names a layer type other than \"global\" and \"local\".",
                      c.path_of(key));
        if (int64_t(local.size()) == layers)  // also bounds a hostile repeat count
          throw Error(ErrorCode::field_inconsistent,
                      c.path_of(key) + " expands to more layer types than num_layers (" + std::to_string(layers) + ").",
                      c.path_of(key));
        local.push_back(type == "local");
      }
  }
  require(int64_t(local.size()) == layers, c, key,
          c.path_of(key) + " expands to " + std::to_string(local.size()) + " layer types; num_layers is " +
              std::to_string(layers) + " (GPTNeoConfig requires them equal).");
  return local;
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
  const int64_t window = c.positive_or({"window_size"}, 256);
  const bool tied = c.boolean_or("tie_word_embeddings", true);
  const std::string act = c.string_or("activation_function", "gelu_new");
  require(hidden % heads == 0, c, "num_heads", "hidden_size must be divisible by num_heads.");
  const std::vector<bool> local = local_layers(c, layers);
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

  int64_t local_count = 0;
  for (const bool l : local) local_count += l;
  if (local_count > 0)
    b.note(std::to_string(local_count) + " of " + std::to_string(layers) + " layers are \"local\" (window_size " +
           std::to_string(window) + "): GPT-Neo's eager attention masks that band of the full causal score matrix "
           "and its cache keeps every token (flash_attention_2 runs them as global layers), so memory and FLOPs are "
           "planned as for global attention.");
  b.note("Buffers as the published EleutherAI checkpoints store them: per layer attn.attention.bias (the mask) and "
         "attn.attention.masked_bias (a scalar); current transformers registers them non-persistent, so newer "
         "saves omit them.");
  return b.finish();
}

}  // namespace cardfit::families

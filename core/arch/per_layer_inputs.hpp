// Per-layer embeddings (PLE; transformers models/gemma4/modeling_gemma4.py Gemma4TextModel and
// Gemma4TextDecoderLayer, hidden_size_per_layer_input > 0, the Gemma 4 E2B/E4B "effective" models): a
// second token table holding a small vector per token for every layer, mixed with a projection of the
// token embedding, then added into each layer's residual stream through a gate.
#pragma once
#include <string>

#include "builder.hpp"

namespace cardfit {

struct PerLayerInputSpec {
  std::string prefix;        // "model"
  int64_t hidden = 0, layers = 0;
  int64_t vocab = 0;         // vocab_size_per_layer_input
  int64_t width = 0;         // hidden_size_per_layer_input
};
/// Model level, after the token embedding. Dataflow: ids → embed_tokens_per_layer [vocab, layers * width]
/// (token identity); token embedding → per_layer_model_projection [layers * width, hidden] →
/// per_layer_projection_norm ([width], per layer slice); the sum * 2^-0.5 is each layer's per-layer input.
void per_layer_input_tables(ModelBuilder& b, const PerLayerInputSpec& spec);

/// Layer level, after the feed-forward residual. Dataflow: h → per_layer_input_gate [width, hidden] → act
/// → * this layer's per-layer input → per_layer_projection [hidden, width] → post_per_layer_input_norm
/// [hidden] → residual add.
void per_layer_input_merge(ModelBuilder& b, const std::string& layer_prefix, int64_t hidden, int64_t width,
                           const std::string& act);

}  // namespace cardfit

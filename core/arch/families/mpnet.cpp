// MPNet (transformers models/mpnet/modeling_mpnet.py): post-norm encoder layers (attention.attn.q/k/v/o,
// attention.LayerNorm, intermediate.dense, output.dense, output.LayerNorm), word + position
// embeddings (no token types), one bucketed relative_attention_bias [buckets, heads] shared by all
// layers (held by encoder, added to every layer's scores), and the head of architectures[0]:
// MPNetForMaskedLM (mpnet.* without pooler + lm_head dense, layer_norm, decoder tied to the word
// embeddings, bias), *ForSequenceClassification (classifier.dense + out_proj), *ForTokenClassification
// (classifier), *ForQuestionAnswering (qa_outputs), *ForMultipleChoice (pooler + classifier),
// MPNetModel (no prefix, pooler). A sentence-transformers checkpoint (all-mpnet-base-v2) stores
// MPNetModel although its config names MPNetForMaskedLM: set architectures to ["MPNetModel"] for it.
#include "../encoders.hpp"
#include "../layers.hpp"
#include "families.hpp"

namespace cardfit::families {

Model mpnet(const Config& c) {
  ModelBuilder b("mpnet", "mpnet");
  // MPNetConfig defaults: vocab_size=30527, hidden_size=768, num_hidden_layers=12,
  // num_attention_heads=12, intermediate_size=3072, hidden_act="gelu", max_position_embeddings=512,
  // relative_attention_num_buckets=32.
  const int64_t vocab = c.positive_or({"vocab_size"}, 30527);
  const int64_t hidden = c.positive_or({"hidden_size"}, 768);
  const int64_t layers = c.positive_or({"num_hidden_layers"}, 12);
  const int64_t heads = c.positive_or({"num_attention_heads"}, 12);
  const int64_t inter = c.positive_or({"intermediate_size"}, 3072);
  const int64_t positions = c.positive_or({"max_position_embeddings"}, 512);
  const int64_t buckets = c.positive_or({"relative_attention_num_buckets"}, 32);
  const std::string act = c.string_or("hidden_act", "gelu");
  require(hidden % heads == 0, c, "num_attention_heads", "hidden_size must be divisible by num_attention_heads.");
  const std::string arch = first_architecture(c);
  const bool bare = arch.empty() || arch.ends_with("MPNetModel");
  const bool mlm = arch.ends_with("ForMaskedLM");
  const bool pooler = bare || arch.ends_with("ForMultipleChoice");
  const std::string base = bare ? "" : "mpnet.";
  b.dims() = Dims{.hidden = hidden, .layers = layers, .heads = heads, .kv_heads = heads, .head_dim = hidden / heads,
                  .intermediate = inter, .vocab = vocab, .max_positions = positions,
                  .tied_embeddings = c.boolean_or("tie_word_embeddings", true), .encoder_only = true,
                  .initializer_range = c.number_or("initializer_range", 0.02)};

  b.block(base + "embeddings", "embedding");
  token_embedding(b, base + "embeddings.word_embeddings", vocab, hidden);
  b.embedding(base + "embeddings.position_embeddings", positions, hidden, Role::position_embedding);
  b.norm(base + "embeddings.LayerNorm", hidden, NormKind::layernorm);
  b.set_stream(b.cursor());  // the normed embeddings enter the first layer
  position_ids_buffer(b, c, base + "embeddings.position_ids", positions);

  for (int i = 0; i < layers; ++i) {
    const std::string p = base + "encoder.layer." + std::to_string(i);
    b.block(p, "encoder_layer", i);
    // encoder.relative_attention_bias: computed once, added to the scores of every layer.
    if (i == 0) relative_position_bias(b, base + "encoder.relative_attention_bias", buckets, heads);
    residual_layer(b, {.prefix = p, .hidden = hidden, .norm = NormKind::layernorm, .post_norm = true,
                       .attn = {.prefix = p + ".attention.attn", .hidden = hidden, .heads = heads, .kv_heads = heads,
                                .head_dim = hidden / heads, .q_bias = true, .k_bias = true, .v_bias = true,
                                .o_bias = true, .q = "q", .k = "k", .v = "v", .o = "o", .causal = false},
                       .attn_norm = p + ".attention.LayerNorm",
                       .mlp = {.prefix = p, .hidden = hidden, .intermediate = inter, .gated = false, .bias = true,
                               .act = act, .up = "intermediate.dense", .down = "output.dense"},
                       .mlp_norm = p + ".output.LayerNorm"});
  }

  b.block("heads", "final");
  const int64_t labels = num_labels(c, 2);
  if (pooler) {
    head_linear(b, base + "pooler.dense", hidden, hidden);
    b.activation(base + "pooler.activation", hidden, "tanh");
  }
  if (mlm) {
    mlm_head(b, {.in = hidden, .width = hidden, .vocab = vocab, .dense = "lm_head.dense", .norm = "lm_head.layer_norm",
                 .decoder = "lm_head.decoder", .bias = "lm_head.bias", .act = "gelu",
                 .tied_to = b.dims().tied_embeddings ? "mpnet.embeddings.word_embeddings.weight" : ""});
  } else if (arch.ends_with("ForSequenceClassification")) {
    head_linear(b, "classifier.dense", hidden, hidden);
    b.activation("classifier.act", hidden, "tanh");
    head_linear(b, "classifier.out_proj", hidden, labels);
  } else if (arch.ends_with("ForTokenClassification")) {
    head_linear(b, "classifier", hidden, labels);
  } else if (arch.ends_with("ForMultipleChoice")) {
    head_linear(b, "classifier", hidden, 1);
  } else if (arch.ends_with("ForQuestionAnswering")) {
    head_linear(b, "qa_outputs", hidden, 2);
  }
  return b.finish();
}

}  // namespace cardfit::families

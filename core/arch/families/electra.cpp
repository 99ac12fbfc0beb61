// ELECTRA (transformers models/electra/modeling_electra.py): BERT's post-norm encoder layers and
// names under "electra.", embeddings of width embedding_size (word, position, token type,
// LayerNorm) projected to hidden_size by electra.embeddings_project when the two differ, and the
// head of architectures[0]: ElectraForPreTraining (the discriminators: discriminator_predictions
// dense + dense_prediction [1, hidden]), ElectraForMaskedLM (the generators: generator_predictions
// dense [embedding_size, hidden] + LayerNorm, generator_lm_head tied to the word embeddings with its
// own bias), ElectraForSequenceClassification (classifier.dense + classifier.out_proj),
// *ForTokenClassification (classifier), *ForQuestionAnswering (qa_outputs), ElectraModel (none).
#include "../encoders.hpp"
#include "../layers.hpp"
#include "families.hpp"

namespace cardfit::families {

Model electra(const Config& c) {
  ModelBuilder b("electra", "electra");
  // ElectraConfig defaults: vocab_size=30522, embedding_size=128, hidden_size=256,
  // num_hidden_layers=12, num_attention_heads=4, intermediate_size=1024, hidden_act="gelu",
  // max_position_embeddings=512, type_vocab_size=2.
  const int64_t vocab = c.positive_or({"vocab_size"}, 30522);
  const int64_t embed = c.positive_or({"embedding_size"}, 128);
  const int64_t hidden = c.positive_or({"hidden_size"}, 256);
  const int64_t layers = c.positive_or({"num_hidden_layers"}, 12);
  const int64_t heads = c.positive_or({"num_attention_heads"}, 4);
  const int64_t inter = c.positive_or({"intermediate_size"}, 1024);
  const int64_t positions = c.positive_or({"max_position_embeddings"}, 512);
  const int64_t type_vocab = c.count_or({"type_vocab_size"}, 2);
  const std::string act = c.string_or("hidden_act", "gelu");
  require(hidden % heads == 0, c, "num_attention_heads", "hidden_size must be divisible by num_attention_heads.");
  const std::string arch = first_architecture(c);
  b.dims() = Dims{.hidden = hidden, .layers = layers, .heads = heads, .kv_heads = heads, .head_dim = hidden / heads,
                  .intermediate = inter, .vocab = vocab, .max_positions = positions,
                  .tied_embeddings = c.boolean_or("tie_word_embeddings", true), .encoder_only = true,
                  .initializer_range = c.number_or("initializer_range", 0.02)};

  b.block("electra.embeddings", "embedding");
  token_embedding(b, "electra.embeddings.word_embeddings", vocab, embed);
  b.embedding("electra.embeddings.position_embeddings", positions, embed, Role::position_embedding);
  if (type_vocab > 0) b.embedding("electra.embeddings.token_type_embeddings", type_vocab, embed, Role::embedding);
  b.norm("electra.embeddings.LayerNorm", embed, NormKind::layernorm);
  if (embed != hidden) b.linear("electra.embeddings_project", embed, hidden, {.bias = true, .role = Role::embedding});
  b.set_stream(b.cursor());  // the normed (and projected) embeddings enter the first layer
  position_ids_buffer(b, c, "electra.embeddings.position_ids", positions);

  for (int i = 0; i < layers; ++i) {
    const std::string p = "electra.encoder.layer." + std::to_string(i);
    b.block(p, "encoder_layer", i);
    residual_layer(b, {.prefix = p, .hidden = hidden, .norm = NormKind::layernorm, .post_norm = true,
                       .attn = {.prefix = p + ".attention", .hidden = hidden, .heads = heads, .kv_heads = heads,
                                .head_dim = hidden / heads, .q_bias = true, .k_bias = true, .v_bias = true,
                                .o_bias = true, .q = "self.query", .k = "self.key", .v = "self.value",
                                .o = "output.dense", .causal = false},
                       .attn_norm = p + ".attention.output.LayerNorm",
                       .mlp = {.prefix = p, .hidden = hidden, .intermediate = inter, .gated = false, .bias = true,
                               .act = act, .up = "intermediate.dense", .down = "output.dense"},
                       .mlp_norm = p + ".output.LayerNorm"});
  }

  b.block("heads", "final");
  const int64_t labels = num_labels(c, 2);
  if (arch.empty() || arch.ends_with("ForPreTraining")) {
    head_linear(b, "discriminator_predictions.dense", hidden, hidden);
    b.activation("discriminator_predictions.act", hidden, act);
    head_linear(b, "discriminator_predictions.dense_prediction", hidden, 1);
  } else if (arch.ends_with("ForMaskedLM")) {
    // ElectraGeneratorPredictions: dense → gelu → LayerNorm; then generator_lm_head (+ its bias).
    mlm_head(b, {.in = hidden, .width = embed, .vocab = vocab, .dense = "generator_predictions.dense",
                 .norm = "generator_predictions.LayerNorm", .decoder = "generator_lm_head", .decoder_bias = true,
                 .act = "gelu", .tied_to = b.dims().tied_embeddings ? "electra.embeddings.word_embeddings.weight" : ""});
  } else if (arch.ends_with("ForSequenceClassification")) {
    head_linear(b, "classifier.dense", hidden, hidden);
    b.activation("classifier.act", hidden, "gelu");
    head_linear(b, "classifier.out_proj", hidden, labels);
  } else if (arch.ends_with("ForTokenClassification")) {
    head_linear(b, "classifier", hidden, labels);
  } else if (arch.ends_with("ForQuestionAnswering")) {
    head_linear(b, "qa_outputs", hidden, 2);
  }
  return b.finish();
}

}  // namespace cardfit::families

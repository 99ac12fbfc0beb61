// DistilBERT (transformers models/distilbert/modeling_distilbert.py): BERT-like post-norm encoder
// (q_lin/k_lin/v_lin/out_lin, sa_layer_norm, ffn.lin1/lin2, output_layer_norm), word + position
// embeddings (no token types), bidirectional attention. The head follows architectures[0]:
// DistilBertForMaskedLM (distilbert-base-*: vocab_transform, vocab_layer_norm, vocab_projector tied
// to the word embeddings plus its bias), *ForSequenceClassification (pre_classifier + classifier),
// *ForTokenClassification, *ForQuestionAnswering, or none (DistilBertModel).
#include <string>

#include "../layers.hpp"
#include "families.hpp"

namespace cardfit::families {

Model distilbert(const Config& c) {
  ModelBuilder b("distilbert", "distilbert");
  b.facts().dropouts(0.1, 0.1, 0, 0.1);  // DistilBertConfig dropout, attention_dropout
  // DistilBertConfig defaults: vocab_size=30522, max_position_embeddings=512, n_layers=6,
  // n_heads=12, dim=768, hidden_dim=3072, activation="gelu", tie_word_embeddings=True.
  const int64_t vocab = c.positive_or({"vocab_size"}, 30522);
  const int64_t dim = c.positive_or({"dim", "hidden_size"}, 768);
  const int64_t layers = c.positive_or({"n_layers", "num_hidden_layers"}, 6);
  const int64_t heads = c.positive_or({"n_heads", "num_attention_heads"}, 12);
  const int64_t hidden_dim = c.positive_or({"hidden_dim"}, 3072);
  const int64_t positions = c.positive_or({"max_position_embeddings"}, 512);
  const std::string act = c.string_or("activation", "gelu");
  const bool tied = c.boolean_or("tie_word_embeddings", true);
  require(dim % heads == 0, c, "n_heads", "dim must be divisible by n_heads.");
  const int64_t head_dim = dim / heads;
  const auto archs = c.has("architectures") ? c.string_list("architectures") : std::vector<std::string>{};
  const std::string arch = archs.empty() ? "DistilBertForMaskedLM" : archs.front();
  auto is = [&](const char* tail) { return arch.find(tail) != std::string::npos; };
  const int64_t labels = num_labels(c, 2);

  b.dims() = Dims{.hidden = dim, .layers = layers, .heads = heads, .kv_heads = heads,
                  .head_dim = head_dim, .intermediate = hidden_dim, .vocab = vocab,
                  .max_positions = positions, .tied_embeddings = tied, .encoder_only = true,
                  .initializer_range = c.number_or("initializer_range", 0.02)};
  b.note("Head: " + arch + ". No buffers counted (embeddings.position_ids is not persistent in "
         "current transformers, and the original checkpoints predate it).");

  b.block("distilbert.embeddings", "embedding");
  token_embedding(b, "distilbert.embeddings.word_embeddings", vocab, dim);
  b.embedding("distilbert.embeddings.position_embeddings", positions, dim, Role::position_embedding);
  b.norm("distilbert.embeddings.LayerNorm", dim, NormKind::layernorm);
  for (int i = 0; i < layers; ++i) {
    const std::string p = "distilbert.transformer.layer." + std::to_string(i);
    b.block(p, "encoder_layer", i);
    residual_layer(b, {.prefix = p, .hidden = dim, .norm = NormKind::layernorm, .post_norm = true,
                       .attn = {.prefix = p + ".attention", .hidden = dim, .heads = heads,
                                .kv_heads = heads, .head_dim = head_dim, .q_bias = true,
                                .k_bias = true, .v_bias = true, .o_bias = true, .q = "q_lin",
                                .k = "k_lin", .v = "v_lin", .o = "out_lin", .causal = false},
                       .attn_norm = p + ".sa_layer_norm",
                       .mlp = {.prefix = p + ".ffn", .hidden = dim, .intermediate = hidden_dim,
                               .gated = false, .bias = true, .act = act, .up = "lin1",
                               .down = "lin2"},
                       .mlp_norm = p + ".output_layer_norm"});
  }
  b.block("heads", "final");
  const LinearSpec head{.bias = true, .lora = false, .role = Role::head};
  if (is("ForMaskedLM")) {
    b.linear("vocab_transform", dim, dim, head);
    b.activation("vocab_act", dim, act);
    b.norm("vocab_layer_norm", dim, NormKind::layernorm, Role::head);
    lm_head(b, "vocab_projector", dim, vocab, tied ? "distilbert.embeddings.word_embeddings.weight" : "",
            true);
  } else if (is("ForSequenceClassification")) {
    b.linear("pre_classifier", dim, dim, head);
    b.linear("classifier", dim, labels, head);
  } else if (is("ForMultipleChoice")) {
    b.linear("pre_classifier", dim, dim, head);
    b.linear("classifier", dim, 1, head);
  } else if (is("ForTokenClassification")) {
    b.linear("classifier", dim, labels, head);
  } else if (is("ForQuestionAnswering")) {
    b.linear("qa_outputs", dim, 2, head);
  }
  return b.finish();
}

}  // namespace cardfit::families

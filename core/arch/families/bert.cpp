// BERT (transformers models/bert/modeling_bert.py), RoBERTa (models/roberta/modeling_roberta.py) and
// XLM-RoBERTa (models/xlm_roberta/modeling_xlm_roberta.py: RoBERTa's modules and names, base_model_prefix
// "roberta", vocab_size 250002 in the published checkpoints):
// post-norm encoder layers with bidirectional attention (no KV cache), word + position +
// token-type embeddings and a LayerNorm, and the head the checkpoint carries, chosen from
// architectures[0]:
//  - *ForMaskedLM, *ForPreTraining, or no architectures: the layout of the original published
//    checkpoints (Google's BERT, fairseq-converted RoBERTa), which store the pooler and, for BERT,
//    the next-sentence head too (BertForPreTraining), although their configs say *ForMaskedLM;
//  - *Model: the pooler; *ForSequenceClassification, *ForTokenClassification,
//    *ForQuestionAnswering, *ForMultipleChoice, *ForNextSentencePrediction, *ForCausalLM: their
//    transformers heads.
// The MLM decoder weight is tied to the word embeddings (listed, counted once).
#include <string>

#include "../layers.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
struct Heads {
  bool pooler = false, mlm = false, nsp = false;
  int64_t classifier = 0;      // labels of a classifier on the pooled / first token
  bool classifier_mlp = false; // RoBERTa's classification head: dense + out_proj, no pooler
  int64_t token_classifier = 0;
  bool qa = false;
  std::string arch;
};

Heads heads_of(const Config& c, bool roberta) {
  Heads h;
  const auto archs = c.has("architectures") ? c.string_list("architectures") : std::vector<std::string>{};
  h.arch = archs.empty() ? "" : archs.front();
  const std::string& a = h.arch;
  if (a.empty() || a.ends_with("ForMaskedLM") || a.ends_with("ForPreTraining")) {
    h.pooler = h.mlm = true;
    h.nsp = !roberta;
  } else if (a.ends_with("ForSequenceClassification")) {
    h.pooler = !roberta;
    h.classifier = num_labels(c, 2);
    h.classifier_mlp = roberta;
  } else if (a.ends_with("ForTokenClassification")) {
    h.token_classifier = num_labels(c, 2);
  } else if (a.ends_with("ForQuestionAnswering")) {
    h.qa = true;
  } else if (a.ends_with("ForMultipleChoice")) {
    h.pooler = true;
    h.classifier = 1;
  } else if (a.ends_with("ForNextSentencePrediction")) {
    h.pooler = h.nsp = true;
  } else if (a.ends_with("ForCausalLM") || a.ends_with("LMHeadModel")) {
    h.mlm = true;
  } else {
    h.pooler = true;  // *Model (the bare encoder keeps its pooler)
  }
  return h;
}
}  // namespace

Model bert(const Config& c) {
  const std::string type = c.string_or("model_type", "bert");
  const bool roberta = type == "roberta" || type == "xlm-roberta";
  const std::string base = roberta ? "roberta" : "bert";
  ModelBuilder b(type, "bert");
  b.facts().dropouts(0.1, 0.1, 0, 0.1);  // hidden_dropout_prob, attention_probs_dropout_prob
  // BertConfig defaults: vocab_size=30522, hidden_size=768, num_hidden_layers=12,
  // num_attention_heads=12, intermediate_size=3072, hidden_act="gelu", max_position_embeddings=512,
  // type_vocab_size=2, position_embedding_type="absolute", tie_word_embeddings=True.
  // RobertaConfig: vocab_size=50265, otherwise the same. XLMRobertaConfig: vocab_size=30522 (BERT's).
  const int64_t vocab = c.positive_or({"vocab_size"}, type == "roberta" ? 50265 : 30522);
  const int64_t hidden = c.positive_or({"hidden_size"}, 768);
  const int64_t layers = c.positive_or({"num_hidden_layers"}, 12);
  const int64_t heads = c.positive_or({"num_attention_heads"}, 12);
  const int64_t inter = c.positive_or({"intermediate_size"}, 3072);
  const int64_t positions = c.positive_or({"max_position_embeddings"}, 512);
  const int64_t type_vocab = c.count_or({"type_vocab_size"}, 2);
  const std::string act = c.string_or("hidden_act", "gelu");
  const std::string pos_type = c.string_or("position_embedding_type", "absolute");
  const bool tied = c.boolean_or("tie_word_embeddings", true);
  require(hidden % heads == 0, c, "num_attention_heads",
          "hidden_size must be divisible by num_attention_heads.");
  const int64_t head_dim = hidden / heads;
  const Heads h = heads_of(c, roberta);

  b.dims() = Dims{.hidden = hidden, .layers = layers, .heads = heads, .kv_heads = heads,
                  .head_dim = head_dim, .intermediate = inter, .vocab = vocab,
                  .max_positions = positions, .tied_embeddings = tied, .encoder_only = true,
                  .initializer_range = c.number_or("initializer_range", 0.02)};
  if (h.arch.empty() || h.arch.ends_with("ForMaskedLM"))
    b.note(std::string("Head: the published pretraining checkpoint layout (") +
           (roberta ? (type == "roberta" ? "RobertaForMaskedLM" : "XLMRobertaForMaskedLM") + std::string(" weights plus roberta.pooler") : "BertForPreTraining: pooler, "
                      "cls.predictions and cls.seq_relationship") +
           "); a checkpoint saved by transformers' *ForMaskedLM lacks the pooler" +
           (roberta ? "" : " and cls.seq_relationship") + ".");
  b.note("No buffers counted: embeddings.position_ids / token_type_ids are not persistent in "
         "current transformers, and the original checkpoints predate them.");

  const std::string e = base + ".embeddings";
  b.block(e, "embedding");
  token_embedding(b, e + ".word_embeddings", vocab, hidden);
  b.embedding(e + ".position_embeddings", positions, hidden, Role::position_embedding);
  if (type_vocab > 0) b.embedding(e + ".token_type_embeddings", type_vocab, hidden, Role::embedding);
  b.norm(e + ".LayerNorm", hidden, NormKind::layernorm);

  for (int i = 0; i < layers; ++i) {
    const std::string p = base + ".encoder.layer." + std::to_string(i);
    b.block(p, "encoder_layer", i);
    if (pos_type == "relative_key" || pos_type == "relative_key_query")
      relative_position_bias(b, p + ".attention.self.distance_embedding",
                             checked_add(checked_mul(2, positions, "the distance table"), -1, "the distance table"),
                             head_dim);
    residual_layer(b, {.prefix = p, .hidden = hidden, .norm = NormKind::layernorm, .post_norm = true,
                       .attn = {.prefix = p + ".attention", .hidden = hidden, .heads = heads,
                                .kv_heads = heads, .head_dim = head_dim, .q_bias = true,
                                .k_bias = true, .v_bias = true, .o_bias = true, .q = "self.query",
                                .k = "self.key", .v = "self.value", .o = "output.dense",
                                .causal = false},
                       .attn_norm = p + ".attention.output.LayerNorm",
                       .mlp = {.prefix = p, .hidden = hidden, .intermediate = inter, .gated = false,
                               .bias = true, .act = act, .up = "intermediate.dense",
                               .down = "output.dense"},
                       .mlp_norm = p + ".output.LayerNorm"});
  }

  b.block("heads", "final");
  // Every head reads the encoder's output x; NSP and BERT's sequence classifier read the pooled
  // first token.
  const ValueId x = b.cursor();
  ValueId pooled = x;
  if (h.pooler) {
    b.linear(base + ".pooler.dense", hidden, hidden, {.bias = true, .lora = false, .role = Role::head});
    b.activation(base + ".pooler.activation", hidden, "tanh");
    pooled = b.cursor();
  }
  if (h.mlm) {
    b.read(x);
    const std::string m = roberta ? "lm_head" : "cls.predictions";
    const std::string dense = roberta ? m + ".dense" : m + ".transform.dense";
    const std::string norm = roberta ? m + ".layer_norm" : m + ".transform.LayerNorm";
    b.linear(dense, hidden, hidden, {.bias = true, .lora = false, .role = Role::head});
    b.activation(m + ".act", hidden, act);
    b.norm(norm, hidden, NormKind::layernorm, Role::head);
    lm_head(b, m + ".decoder", hidden, vocab, tied ? e + ".word_embeddings.weight" : "");
    // The decoder's bias is the module's own `bias` parameter (decoder.bias aliases it).
    b.model().blocks.back().nodes.back().params += b.tensor(m + ".bias", {vocab}, Role::head);
  }
  if (h.nsp) {
    b.read(pooled);
    b.linear("cls.seq_relationship", hidden, 2, {.bias = true, .lora = false, .role = Role::head});
  }
  if (h.classifier > 0) {
    b.read(h.classifier_mlp ? x : pooled);  // RoBERTa's head reads x[:, 0]; BERT's the pooled output
    if (h.classifier_mlp) {
      b.linear("classifier.dense", hidden, hidden, {.bias = true, .lora = false, .role = Role::head});
      b.linear("classifier.out_proj", hidden, h.classifier, {.bias = true, .lora = false, .role = Role::head});
    } else {
      b.linear("classifier", hidden, h.classifier, {.bias = true, .lora = false, .role = Role::head});
    }
  }
  if (h.token_classifier > 0) {
    b.read(x);
    b.linear("classifier", hidden, h.token_classifier, {.bias = true, .lora = false, .role = Role::head});
  }
  if (h.qa) {
    b.read(x);
    b.linear("qa_outputs", hidden, 2, {.bias = true, .lora = false, .role = Role::head});
  }
  return b.finish();
}

}  // namespace cardfit::families

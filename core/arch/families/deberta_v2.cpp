// DeBERTa-v2 / v3 (transformers models/deberta_v2/modeling_deberta_v2.py): post-norm encoder layers
// with disentangled attention (attention.self.query_proj/key_proj/value_proj, and pos_key_proj
// (c2p) / pos_query_proj (p2c) when share_att_key is false), one relative position table
// encoder.rel_embeddings [2 * (position_buckets > 0 ? position_buckets : max_relative_positions
// (< 1: max_position_embeddings)), hidden] shared by every layer, normalised by encoder.LayerNorm
// when norm_rel_ebd has "layer_norm", an optional ConvLayer after the first layer (conv_kernel_size
// > 0: encoder.conv.conv + encoder.conv.LayerNorm), absolute position embeddings only with
// position_biased_input, embed_proj when embedding_size != hidden_size. Heads by architectures[0]:
// none (the published v3 pretraining checkpoints): lm_predictions.lm_head (dense, LayerNorm, bias;
// decoder = the word embeddings) and the replaced-token-detection head mask_predictions (dense,
// LayerNorm, classifier [1, hidden]) that DeBERTa's own code saves and DebertaV2Model ignores;
// *ForSequenceClassification: pooler.dense + classifier; *ForTokenClassification: classifier;
// *ForQuestionAnswering: qa_outputs; *ForMaskedLM: lm_predictions.lm_head; *Model: none.
#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "../encoders.hpp"
#include "../layers.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
bool has_part(const std::vector<std::string>& parts, const std::string& p) {
  return std::find(parts.begin(), parts.end(), p) != parts.end();
}
// "p2c|c2p" or ["p2c", "c2p"], lower-cased and trimmed as DebertaV2Config does.
std::vector<std::string> split_lower(const Config& c, const std::string& key, const std::string& fallback) {
  std::vector<std::string> out;
  std::string text = fallback;
  if (c.has(key) && c.raw().at(key).is_array()) {
    text.clear();
    for (const auto& s : c.string_list(key)) text += s + "|";
  } else if (c.has(key)) {
    text = c.string_or(key, fallback);
  }
  std::string cur;
  for (char ch : text + "|") {
    if (ch == '|') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (ch != ' ') {
      cur += char(std::tolower(static_cast<unsigned char>(ch)));
    }
  }
  return out;
}
}  // namespace

Model deberta_v2(const Config& c) {
  ModelBuilder b("deberta-v2", "deberta_v2");
  // DebertaV2Config defaults: vocab_size=128100, hidden_size=1536, num_hidden_layers=24,
  // num_attention_heads=24, intermediate_size=6144, hidden_act="gelu", max_position_embeddings=512,
  // type_vocab_size=0, relative_attention=False, max_relative_positions=-1, position_biased_input=True,
  // pos_att_type=None, pooler_hidden_size=hidden_size, position_buckets=-1, share_att_key=False,
  // norm_rel_ebd="none", conv_kernel_size=0, conv_groups=1.
  const int64_t vocab = c.positive_or({"vocab_size"}, 128100);
  const int64_t hidden = c.positive_or({"hidden_size"}, 1536);
  const int64_t layers = c.positive_or({"num_hidden_layers"}, 24);
  const int64_t heads = c.positive_or({"num_attention_heads"}, 24);
  const int64_t inter = c.positive_or({"intermediate_size"}, 6144);
  const int64_t positions = c.positive_or({"max_position_embeddings"}, 512);
  const int64_t type_vocab = c.count_or({"type_vocab_size"}, 0);
  const int64_t embed = c.positive_or({"embedding_size"}, hidden);
  const std::string act = c.string_or("hidden_act", "gelu");
  require(hidden % heads == 0, c, "num_attention_heads", "hidden_size must be divisible by num_attention_heads.");
  const int64_t head_dim = c.positive_or({"attention_head_size"}, hidden / heads);
  const bool relative = c.boolean_or("relative_attention", false);
  const bool biased_input = c.boolean_or("position_biased_input", true);
  const bool share_key = c.boolean_or("share_att_key", false);
  const auto pos_att = split_lower(c, "pos_att_type", "");
  const auto norm_rel = split_lower(c, "norm_rel_ebd", "none");
  const int64_t max_rel_cfg = c.optional_integer({"max_relative_positions"}).value_or(-1);
  const int64_t max_rel = max_rel_cfg < 1 ? positions : max_rel_cfg;
  const int64_t buckets = c.optional_integer({"position_buckets"}).value_or(-1);
  const int64_t rel_rows = 2 * (buckets > 0 ? buckets : max_rel);
  const int64_t conv_kernel = c.count_or({"conv_kernel_size"}, 0);
  const int64_t conv_groups = c.positive_or({"conv_groups"}, 1);
  const int64_t pooler = c.positive_or({"pooler_hidden_size"}, hidden);
  const std::string arch = first_architecture(c);
  b.dims() = Dims{.hidden = hidden, .layers = layers, .heads = heads, .kv_heads = heads, .head_dim = head_dim,
                  .intermediate = inter, .vocab = vocab, .max_positions = positions, .tied_embeddings = true,
                  .encoder_only = true, .initializer_range = c.number_or("initializer_range", 0.02)};

  b.block("deberta.embeddings", "embedding");
  token_embedding(b, "deberta.embeddings.word_embeddings", vocab, embed);
  if (biased_input) b.embedding("deberta.embeddings.position_embeddings", positions, embed, Role::position_embedding);
  if (type_vocab > 0) b.embedding("deberta.embeddings.token_type_embeddings", type_vocab, embed, Role::embedding);
  if (embed != hidden) b.linear("deberta.embeddings.embed_proj", embed, hidden, {.bias = false, .role = Role::embedding});
  b.norm("deberta.embeddings.LayerNorm", hidden, NormKind::layernorm);
  b.set_stream(b.cursor());  // the normed embeddings enter the first layer
  position_ids_buffer(b, c, "deberta.embeddings.position_ids", positions);
  const ValueId embedded = b.cursor();
  ValueId rel = kNoValue;

  for (int i = 0; i < layers; ++i) {
    const std::string p = "deberta.encoder.layer." + std::to_string(i);
    b.block(p, "encoder_layer", i);
    const ValueId stream = b.stream(), cursor = b.cursor();
    if (i == 0 && relative) {
      // encoder.rel_embeddings (+ encoder.LayerNorm): a side input of every layer's disentangled
      // attention, not part of the stream.
      b.reads({});
      b.embedding("deberta.encoder.rel_embeddings", rel_rows, hidden, Role::position_embedding);
      if (has_part(norm_rel, "layer_norm")) b.norm("deberta.encoder.LayerNorm", hidden, NormKind::layernorm);
      rel = b.cursor();
    }
    if (relative && !share_key) {
      b.read(rel);
      // The relative positions' own projections (run on the rel_embeddings rows, not the tokens).
      if (has_part(pos_att, "c2p")) b.linear(p + ".attention.self.pos_key_proj", hidden, heads * head_dim, {.bias = true, .role = Role::attention});
      if (has_part(pos_att, "p2c")) {
        b.read(rel);
        b.linear(p + ".attention.self.pos_query_proj", hidden, heads * head_dim, {.bias = true, .role = Role::attention});
      }
    }
    b.set_stream(stream);
    b.read(cursor);
    residual_layer(b, {.prefix = p, .hidden = hidden, .norm = NormKind::layernorm, .post_norm = true,
                       .attn = {.prefix = p + ".attention", .hidden = hidden, .heads = heads, .kv_heads = heads,
                                .head_dim = head_dim, .q_bias = true, .k_bias = true, .v_bias = true, .o_bias = true,
                                .q = "self.query_proj", .k = "self.key_proj", .v = "self.value_proj",
                                .o = "output.dense", .causal = false},
                       .attn_norm = p + ".attention.output.LayerNorm",
                       .mlp = {.prefix = p, .hidden = hidden, .intermediate = inter, .gated = false, .bias = true,
                               .act = act, .up = "intermediate.dense", .down = "output.dense"},
                       .mlp_norm = p + ".output.LayerNorm"});
    if (i == 0 && conv_kernel > 0) {
      // ConvLayer on the embeddings, added to the first layer's output, then LayerNorm.
      Node conv;
      conv.name = "deberta.encoder.conv.conv";
      conv.op = Op::linear;  // channels / groups × kernel per output token (see audio.cpp conv1d)
      conv.detail = "conv1d";
      conv.linear = LinearKind::patch_conv;
      conv.in = hidden / conv_groups * conv_kernel;
      conv.out = hidden;
      conv.params = b.tensor(conv.name + ".weight", {hidden, hidden / conv_groups, conv_kernel}, Role::other) +
                    b.tensor(conv.name + ".bias", {hidden}, Role::other);
      b.read(embedded);  // ConvLayer reads the embeddings; its output is added to layer 0's
      b.node(conv);
      b.activation("deberta.encoder.conv.act", hidden, c.string_or("conv_act", "tanh"));
      b.residual("deberta.encoder.conv.residual", hidden);
      b.norm("deberta.encoder.conv.LayerNorm", hidden, NormKind::layernorm);
      b.set_stream(b.cursor());
    }
  }

  b.block("heads", "final");
  const ValueId encoded = b.cursor();  // every head reads the encoder's output
  const int64_t labels = num_labels(c, 2);
  const std::string tied = "deberta.embeddings.word_embeddings.weight";
  if (arch.empty() || arch.ends_with("ForMaskedLM")) {
    mlm_head(b, {.in = hidden, .width = embed, .vocab = vocab, .dense = "lm_predictions.lm_head.dense",
                 .norm = "lm_predictions.lm_head.LayerNorm", .decoder = "lm_predictions.lm_head.decoder",
                 .bias = "lm_predictions.lm_head.bias", .act = act, .tied_to = tied, .decoder_module = false});
    if (arch.empty()) {
      b.note("Head: the published DeBERTa-v3 pretraining checkpoint layout (no architectures in its config): "
             "lm_predictions.lm_head and the replaced-token-detection head mask_predictions, both unused by DebertaV2Model.");
      b.read(encoded);
      head_linear(b, "mask_predictions.dense", hidden, hidden);
      b.activation("mask_predictions.act", hidden, act);
      b.norm("mask_predictions.LayerNorm", hidden, NormKind::layernorm, Role::head);
      head_linear(b, "mask_predictions.classifier", hidden, 1);
    }
  } else if (arch.ends_with("ForSequenceClassification") || arch.ends_with("ForMultipleChoice")) {
    head_linear(b, "pooler.dense", pooler, pooler);
    b.activation("pooler.act", pooler, c.string_or("pooler_hidden_act", "gelu"));
    head_linear(b, "classifier", pooler, arch.ends_with("ForMultipleChoice") ? 1 : labels);
  } else if (arch.ends_with("ForTokenClassification")) {
    head_linear(b, "classifier", hidden, labels);
  } else if (arch.ends_with("ForQuestionAnswering")) {
    head_linear(b, "qa_outputs", hidden, 2);
  }
  return b.finish();
}

}  // namespace cardfit::families

// ModernBERT (transformers models/modernbert/modeling_modernbert.py): pre-norm encoder layers with
// bias-free LayerNorms (norm_bias false), a fused Wqkv and Wo (attention_bias), rotary positions
// (inv_freq buffers, not saved), a GLU feed-forward Wi [2 * intermediate, hidden] → act(input) * gate
// → Wo, no attn_norm on layer 0 (nn.Identity), final_norm, and alternating attention: every
// global_attn_every_n_layers-th layer (layer_id % n == 0) global, the others a local window of
// local_attention tokens (±local_attention/2; layer_types when the config lists them). Heads:
// ModernBertForMaskedLM: head.dense, head.norm, decoder (tied to embeddings.tok_embeddings, with its
// bias when decoder_bias); *ForSequenceClassification / *ForTokenClassification: head + classifier.
#include "../encoders.hpp"
#include "../layers.hpp"
#include "families.hpp"

namespace cardfit::families {

Model modernbert(const Config& c) {
  ModelBuilder b("modernbert", "modernbert");
  // ModernBertConfig defaults: vocab_size=50368, hidden_size=768, intermediate_size=1152,
  // num_hidden_layers=22, num_attention_heads=12, hidden_activation="gelu", max_position_embeddings=8192,
  // norm_bias=False, global_attn_every_n_layers=3, local_attention=128, attention_bias=False,
  // mlp_bias=False, decoder_bias=True, classifier_bias=False, tie_word_embeddings=True.
  const int64_t vocab = c.positive_or({"vocab_size"}, 50368);
  const int64_t hidden = c.positive_or({"hidden_size"}, 768);
  const int64_t inter = c.positive_or({"intermediate_size"}, 1152);
  const int64_t layers = c.positive_or({"num_hidden_layers"}, 22);
  const int64_t heads = c.positive_or({"num_attention_heads"}, 12);
  const int64_t positions = c.positive_or({"max_position_embeddings"}, 8192);
  const int64_t every = c.positive_or({"global_attn_every_n_layers"}, 3);
  const int64_t local = c.positive_or({"local_attention"}, 128);
  const std::string act = c.string_or("hidden_activation", "gelu");
  const NormKind norm = c.boolean_or("norm_bias", false) ? NormKind::layernorm : NormKind::layernorm_nobias;
  const bool attn_bias = c.boolean_or("attention_bias", false), mlp_bias = c.boolean_or("mlp_bias", false);
  const bool tied = c.boolean_or("tie_word_embeddings", true);
  require(hidden % heads == 0, c, "num_attention_heads", "hidden_size must be divisible by num_attention_heads.");
  const std::vector<std::string> types = c.string_list("layer_types");
  require(types.empty() || int64_t(types.size()) == layers, c, "layer_types",
          "layer_types lists " + std::to_string(types.size()) + " layers, but num_hidden_layers is " +
              std::to_string(layers) + ".");
  const std::string arch = first_architecture(c);
  b.dims() = Dims{.hidden = hidden, .layers = layers, .heads = heads, .kv_heads = heads, .head_dim = hidden / heads,
                  .intermediate = inter, .vocab = vocab, .max_positions = positions, .sliding_window = local,
                  .tied_embeddings = tied, .encoder_only = true,
                  .initializer_range = c.number_or("initializer_range", 0.02)};
  b.note("Local layers attend to a window of " + std::to_string(local) + " tokens around each token; the planner "
         "sizes bidirectional attention by the whole sequence (an overestimate of their FLOPs, not of the weights).");

  b.block("model.embeddings", "embedding");
  token_embedding(b, "model.embeddings.tok_embeddings", vocab, hidden);
  b.norm("model.embeddings.norm", hidden, norm);
  b.set_stream(b.cursor());
  for (int i = 0; i < layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    b.block(p, "encoder_layer", i);
    const bool global = types.empty() ? i % every == 0 : types[size_t(i)] == "full_attention";
    residual_layer(b, {.prefix = p, .hidden = hidden, .norm = norm,
                       .attn = {.prefix = p + ".attn", .hidden = hidden, .heads = heads, .kv_heads = heads,
                                .head_dim = hidden / heads, .o_bias = attn_bias, .o = "Wo", .fused_qkv = "Wqkv",
                                .fused_bias = attn_bias, .window = global ? 0 : local, .causal = false},
                       .attn_norm = i == 0 ? "" : p + ".attn_norm",
                       .mlp = {.prefix = p + ".mlp", .hidden = hidden, .intermediate = inter, .gated = true,
                               .bias = mlp_bias, .act = act, .down = "Wo", .fused_gate_up = "Wi"},
                       .mlp_norm = p + ".mlp_norm"});
  }
  b.block("final", "final");
  b.norm("model.final_norm", hidden, norm);
  const bool cls_bias = c.boolean_or("classifier_bias", false);
  if (arch.empty() || arch.ends_with("ForMaskedLM")) {
    mlm_head(b, {.in = hidden, .width = hidden, .vocab = vocab, .dense = "head.dense", .norm = "head.norm",
                 .decoder = "decoder", .dense_bias = cls_bias, .decoder_bias = c.boolean_or("decoder_bias", true),
                 .norm_kind = norm, .act = c.string_or("classifier_activation", act),
                 .tied_to = tied ? "model.embeddings.tok_embeddings.weight" : ""});
  } else if (arch.ends_with("ForSequenceClassification") || arch.ends_with("ForTokenClassification")) {
    head_linear(b, "head.dense", hidden, hidden, cls_bias);
    b.activation("head.act", hidden, c.string_or("classifier_activation", act));
    b.norm("head.norm", hidden, norm, Role::head);
    head_linear(b, "classifier", hidden, num_labels(c, 2));
  }
  return b.finish();
}

}  // namespace cardfit::families

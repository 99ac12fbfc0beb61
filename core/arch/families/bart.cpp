// BART (transformers models/bart/modeling_bart.py): an encoder-decoder with one shared embedding
// (model.encoder/decoder.embed_tokens tied to model.shared), learned positions with 2 extra rows
// per stack, layernorm_embedding after the embeddings, post-norm layers with biases everywhere,
// decoder cross-attention (encoder_attn), lm_head tied to model.shared and the final_logits_bias
// buffer [1, vocab] that BartForConditionalGeneration registers and checkpoints store. Names as
// in BartForConditionalGeneration (the convention, also for configs naming BartModel);
// BartForSequenceClassification gets its classification_head instead of the LM head.
#include <string>

#include "../layers.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
struct BartStack {
  std::string name;   // "model.encoder"
  int64_t layers, heads, ffn;
  bool decoder;
};
}  // namespace

Model bart(const Config& c) {
  ModelBuilder b("bart", "bart");
  b.facts().dropouts(0.1, 0, 0, 0.1);  // BartConfig dropout; attention/activation_dropout 0
  // BartConfig defaults: vocab_size=50265, max_position_embeddings=1024, encoder/decoder_layers=12,
  // encoder/decoder_ffn_dim=4096, encoder/decoder_attention_heads=16, d_model=1024,
  // activation_function="gelu", tie_word_embeddings=True.
  const int64_t vocab = c.positive_or({"vocab_size"}, 50265);
  const int64_t d = c.positive_or({"d_model"}, 1024);
  const int64_t positions = c.positive_or({"max_position_embeddings"}, 1024);
  const std::string act = c.string_or("activation_function", "gelu");
  const bool tied = c.boolean_or("tie_word_embeddings", true);
  const BartStack enc{"model.encoder", c.positive_or({"encoder_layers"}, 12),
                      c.positive_or({"encoder_attention_heads"}, 16), c.positive_or({"encoder_ffn_dim"}, 4096),
                      false};
  const BartStack dec{"model.decoder", c.positive_or({"decoder_layers"}, 12),
                      c.positive_or({"decoder_attention_heads"}, 16), c.positive_or({"decoder_ffn_dim"}, 4096),
                      true};
  require(d % enc.heads == 0, c, "encoder_attention_heads", "d_model must be divisible by encoder_attention_heads.");
  require(d % dec.heads == 0, c, "decoder_attention_heads", "d_model must be divisible by decoder_attention_heads.");
  const auto archs = c.has("architectures") ? c.string_list("architectures") : std::vector<std::string>{};
  const bool classify = !archs.empty() && archs.front() == "BartForSequenceClassification";
  const int64_t labels = num_labels(c, 3);

  b.dims() = Dims{.hidden = d, .layers = enc.layers, .heads = enc.heads, .kv_heads = enc.heads,
                  .head_dim = d / enc.heads, .intermediate = enc.ffn, .vocab = vocab,
                  .max_positions = positions, .tied_embeddings = tied, .encoder_decoder = true,
                  .initializer_range = c.number_or("init_std", 0.02)};
  b.note("Dims.layers counts encoder layers; the decoder has " + std::to_string(dec.layers) + ".");

  b.block("model.shared", "embedding");
  token_embedding(b, "model.shared", vocab, d);
  const ValueId tokens = b.cursor();  // each stack adds its positions to the shared embedding
  ValueId encoder_out = kNoValue;
  for (const BartStack& s : {enc, dec}) {
    const int64_t head_dim = d / s.heads;
    if (s.decoder) {
      encoder_out = b.stream();
      b.sequence(Sequence::target);  // the decoder and the heads run over the target tokens
    }
    b.set_stream(tokens);
    b.block(s.name + ".embeddings", "embedding");
    b.tied(s.name + ".embed_tokens.weight", {vocab, d}, "model.shared.weight", Role::embedding);
    learned_positions(b, s.name + ".embed_positions", positions, d, 2);
    b.norm(s.name + ".layernorm_embedding", d, NormKind::layernorm);
    for (int i = 0; i < s.layers; ++i) {
      const std::string p = s.name + ".layers." + std::to_string(i);
      b.block(p, s.decoder ? "decoder_layer" : "encoder_layer", int(s.decoder ? enc.layers + i : i));
      AttentionSpec attn{.prefix = p + ".self_attn", .hidden = d, .heads = s.heads, .kv_heads = s.heads,
                         .head_dim = head_dim, .q_bias = true, .k_bias = true, .v_bias = true,
                         .o_bias = true, .o = "out_proj", .causal = s.decoder};
      ResidualLayerSpec l{.prefix = p, .hidden = d, .norm = NormKind::layernorm, .post_norm = true,
                          .attn = attn, .attn_norm = p + ".self_attn_layer_norm",
                          .mlp = {.prefix = p, .hidden = d, .intermediate = s.ffn, .gated = false,
                                  .bias = true, .act = act, .up = "fc1", .down = "fc2"},
                          .mlp_norm = p + ".final_layer_norm"};
      if (s.decoder) {
        l.has_cross = true;
        l.cross = attn;
        l.cross.prefix = p + ".encoder_attn";
        l.cross.causal = false;
        l.cross.cross = true;
        l.cross.kv_source = encoder_out;
        l.cross_norm = p + ".encoder_attn_layer_norm";
      }
      residual_layer(b, l);
    }
  }
  b.block("heads", "final");
  if (classify) {
    const LinearSpec head{.bias = true, .lora = false, .role = Role::head};
    b.linear("classification_head.dense", d, d, head);
    b.linear("classification_head.out_proj", d, labels, head);
  } else {
    lm_head(b, "lm_head", d, vocab, tied ? "model.shared.weight" : "");
    b.buffer("final_logits_bias", {1, vocab});
  }
  return b.finish();
}

}  // namespace cardfit::families

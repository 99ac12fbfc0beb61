// T5 (transformers models/t5/modeling_t5.py; T5 v1.0, T5 v1.1, Flan-T5): an encoder-decoder with
// one shared embedding (encoder.embed_tokens and decoder.embed_tokens tied to it), pre-norm
// RMS-style T5LayerNorm (weight only), no biases anywhere, a bucketed relative attention bias held
// by the first block of each stack, decoder cross-attention (EncDecAttention), a plain
// (wi, wo) or gated (wi_0, wi_1, wo: "gated-gelu"/"gated-silu") feed-forward, and lm_head tied to
// shared or not per tie_word_embeddings. Names as in T5ForConditionalGeneration
// (T5EncoderModel: the shared embedding and the encoder only).
#include <string>

#include "../layers.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
struct T5Shape {
  int64_t vocab, d_model, d_kv, d_ff, heads, buckets;
  bool gated;
  std::string act;
};

// One stack; the decoder's cross attention reads `encoder_out`, the encoder's final output.
void t5_stack(ModelBuilder& b, const T5Shape& s, const std::string& stack, int64_t layers, bool decoder,
              int layer_base, ValueId encoder_out = kNoValue) {
  for (int i = 0; i < layers; ++i) {
    const std::string p = stack + ".block." + std::to_string(i);
    b.block(p, decoder ? "decoder_layer" : "encoder_layer", layer_base + i);
    const std::string self = p + ".layer.0.SelfAttention";
    if (i == 0) relative_position_bias(b, self + ".relative_attention_bias", s.buckets, s.heads);
    const std::string ff = p + ".layer." + (decoder ? "2" : "1");
    ResidualLayerSpec l{
        .prefix = p, .hidden = s.d_model, .norm = NormKind::rmsnorm,
        .attn = {.prefix = self, .hidden = s.d_model, .heads = s.heads, .kv_heads = s.heads,
                 .head_dim = s.d_kv, .q = "q", .k = "k", .v = "v", .o = "o", .causal = decoder},
        .attn_norm = p + ".layer.0.layer_norm",
        .mlp = {.prefix = ff + ".DenseReluDense", .hidden = s.d_model, .intermediate = s.d_ff,
                .gated = s.gated, .act = s.act, .gate = "wi_0", .up = s.gated ? "wi_1" : "wi",
                .down = "wo"},
        .mlp_norm = ff + ".layer_norm"};
    if (decoder) {
      l.has_cross = true;
      l.cross = {.prefix = p + ".layer.1.EncDecAttention", .hidden = s.d_model, .heads = s.heads,
                 .kv_heads = s.heads, .head_dim = s.d_kv, .q = "q", .k = "k", .v = "v", .o = "o",
                 .causal = false, .cross = true, .kv_source = encoder_out};
      l.cross_norm = p + ".layer.1.layer_norm";
    }
    residual_layer(b, l);
  }
  b.block(stack + ".final_layer_norm", "final");
  b.norm(stack + ".final_layer_norm", s.d_model, NormKind::rmsnorm);
}
}  // namespace

Model t5(const Config& c) {
  // mT5 (MT5Config) has T5's structure and defaults except tie_word_embeddings=False.
  const std::string type = c.string_or("model_type", "t5");
  ModelBuilder b(type, "t5");
  b.facts().dropouts(0.1, 0.1, 0.1, 0.1);  // T5Config dropout_rate, applied everywhere
  b.facts().dropout_option_sets_activation = true;
  // T5Config defaults: vocab_size=32128, d_model=512, d_kv=64, d_ff=2048, num_layers=6,
  // num_decoder_layers=None (num_layers), num_heads=8, relative_attention_num_buckets=32,
  // feed_forward_proj="relu" ("gated-gelu" → gated, act gelu_new), tie_word_embeddings=True.
  T5Shape s;
  s.vocab = c.positive_or({"vocab_size"}, 32128);
  s.d_model = c.positive_or({"d_model"}, 512);
  s.d_kv = c.positive_or({"d_kv"}, 64);
  s.d_ff = c.positive_or({"d_ff"}, 2048);
  s.heads = c.positive_or({"num_heads"}, 8);
  s.buckets = c.positive_or({"relative_attention_num_buckets"}, 32);
  const int64_t enc_layers = c.positive_or({"num_layers"}, 6);
  const int64_t dec_layers = c.positive_or({"num_decoder_layers"}, enc_layers);
  const std::string proj = c.string_or("feed_forward_proj", "relu");
  s.gated = proj.rfind("gated-", 0) == 0;
  s.act = s.gated ? proj.substr(6) : proj;
  if (s.act == "gelu") s.act = "gelu_new";  // T5Config: "gated-gelu" means gelu_new
  const bool tied = c.boolean_or("tie_word_embeddings", type != "mt5");
  const auto archs = c.has("architectures") ? c.string_list("architectures") : std::vector<std::string>{};
  const bool encoder_only = !archs.empty() && archs.front() == "T5EncoderModel";

  b.dims() = Dims{.hidden = s.d_model, .layers = enc_layers, .heads = s.heads, .kv_heads = s.heads,
                  .head_dim = s.d_kv, .intermediate = s.d_ff, .vocab = s.vocab,
                  .max_positions = c.count_or({"n_positions"}, 0), .tied_embeddings = tied,
                  .encoder_decoder = !encoder_only, .encoder_only = encoder_only};
  b.note("Dims.layers counts encoder blocks; the decoder has " + std::to_string(dec_layers) +
         ". Relative position buckets: no absolute position limit.");

  b.block("shared", "embedding");
  token_embedding(b, "shared", s.vocab, s.d_model);
  const ValueId embedded = b.cursor();
  b.tied("encoder.embed_tokens.weight", {s.vocab, s.d_model}, "shared.weight", Role::embedding);
  t5_stack(b, s, "encoder", enc_layers, false, 0);
  if (encoder_only) return b.finish();
  const ValueId encoder_out = b.cursor();
  // The decoder runs over the target tokens, embedded by the same shared table.
  b.sequence(Sequence::target);
  b.set_stream(embedded);
  b.block("decoder.embed_tokens", "embedding");
  b.tied("decoder.embed_tokens.weight", {s.vocab, s.d_model}, "shared.weight", Role::embedding);
  t5_stack(b, s, "decoder", dec_layers, true, int(enc_layers), encoder_out);
  lm_head(b, "lm_head", s.d_model, s.vocab, tied ? "shared.weight" : "");
  return b.finish();
}

}  // namespace cardfit::families

// Whisper (transformers models/whisper/modeling_whisper.py, WhisperForConditionalGeneration): the
// audio encoder (audio.hpp whisper_encoder: two Conv1d over num_mel_bins log-mel frames, a frozen
// sinusoidal position table of max_source_positions rows, pre-norm layers whose k_proj has no
// bias), and a pre-norm text decoder under model.decoder: embed_tokens, a learned position table
// embed_positions [max_target_positions, d_model], layers of self-attention, cross-attention
// (encoder_attn, over the encoder's frames) and fc1/fc2, layer_norm; proj_out tied to embed_tokens.
// Planned at Whisper's fixed input: every sample is padded to 30 s (3000 mel frames, 1500 encoder
// frames); seq is the decoder's token count (its context: max_target_positions, 448).
#include "../audio.hpp"
#include "../layers.hpp"
#include "families.hpp"

namespace cardfit::families {

Model whisper(const Config& c) {
  ModelBuilder b("whisper", "whisper");
  // WhisperConfig defaults: vocab_size=51865, num_mel_bins=80, encoder/decoder_layers=4,
  // encoder/decoder_attention_heads=6, encoder/decoder_ffn_dim=1536, d_model=384,
  // activation_function="gelu", max_source_positions=1500, max_target_positions=448,
  // tie_word_embeddings=True.
  const int64_t vocab = c.positive_or({"vocab_size"}, 51865);
  const int64_t d = c.positive_or({"d_model"}, 384);
  const std::string act = c.string_or("activation_function", "gelu");
  const WhisperEncoderSpec enc{.prefix = "model.encoder", .mels = c.positive_or({"num_mel_bins"}, 80), .hidden = d,
                               .layers = c.positive_or({"encoder_layers"}, 4),
                               .heads = c.positive_or({"encoder_attention_heads"}, 6),
                               .ffn = c.positive_or({"encoder_ffn_dim"}, 1536),
                               .frames = c.positive_or({"max_source_positions"}, 1500), .act = act};
  const int64_t dec_layers = c.positive_or({"decoder_layers"}, 4);
  const int64_t dec_heads = c.positive_or({"decoder_attention_heads"}, 6);
  const int64_t dec_ffn = c.positive_or({"decoder_ffn_dim"}, 1536);
  const int64_t target = c.positive_or({"max_target_positions"}, 448);
  const bool tied = c.boolean_or("tie_word_embeddings", true);
  require(d % enc.heads == 0, c, "encoder_attention_heads", "d_model must be divisible by encoder_attention_heads.");
  require(d % dec_heads == 0, c, "decoder_attention_heads", "d_model must be divisible by decoder_attention_heads.");
  b.dims() = Dims{.hidden = d, .layers = enc.layers, .heads = dec_heads, .kv_heads = dec_heads,
                  .head_dim = d / dec_heads, .intermediate = dec_ffn, .vocab = vocab, .max_positions = target,
                  .tied_embeddings = tied, .encoder_decoder = true, .initializer_range = c.number_or("init_std", 0.02)};
  b.note("Dims.layers counts encoder layers; the decoder has " + std::to_string(dec_layers) + ".");
  b.note("Audio: every sample is one 30 s window (Whisper pads shorter audio): 2 x " + std::to_string(enc.frames) +
         " mel frames into conv1, " + std::to_string(enc.frames) + " encoder frames; seq is the decoder's tokens.");
  b.note("model.encoder.embed_positions is a frozen sinusoidal table (requires_grad False); it is planned as a "
         "trainable weight in a full fine-tune (an overestimate of " + std::to_string(enc.frames * d) +
         " parameters' gradient and optimizer state).");

  whisper_encoder(b, enc);
  const ValueId encoder_out = b.cursor();  // the encoder's layer_norm: what every cross-attention reads
  b.sequence(Sequence::target);
  b.restart();
  b.block("model.decoder.embeddings", "embedding");
  token_embedding(b, "model.decoder.embed_tokens", vocab, d);
  learned_positions(b, "model.decoder.embed_positions", target, d);
  for (int i = 0; i < dec_layers; ++i) {
    const std::string l = "model.decoder.layers." + std::to_string(i);
    b.block(l, "decoder_layer", int(enc.layers + i));
    AttentionSpec self{.prefix = l + ".self_attn", .hidden = d, .heads = dec_heads, .kv_heads = dec_heads,
                       .head_dim = d / dec_heads, .q_bias = true, .k_bias = false, .v_bias = true, .o_bias = true,
                       .o = "out_proj", .causal = true};
    ResidualLayerSpec spec{.prefix = l, .hidden = d, .norm = NormKind::layernorm, .attn = self,
                           .attn_norm = l + ".self_attn_layer_norm", .has_cross = true, .cross = self,
                           .cross_norm = l + ".encoder_attn_layer_norm",
                           .mlp = {.prefix = l, .hidden = d, .intermediate = dec_ffn, .gated = false, .bias = true,
                                   .act = act, .up = "fc1", .down = "fc2"},
                           .mlp_norm = l + ".final_layer_norm"};
    spec.cross.prefix = l + ".encoder_attn";
    spec.cross.causal = false;
    spec.cross.cross = true;
    spec.cross.kv_source = encoder_out;
    residual_layer(b, spec);
    // The cross-attention attends to (and caches K/V of) the encoder's frames, not the text.
    for (auto& n : b.model().blocks.back().nodes)
      if (n.op == Op::attention && n.attn.cross) n.attn.context = enc.frames;
  }
  b.block("model.decoder.final", "final");
  b.norm("model.decoder.layer_norm", d, NormKind::layernorm);
  lm_head(b, "proj_out", d, vocab, tied ? "model.decoder.embed_tokens.weight" : "");
  return b.finish();
}

}  // namespace cardfit::families

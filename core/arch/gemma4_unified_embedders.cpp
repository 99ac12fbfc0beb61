// Gemma 4 unified's encoder-free vision and audio embedders (see gemma4_unified_embedders.hpp).
#include "gemma4_unified_embedders.hpp"

#include "audio_clip.hpp"
#include "vision.hpp"

namespace cardfit {

namespace {
// Gemma4UnifiedMultimodalEmbedder: embedding_pre_projection_norm (RMSNorm with_scale=False, no
// weight) → embedding_projection (no bias).
void projection(ModelBuilder& b, const std::string& p, int64_t in, int64_t text_hidden) {
  b.node({.name = p + ".embedding_pre_projection_norm", .op = Op::other, .detail = "rmsnorm_noscale", .in = in, .out = in});
  b.linear(p + ".embedding_projection", in, text_hidden, {.role = Role::projector});
}
}  // namespace

void gemma4_unified_vision(ModelBuilder& b, const Gemma4UnifiedVisionSpec& s, int64_t text_hidden) {
  const std::string p = "model.vision_embedder.";
  const int64_t side = checked_mul(s.patch, s.pool, "model_patch_size");
  const int64_t pixels = checked_mul(3, checked_mul(side, side, "model_patch_size²"), "patch pixels");
  b.restart();  // raw merged pixel patches from the image processor
  vision_block(b, "model.vision_embedder", "vision_embedding", s.soft_tokens, s.embed);
  b.reads({});
  b.norm(p + "patch_ln1", pixels, NormKind::layernorm, Role::vision);
  b.linear(p + "patch_dense", pixels, s.embed, {.bias = true, .role = Role::vision});
  b.norm(p + "patch_ln2", s.embed, NormKind::layernorm, Role::vision);
  const std::string table = p + "pos_embedding";
  b.node({.name = table, .op = Op::position_embedding, .in = s.embed, .out = s.embed,
          .params = b.tensor(table, {s.posemb, 2, s.embed}, Role::vision)});
  b.norm(p + "pos_norm", s.embed, NormKind::layernorm, Role::vision);
  b.set_stream(b.cursor());  // the projector block starts from pos_norm's output
  vision_block(b, "model.embed_vision", "projector", s.soft_tokens, s.out);
  projection(b, "model.embed_vision", s.out, text_hidden);
}

Gemma4UnifiedVisionSpec read_gemma4_unified_vision(const Config& v) {
  Gemma4UnifiedVisionSpec s;
  s.patch = v.positive_or({"patch_size"}, s.patch);
  s.pool = v.positive_or({"pooling_kernel_size"}, s.pool);
  s.embed = v.positive_or({"mm_embed_dim"}, s.embed);
  s.posemb = v.positive_or({"mm_posemb_size"}, s.posemb);
  s.out = v.positive_or({"output_proj_dims"}, s.out);
  s.soft_tokens = v.positive_or({"num_soft_tokens"}, s.soft_tokens);
  // Gemma4UnifiedVisionConfig's model_patch_size setter raises unless it is patch_size · pooling_kernel_size.
  require(!v.has("model_patch_size") || v.positive({"model_patch_size"}) == s.patch * s.pool, v, "model_patch_size",
          "vision_config.model_patch_size must equal patch_size * pooling_kernel_size.");
  // The projection reads pos_norm's output (mm_embed_dim wide) through a norm and a linear of output_proj_dims.
  require(s.out == s.embed, v, "output_proj_dims", "vision_config.output_proj_dims must equal mm_embed_dim.");
  return s;
}

void gemma4_unified_audio(ModelBuilder& b, int64_t samples, int64_t text_hidden) {
  // Gemma4UnifiedAudioFeatureExtractor: the 16 kHz waveform cut into frames of audio_samples_per_token
  // samples, the last one padded, and no cut at any length (max_length None): 25 tokens a second
  // for its 640. A frame that does not divide a second is not proportional to seconds: unsized.
  constexpr int64_t kRate = 16000, kSeconds = 30;  // the traced default clip, as Gemma 4's tower
  AudioClip& clip = b.model().audio;
  clip.rule = kRate % samples == 0 ? AudioClip::Rule::per_second : AudioClip::Rule::unsized;
  if (clip.rule == AudioClip::Rule::per_second) {
    clip.seconds = kSeconds;
    clip.tokens_per_second = kRate / samples;
  }
  b.restart();  // raw waveform frames
  vision_block(b, "model.embed_audio", "projector", audio_clip_tokens(clip, clip.seconds), samples, Domain::audio);
  b.reads({});
  projection(b, "model.embed_audio", samples, text_hidden);
  if (clip.rule == AudioClip::Rule::per_second) b.note(audio_clip_note(clip, clip.seconds));
}

int64_t read_gemma4_unified_audio(const Config& a) {
  const int64_t samples = a.positive_or({"audio_embed_dim"}, 640);
  for (const char* alias : {"hidden_size", "output_proj_dims", "audio_samples_per_token"})  // setters of audio_embed_dim
    require(!a.has(alias) || a.positive({alias}) == samples, a, alias,
            std::string("audio_config.") + alias + " is an alias of audio_embed_dim and must equal it.");
  return samples;
}

}  // namespace cardfit

// See audio_clip.hpp.
#include "audio_clip.hpp"

#include "../error.hpp"
#include "qwen3_omni.hpp"

namespace cardfit {

namespace {
int64_t frames_of(const AudioClip& c, int64_t seconds) { return checked_mul(seconds, c.frames_per_second, "audio frames"); }
}  // namespace

// Qwen3OmniMoeAudioEncoder.forward: the frames cut into chunks of chunk_frames (the last one
// shorter) and padded to one length for the three Conv2d; the tokens kept are each chunk's own
// output length (_get_feat_extract_output_lengths: 13 per 100-frame chunk, plus the remainder's).
int64_t audio_clip_chunks(const AudioClip& c, int64_t seconds) {
  if (c.rule != AudioClip::Rule::chunked) return 0;
  const int64_t f = frames_of(c, seconds);
  return f / c.chunk_frames + (f % c.chunk_frames ? 1 : 0);
}

namespace {
// What every audio position count of a rescaling tower is a whole multiple of: its padded chunks,
// or (per_second) its seconds.
int64_t clip_units(const AudioClip& c, int64_t seconds) {
  return c.rule == AudioClip::Rule::per_second ? seconds : audio_clip_chunks(c, seconds);
}
}  // namespace

// per_second (Gemma 4): Gemma4AudioFeatureExtractor makes (samples − 161) // 160 + 1 frames, 100 S − 1
// for S whole seconds at 16 kHz, and the two stride-2 convs keep ceil(frames / 4) = 25 S.
int64_t audio_clip_tokens(const AudioClip& c, int64_t seconds) {
  if (c.rule == AudioClip::Rule::per_second) return checked_mul(seconds, c.tokens_per_second, "audio tokens");
  if (c.rule != AudioClip::Rule::chunked) return 0;
  const int64_t f = frames_of(c, seconds), rest = f % c.chunk_frames;
  return checked_add(checked_mul(f / c.chunk_frames, omni_audio_chunk_tokens(c.chunk_frames), "audio tokens"),
                     rest ? omni_audio_chunk_tokens(rest) : 0, "audio tokens");
}

std::string audio_clip_note(const AudioClip& c, int64_t seconds) {
  const std::string s = std::to_string(seconds);
  if (c.rule == AudioClip::Rule::per_second)
    return "Audio: every sample carries one " + s + " s clip through the audio tower (" +
           std::to_string(audio_clip_tokens(c, seconds)) + " tokens, " + std::to_string(c.tokens_per_second) +
           " a second" + (c.max_seconds > 0 ? ", at most " + std::to_string(c.max_seconds) + " s" : "") +
           "); its tokens are not added to seq. audio_seconds sets the length.";
  if (c.rule != AudioClip::Rule::chunked) return {};
  return "Audio: every sample carries one " + s + " s clip through the audio tower (" +
         std::to_string(frames_of(c, seconds)) + " mel frames in " + std::to_string(audio_clip_chunks(c, seconds)) +
         " padded chunks of " + std::to_string(c.chunk_frames) + ", " + std::to_string(audio_clip_tokens(c, seconds)) +
         " encoder tokens, attention within windows of " + std::to_string(c.window_chunks) +
         " chunks); its tokens are not added to seq. audio_seconds sets the length.";
}

Model with_audio_seconds(const Model& m, int64_t seconds) {
  const AudioClip& c = m.audio;
  if (!c.sized_by_seconds()) return m;  // a fixed window pads every clip to itself
  Model r = m;
  r.audio.seconds = seconds;
  const int64_t was_units = clip_units(c, c.seconds), units = clip_units(c, seconds);
  const int64_t was_tokens = audio_clip_tokens(c, c.seconds), tokens = audio_clip_tokens(c, seconds);
  for (Block& b : r.blocks) {
    if (b.domain != Domain::audio || holds_weights_only(b)) continue;  // the talker's parked blocks
    if (b.tokens_per_image != was_tokens) throw Error(ErrorCode::internal, "audio block " + b.name + " is not sized by its clip");
    b.tokens_per_image = tokens;
    for (Node& n : b.nodes) {
      if (n.tokens_per_image <= 0) continue;
      if (n.tokens_per_image % was_units) throw Error(ErrorCode::internal, "audio node " + n.name + " is not per clip unit");
      n.tokens_per_image = checked_mul(n.tokens_per_image / was_units, units, "audio positions");
    }
  }
  const std::string was = audio_clip_note(c, c.seconds);
  for (std::string& note : r.notes)
    if (note == was) note = audio_clip_note(r.audio, seconds);
  r.cost_class = block_cost_classes(r);
  return r;
}

}  // namespace cardfit

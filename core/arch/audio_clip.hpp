// How seconds of audio per sample size a traced Model's audio tower (option audio_seconds): the
// tokens of the rule the family recorded (Model::audio), the note that states it, and a copy of
// the Model rescaled to another length. Not the towers themselves (audio.hpp, qwen3_omni.hpp).
#pragma once
#include <string>

#include "../model.hpp"

namespace cardfit {

/// Encoder tokens of one sample of `seconds` under a rescaling `clip` (0 for the other rules).
int64_t audio_clip_tokens(const AudioClip& clip, int64_t seconds);
/// chunked: the padded conv chunks of one sample of `seconds` (the last chunk padded to the others).
int64_t audio_clip_chunks(const AudioClip& clip, int64_t seconds);
/// The note the Model carries about its audio at `seconds` (empty for the rules that do not rescale).
std::string audio_clip_note(const AudioClip& clip, int64_t seconds);
/// A rescaling tower's `m` with its audio blocks holding `seconds` per sample (each position count
/// scaled by the clip's units: padded chunks, or seconds), cost classes derived again; any other
/// model as it is (a fixed window plans the same for every clip it takes; the
/// lengths a tower refuses are refused by plan/validate.hpp first).
Model with_audio_seconds(const Model& m, int64_t seconds);

}  // namespace cardfit

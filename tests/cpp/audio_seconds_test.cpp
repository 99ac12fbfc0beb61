// Option audio_seconds (arch/audio_clip.hpp): seconds of audio per sample size an audio tower by
// the rule its family recorded; checked against token counts worked out by hand from the modeling
// code, and through the Planner (the rescaled Model and the memory cache of one text).
#include <catch2/catch.hpp>

#include "arch/audio_clip.hpp"
#include "plan/cards.hpp"
#include "plan/memory.hpp"
#include "test_util.hpp"

namespace audio_seconds_test {

using namespace cardfit;
using json = nlohmann::json;

namespace {
const Node& node_named(const Model& m, const std::string& name) {
  for (const auto& b : m.blocks)
    for (const auto& n : b.nodes)
      if (n.name == name) return n;
  FAIL("no node " << name);
  return m.blocks.front().nodes.front();
}
int64_t encoder_tokens(const Model& m) {
  for (const auto& b : m.blocks)
    if (b.domain == Domain::audio && b.kind == "encoder_layer") return b.tokens_per_image;
  FAIL("no audio encoder layer");
  return 0;
}
json components(const json& report) { return report.at("plan").at("components"); }
}  // namespace

TEST_CASE("Qwen3-Omni: audio_seconds sizes the audio tower by its padded chunks and kept tokens", "[audio]") {
  const Model m = trace_golden("qwen3-omni-30b-a3b-instruct.json");
  REQUIRE(m.audio.rule == AudioClip::Rule::chunked);
  CHECK(m.audio.seconds == 30);
  CHECK(m.audio.chunk_frames == 100);  // 2 × n_window 50
  // _get_feat_extract_output_lengths: 13 tokens per 100-frame chunk (100 → 50 → 25 → 13), 100 frames a second.
  CHECK(audio_clip_tokens(m.audio, 10) == 130);
  CHECK(audio_clip_tokens(m.audio, 30) == 390);
  CHECK(audio_clip_tokens(m.audio, 60) == 780);
  CHECK(encoder_tokens(m) == 390);
  // A chunk that does not divide the frames: 1000 frames in chunks of 160 are 6 whole (20 tokens each:
  // 160 → 80 → 40 → 20) and a padded tail of 40 frames keeping 5 (40 → 20 → 10 → 5).
  AudioClip odd = m.audio;
  odd.chunk_frames = 160;
  CHECK(audio_clip_chunks(odd, 10) == 7);
  CHECK(audio_clip_tokens(odd, 10) == 6 * 20 + 5);

  const Model ten = with_audio_seconds(m, 10);
  CHECK(ten.audio.seconds == 10);
  CHECK(encoder_tokens(ten) == 130);
  // conv2d1 runs over every padded chunk: 128 mel bins → 64, 100 frames → 50 per chunk.
  CHECK(node_named(m, "thinker.audio_tower.conv2d1").tokens_per_image == 30 * 64 * 50);
  CHECK(node_named(ten, "thinker.audio_tower.conv2d1").tokens_per_image == 10 * 64 * 50);
  bool noted = false;
  for (const auto& n : ten.notes) noted = noted || n.find("one 10 s clip") != std::string::npos;
  CHECK(noted);
  CHECK(ten.tensors.size() == m.tensors.size());  // the weights are the same

  // Through the Planner: what the forward keeps for backward follows the length; asking the traced
  // length is the default plan; the cache of one text answers each length as it was first planned.
  const std::string config = golden_file("qwen3-omni-30b-a3b-instruct.json").at("config").dump();
  auto activations = [&](const json& options) {
    const json r = plan(config, options);
    REQUIRE(r.at("ok") == true);
    return int64_t(r.at("plan").at("phases").at("forward_end"));
  };
  const json base = {{"mode", "full"}, {"batch", 1}};
  json o10 = base, o30 = base, o60 = base;
  o10["audio_seconds"] = 10;
  o30["audio_seconds"] = 30;
  o60["audio_seconds"] = 60;
  const int64_t a10 = activations(o10), a30 = activations(o30), a60 = activations(o60);
  CHECK(a10 < a30);
  CHECK(a30 < a60);
  CHECK(a30 == activations(base));
  CHECK(activations(o10) == a10);
  // The text-only thinker has no audio tower: the option changes nothing.
  const std::string text = golden_file("qwen3-omni-30b-a3b-instruct-text.json").at("config").dump();
  CHECK(components(plan(text, o60)) == components(plan(text, base)));
}

TEST_CASE("Whisper: one 30 s window whatever the clip, and a longer one refused", "[audio]") {
  const Model m = trace_golden("whisper-large-v3-turbo.json");
  REQUIRE(m.audio.rule == AudioClip::Rule::fixed_window);
  CHECK(m.audio.max_seconds == 30);  // 2 × max_source_positions 1500 mel frames at 100 a second
  const std::string config = golden_file("whisper-large-v3-turbo.json").at("config").dump();
  const json base = plan(config, {{"mode", "full"}});
  REQUIRE(base.at("ok") == true);
  for (int seconds : {1, 10, 30}) {
    INFO(seconds);
    const json r = plan(config, {{"mode", "full"}, {"audio_seconds", seconds}});
    REQUIRE(r.at("ok") == true);
    CHECK(components(r) == components(base));  // padded to the window
  }
  const json refused = plan(config, {{"mode", "full"}, {"audio_seconds", 31}});
  CHECK(refused.at("ok") == false);
  CHECK(refused.at("error").at("code") == "options.value");
  CHECK(refused.at("error").at("path") == "audio_seconds");
}

TEST_CASE("Gemma 4: 25 audio tokens a second through the conformer, clips cut at 30 s", "[audio]") {
  const Model m = trace_golden("gemma-4-e2b-it.json");
  REQUIRE(m.audio.rule == AudioClip::Rule::per_second);
  CHECK(m.audio.seconds == 30);
  CHECK(m.audio.max_seconds == 30);  // Gemma4AudioFeatureExtractor max_length 480,000 samples at 16 kHz
  // (16000 S − 161) // 160 + 1 = 100 S − 1 frames, halved twice by the stride-2 convs: 25 S tokens.
  CHECK(audio_clip_tokens(m.audio, 1) == 25);
  CHECK(audio_clip_tokens(m.audio, 30) == 750);
  CHECK(encoder_tokens(m) == 750);
  // layer0 runs ceil(2999 / 2) = 1500 frames × 64 of the 128 mel bins, layer1 750 × 32.
  const std::string sub = "model.audio_tower.subsample_conv_projection.";
  CHECK(node_named(m, sub + "layer0.conv").tokens_per_image == 1500 * 64);
  CHECK(node_named(m, sub + "layer1.conv").tokens_per_image == 750 * 32);
  // Gemma4AudioAttention: chunks of 12 queries over 12 + 13 − 1 + 0 = 24 keys, in its own fp32 code.
  const Node& attn = node_named(m, "model.audio_tower.layers.0.self_attn.attn");
  CHECK(attn.attn.chunk == 12);
  CHECK(attn.attn.window == 24);

  const Model twelve = with_audio_seconds(m, 12), day = with_audio_seconds(m, 24);
  CHECK(encoder_tokens(twelve) == 300);
  CHECK(node_named(twelve, sub + "layer0.conv").tokens_per_image == 600 * 64);
  bool noted = false;
  for (const auto& n : twelve.notes) noted = noted || n.find("one 12 s clip") != std::string::npos;
  CHECK(noted);
  // 300 and 600 tokens are whole chunks of 12: every audio block keeps exactly twice as much at 24 s.
  Options o;
  o.mode = Mode::full;
  const Overheads oh = load_catalog().overheads;
  const MemoryModel at12(twelve, o, Mode::full, 512, oh), at24(day, o, Mode::full, 512, oh);
  REQUIRE(at12.blocks().size() == m.blocks.size());
  int audio_blocks = 0;
  for (size_t i = 0; i < m.blocks.size(); ++i) {
    INFO(m.blocks[i].name);
    if (m.blocks[i].domain == Domain::audio) {
      CHECK(at24.blocks()[i].acts == 2 * at12.blocks()[i].acts);
      audio_blocks += at12.blocks()[i].acts > 0;
    } else {
      CHECK(at24.blocks()[i].acts == at12.blocks()[i].acts);  // the text does not move
    }
  }
  CHECK(audio_blocks == 1 + 12 + 1);  // the conv front end, the 12 conformer layers, the projector

  // Through the Planner: longer clips keep more; the traced length is the default plan; past 30 s refused.
  const std::string config = golden_file("gemma-4-e2b-it.json").at("config").dump();
  auto forward_end = [&](int seconds) {
    json o = {{"mode", "full"}};
    if (seconds > 0) o["audio_seconds"] = seconds;
    const json r = plan(config, o);
    REQUIRE(r.at("ok") == true);
    return int64_t(r.at("plan").at("phases").at("forward_end"));
  };
  CHECK(forward_end(10) < forward_end(20));
  CHECK(forward_end(30) == forward_end(0));
  const json r = plan(config, {{"audio_seconds", 31}});
  CHECK(r.at("ok") == false);
  CHECK(r.at("error").at("code") == "options.value");
  CHECK(r.at("error").at("path") == "audio_seconds");
}

TEST_CASE("Gemma 4 unified: the waveform embedder takes 640 samples a token, 25 a second, uncut", "[audio]") {
  const Model m = trace_golden("gemma-4-12b.json");
  REQUIRE(m.audio.rule == AudioClip::Rule::per_second);
  CHECK(m.audio.tokens_per_second == 25);
  CHECK(m.audio.max_seconds == 0);
  const Model minute = with_audio_seconds(m, 60);
  for (const auto& b : minute.blocks)
    if (b.domain == Domain::audio) CHECK(b.tokens_per_image == 1500);
  CHECK(plan(golden_file("gemma-4-12b.json").at("config").dump(), {{"audio_seconds", 120}}).at("ok") == true);
}
}  // namespace audio_seconds_test

// The fallback for an unknown model_type: a Llama-shaped decoder from the standard keys, marked
// approximate in the report. Without those keys, a coded error lists what is missing. A config
// that carries structure a Llama-shaped decoder does not have (experts, linear-attention or SSM
// mixers, layer types other than full/sliding attention, nested sub-configs) is refused with those
// keys named: tracing it as dense would be a wrong number presented as an answer (gpt-oss-20b,
// 20.9 B parameters, came out as a 2.39 B dense decoder).
#include <nlohmann/json.hpp>
#include <string>

#include "../../error.hpp"
#include "../decoder.hpp"
#include "../registry.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
// A key counts as structure when it says something: not null, false, 0, "" or empty.
bool says_something(const nlohmann::json& v) {
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0.0;
  if (v.is_string()) return !v.get<std::string>().empty();
  return !v.empty();  // arrays and objects
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// The keys of `c` that announce structure the Llama-shaped trace would silently drop.
std::vector<std::string> unmodelled_keys(const Config& c) {
  static const char* const kMoe[] = {"num_experts", "num_local_experts", "n_routed_experts", "n_shared_experts",
                                     "num_experts_per_tok", "experts_per_token", "moe_num_experts",
                                     "shared_expert_intermediate_size", "router_aux_loss_coef_enabled"};
  static const char* const kPrefixes[] = {"moe_", "linear_", "mamba_", "ssm_", "expert_"};
  static const char* const kSubConfigs[] = {"text_config", "vision_config", "audio_config", "speech_config",
                                            "encoder_config", "decoder_config",
                                            // Omni wrappers (Qwen3-Omni-MoE): a thinker, a talker, a vocoder.
                                            "thinker_config", "talker_config", "code2wav_config"};
  std::vector<std::string> found;
  for (const auto& [key, value] : c.raw().items()) {
    if (!says_something(value)) continue;
    bool hit = false;
    for (const char* k : kMoe) hit = hit || key == k;
    for (const char* p : kPrefixes) hit = hit || starts_with(key, p);
    for (const char* k : kSubConfigs) hit = hit || key == k;
    if (hit) found.push_back(key);
  }
  // layer_types: the generic trace knows full and sliding attention only.
  auto lt = c.raw().find("layer_types");
  if (lt != c.raw().end() && lt->is_array())
    for (const auto& t : *lt)
      if (!t.is_string() || (t != "full_attention" && t != "sliding_attention")) {
        found.push_back("layer_types (" + (t.is_string() ? "\"" + t.get<std::string>() + "\"" : t.dump()) + ")");
        break;
      }
  return found;
}
}  // namespace

Model generic_decoder(const Config& c) {
  const std::string type = c.string_or("model_type", "");
  const std::vector<std::string> structure = unmodelled_keys(c);
  if (!structure.empty()) {
    std::string keys;
    for (const auto& k : structure) keys += (keys.empty() ? "" : ", ") + k;
    // A multimodal wrapper whose language model is traced: say so, it can be planned on its own.
    std::string hint;
    if (c.has_object("text_config")) {
      const std::string text_type = c.child("text_config").string_or("model_type", "");
      for (const auto& f : family_registry())
        if (!text_type.empty() && f.model_type == text_type)
          hint = " Its language model (text_config, model_type \"" + text_type + "\") is traced: paste the "
                 "text_config alone to plan the language model without the other towers.";
    }
    // An omni wrapper nests its language model one level deeper, in the thinker.
    if (hint.empty() && c.has_object("thinker_config") && c.child("thinker_config").has_object("text_config")) {
      const std::string text_type = c.child("thinker_config").child("text_config").string_or("model_type", "");
      for (const auto& f : family_registry())
        if (!text_type.empty() && f.model_type == text_type)
          hint = " Its thinker's language model (thinker_config.text_config, model_type \"" + text_type +
                 "\") is traced: paste thinker_config.text_config alone to plan that language model without "
                 "the audio and vision towers, the talker and code2wav.";
    }
    throw Error(ErrorCode::model_type_unknown,
                "model_type \"" + type + "\" is not supported, and its config carries structure a generic "
                "Llama-shaped decoder would not count (experts, linear-attention or state-space mixers, "
                "unknown layer types or sub-configs): " + keys + ". Planning it as a dense decoder would "
                "give a wrong parameter count, so cardfit refuses it." + hint,
                "$." + structure.front().substr(0, structure.front().find(' ')));
  }
  std::string missing;
  for (auto k : {"vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size"})
    if (!c.has(k)) missing += (missing.empty() ? "" : ", ") + std::string(k);
  if (!missing.empty())
    throw Error(ErrorCode::model_type_unknown,
                "model_type \"" + type + "\" is not supported, and the config lacks the standard keys a "
                "generic decoder needs: " + missing + ".",
                "$.model_type");
  Model m = llama(c);
  m.model_type = type;
  m.family = "generic_decoder";
  m.approximate = true;
  m.notes.push_back("model_type \"" + type + "\" has no family file: traced as a Llama-shaped decoder "
                    "(RMSNorm, gated SiLU MLP, no biases) from the standard keys. Counts are approximate.");
  return m;
}

}  // namespace cardfit::families

// The fallback for an unknown model_type: a Llama-shaped decoder from the standard keys, marked
// approximate in the report. Without those keys, a coded error lists what is missing.
#include <string>

#include "../../error.hpp"
#include "../decoder.hpp"
#include "families.hpp"

namespace cardfit::families {

Model generic_decoder(const Config& c) {
  const std::string type = c.string_or("model_type", "");
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

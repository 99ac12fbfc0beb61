// Shared encoder heads and buffers (see encoders.hpp).
#include "encoders.hpp"

#include <cstdio>

namespace cardfit {

std::string first_architecture(const Config& c) {
  const auto archs = c.has("architectures") ? c.string_list("architectures") : std::vector<std::string>{};
  return archs.empty() ? "" : archs.front();
}

bool stores_position_ids(const Config& c) {
  const std::string v = c.string_or("transformers_version", "");
  int major = 0, minor = 0;
  if (v.empty() || std::sscanf(v.c_str(), "%d.%d", &major, &minor) != 2) return false;
  return major == 3 || (major == 4 && minor < 31);
}

void position_ids_buffer(ModelBuilder& b, const Config& c, const std::string& name, int64_t positions) {
  if (stores_position_ids(c)) {
    b.buffer(name, {1, positions});
    b.note("Buffer " + name + " (int64 [1, " + std::to_string(positions) + "]) counted as stored: transformers " +
           c.string_or("transformers_version", "") + " (v3.0 to v4.30) saved position_ids as a persistent buffer.");
  } else {
    b.note("No " + name + " buffer counted: transformers before v3.0 and from v4.31 on does not save it "
           "(the config's transformers_version: " + c.string_or("transformers_version", "none") + ").");
  }
}

void head_linear(ModelBuilder& b, const std::string& name, int64_t in, int64_t out, bool bias) {
  b.linear(name, in, out, {.bias = bias, .lora = false, .role = Role::head});
}

void mlm_head(ModelBuilder& b, const MlmHeadSpec& s) {
  // dense → act → norm → decoder (the vocabulary projection) + bias.
  head_linear(b, s.dense, s.in, s.width, s.dense_bias);
  b.activation(s.dense + ".act", s.width, s.act);
  b.norm(s.norm, s.width, s.norm_kind, Role::head);
  if (s.decoder_module) {
    lm_head(b, s.decoder, s.width, s.vocab, s.tied_to, s.decoder_bias);
  } else {
    Node n;  // hidden @ word_embeddings.T: the embedding's storage, owned by the embedding node
    n.name = s.decoder;
    n.op = Op::head;
    n.in = s.width;
    n.out = s.vocab;
    n.vocab_head = true;
    if (!s.tied_to.empty()) n.tied_to = b.owner_of(s.tied_to);
    b.node(n);
  }
  if (!s.bias.empty()) b.model().blocks.back().nodes.back().params += b.tensor(s.bias, {s.vocab}, Role::head);
}

}  // namespace cardfit

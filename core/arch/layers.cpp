// The shared layer builders of layers.hpp.
#include "layers.hpp"

#include <nlohmann/json.hpp>

namespace cardfit {

namespace {
void sublayer_attention(ModelBuilder& b, const std::string& prefix, const std::string& what,
                        int64_t hidden, NormKind norm, bool post, const AttentionSpec& attn,
                        const std::string& norm_name) {
  if (!post && !norm_name.empty()) b.norm(norm_name, hidden, norm);
  attention_block(b, attn);
  b.residual(prefix + ".residual_" + what, hidden);
  if (post && !norm_name.empty()) {
    b.norm(norm_name, hidden, norm);
    b.set_stream(b.cursor());  // post-norm: the normed sum is the stream
  }
}
}  // namespace

void residual_layer(ModelBuilder& b, const ResidualLayerSpec& s) {
  sublayer_attention(b, s.prefix, "attn", s.hidden, s.norm, s.post_norm, s.attn, s.attn_norm);
  if (s.has_cross)
    sublayer_attention(b, s.prefix, "cross", s.hidden, s.norm, s.post_norm, s.cross, s.cross_norm);
  if (!s.post_norm && !s.mlp_norm.empty()) b.norm(s.mlp_norm, s.hidden, s.norm);
  mlp_block(b, s.mlp);
  b.residual(s.prefix + ".residual_mlp", s.hidden);
  if (s.post_norm && !s.mlp_norm.empty()) {
    b.norm(s.mlp_norm, s.hidden, s.norm);
    b.set_stream(b.cursor());
  }
}

void parallel_layer(ModelBuilder& b, const ParallelLayerSpec& s) {
  // Both norms read the layer input x; the graph lists each branch followed by its add into
  // x + attn + mlp (the MLP does not read x + attn).
  const ValueId x = b.stream();
  b.norm(s.attn_norm, s.hidden, s.norm);
  const ValueId h = b.cursor();
  attention_block(b, s.attn);
  b.residual(s.prefix + ".residual_attn", s.hidden);
  if (s.mlp_norm.empty()) {
    b.read(h);  // the MLP reads the same normed input as attention
  } else {
    b.read(x);  // its own norm of the layer input x (not of x + attn)
    b.norm(s.mlp_norm, s.hidden, s.norm);
  }
  mlp_block(b, s.mlp);
  b.residual(s.prefix + ".residual_mlp", s.hidden);
}

void learned_positions(ModelBuilder& b, const std::string& name, int64_t positions, int64_t dim,
                       int64_t offset) {
  b.embedding(name, checked_add(positions, offset, "the position table"), dim,
              Role::position_embedding);
}

void relative_position_bias(ModelBuilder& b, const std::string& name, int64_t buckets, int64_t heads) {
  // A side input of the attention scores, not part of the stream: the cursor and stream stay.
  const ValueId stream = b.stream(), cursor = b.cursor();
  b.reads({});
  b.embedding(name, buckets, heads, Role::position_embedding);
  b.set_stream(stream);
  b.read(cursor);
}

int64_t num_labels(const Config& c, int64_t fallback) {
  if (c.has_object("id2label")) {
    const auto n = int64_t(c.child("id2label").raw().size());
    if (n > 0) return n;
  }
  return c.positive_or({"num_labels"}, fallback);
}

}  // namespace cardfit

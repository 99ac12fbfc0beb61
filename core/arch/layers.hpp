// Shared layer builders beyond the pre-norm decoder layer of decoder.hpp: post-norm layers
// (BERT, BART, OPT-350m), pre/post-norm layers with cross-attention (T5, BART decoders), parallel
// attention + MLP (GPT-J, GPT-NeoX, Falcon), learned positions with an offset (OPT, BART) and
// relative position biases (T5). Families fill the specs with checkpoint names; no arithmetic here
// beyond what the modules themselves do.
#pragma once
#include <string>

#include "../config.hpp"
#include "blocks.hpp"

namespace cardfit {

/// A residual layer: self-attention, optional cross-attention, MLP, each wrapped in a residual add
/// and a norm. Pre-norm: norm → sublayer → add. Post-norm: sublayer → add → norm.
/// Norm names are full module paths; an empty name means that sublayer has no norm.
struct ResidualLayerSpec {
  std::string prefix;        // "model.decoder.layers.3": names the residual nodes
  int64_t hidden = 0;
  NormKind norm = NormKind::layernorm;
  bool post_norm = false;    // BERT, BART, OPT with do_layer_norm_before=false
  AttentionSpec attn;        // self-attention (prefix = full module path)
  std::string attn_norm;
  bool has_cross = false;    // encoder-decoder cross-attention (set cross.cross = true)
  AttentionSpec cross;
  std::string cross_norm;
  MlpSpec mlp;
  std::string mlp_norm;
};
void residual_layer(ModelBuilder& b, const ResidualLayerSpec& spec);

/// A parallel layer: y = x + attn(norm_a(x)) + mlp(norm_m(x)) (GPT-J, GPT-NeoX with
/// use_parallel_residual, Falcon with parallel_attn). With mlp_norm empty the MLP reads the same
/// normed input as attention (GPT-J, Falcon-7B); otherwise its own norm (NeoX, Falcon-40B ln_mlp).
struct ParallelLayerSpec {
  std::string prefix;
  int64_t hidden = 0;
  NormKind norm = NormKind::layernorm;
  std::string attn_norm;     // full module path
  std::string mlp_norm;      // empty: shares attn_norm
  AttentionSpec attn;
  MlpSpec mlp;
};
void parallel_layer(ModelBuilder& b, const ParallelLayerSpec& spec);

/// A learned position table of `positions + offset` rows (OPT and BART keep 2 extra rows: their
/// position ids start at padding_idx + 1 = 2). Tensor `name.weight`.
void learned_positions(ModelBuilder& b, const std::string& name, int64_t positions, int64_t dim,
                       int64_t offset = 0);

/// A learned table that feeds the attention scores rather than the stream: T5's bucketed relative
/// position bias [buckets, heads] (held by a stack's first layer), BERT's relative-key distance
/// embedding [2 × positions − 1, head_dim]. Tensor `name.weight`.
void relative_position_bias(ModelBuilder& b, const std::string& name, int64_t buckets, int64_t heads);

/// The label count of a classification head: the size of id2label when present (that is how
/// PretrainedConfig derives num_labels), else num_labels, else `fallback`.
int64_t num_labels(const Config& c, int64_t fallback);

}  // namespace cardfit

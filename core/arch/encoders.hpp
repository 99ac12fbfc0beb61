// Shared pieces of the BERT-lineage encoders (ELECTRA, MPNet, DeBERTa-v2, ModernBERT, XLM-R via
// bert.cpp): the masked-LM prediction head, the classifier heads chosen from architectures[0], and
// the rule for which checkpoints store the position_ids buffer. Built from ModelBuilder's public
// primitives only; the forward order of each helper is written in its comment.
#pragma once
#include <string>

#include "../config.hpp"
#include "blocks.hpp"

namespace cardfit {

/// architectures[0], or "" when the config names none.
std::string first_architecture(const Config& c);

/// transformers registered `embeddings.position_ids` as a persistent buffer from v3.0 until v4.31
/// (then persistent=False): a checkpoint saved by a version in [3.0, 4.31) stores it, int64
/// [1, max_position_embeddings]. Read from the config's transformers_version; absent: not stored.
bool stores_position_ids(const Config& c);
/// Adds the buffer `name` [1, positions] when stores_position_ids(c), with a note either way.
void position_ids_buffer(ModelBuilder& b, const Config& c, const std::string& name, int64_t positions);

/// The MLM prediction head: dense [width, in] (+bias) → act → norm(width) → decoder [vocab, width]
/// tied to `tied_to` (when given) → + bias [vocab] stored as `bias` (the decoder's bias aliases it).
struct MlmHeadSpec {
  int64_t in = 0, width = 0, vocab = 0;
  std::string dense, norm, decoder, bias;  // full names; bias empty: the decoder's own bias (or none)
  bool dense_bias = true, decoder_bias = false;
  NormKind norm_kind = NormKind::layernorm;
  std::string act = "gelu";
  std::string tied_to;                     // "" = untied, stored
  bool decoder_module = true;              // false: no decoder module, the head multiplies by the word
                                           // embeddings directly (DeBERTa): nothing listed under `decoder`
};
void mlm_head(ModelBuilder& b, const MlmHeadSpec& spec);

/// A head-only linear (not a LoRA target), with bias.
void head_linear(ModelBuilder& b, const std::string& name, int64_t in, int64_t out, bool bias = true);

}  // namespace cardfit

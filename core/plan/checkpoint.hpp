// Reconciling the traced inventory with a checkpoint: a published scalar total, a
// model.safetensors header (tensor by tensor) or a model.safetensors.index.json (names, bytes).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "../model.hpp"
#include "options.hpp"

namespace cardfit {

struct TensorMismatch {
  std::string name;
  Shape expected, found;
  std::string dtype;
};

/// The stored extras of one role (Model::stored_extras) that the reconciliation counts.
struct ExtraGroup {
  ExtraRole role = ExtraRole::mtp;
  int64_t tensors = 0;
  int64_t scalars = 0;             // elements as stored (MXFP4 blocks: bytes)
  std::vector<std::string> dtypes; // distinct safetensors dtypes
  std::string example;             // one tensor name, for the report
};

struct Reconciliation {
  std::string source;              // "checkpoint_total", "safetensors_header", "safetensors_index",
                                   // "safetensors_index+checkpoint_total" (names + stated total)
  std::optional<int64_t> scalars;  // scalars in the file(s)
  std::optional<int64_t> total_bytes;  // index.json metadata.total_size
  int64_t params = 0, buffers = 0;
  int64_t tied_copies = 0;             // scalars of tied tensors the file stores again (Falcon's lm_head)
  std::vector<ExtraGroup> extras;      // what the file stores beyond the model class, by role
  int64_t extra_scalars = 0;           // their sum, as counted (see packed_counting)
  int64_t packed_replaced = 0;         // parameters stored packed (MXFP4 _blocks), not as themselves
  // How packed blocks are counted: "stored" (elements as the header lists them: a byte holds two FP4
  // values) or "values" (the values they hold, as the hub's total counts gpt-oss); "" when none.
  std::string packed_counting;
  // Stored lengths the config does not determine (bitsandbytes' quant_state JSON, the digits of its
  // nested_offset): the extras count those tensors at their least length; up to variable_max more
  // scalars may be in a file, and variable_assigned of them are what the total holds beyond the least
  // (never more than variable_max: beyond it stays unexplained). 0 when a header gives the lengths.
  int64_t variable_tensors = 0, variable_max = 0, variable_assigned = 0;
  std::optional<int64_t> unexplained;  // scalars - params - buffers - tied_copies - extras (+ packed_replaced)
  std::vector<std::string> missing;    // traced, not in the file
  std::vector<std::string> extra;      // in the file, not traced
  std::vector<TensorMismatch> shape_mismatches;
  std::vector<std::string> dtypes;     // distinct dtypes in the header
};

/// Nothing when no checkpoint information is given in the options.
std::optional<Reconciliation> reconcile(const Model& model, const Options& opt);

}  // namespace cardfit

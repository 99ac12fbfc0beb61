// The per-sequence state of the recurrent mixers that carry it on their graph nodes (gated delta net,
// Mamba-2): what a served sequence keeps between decode steps instead of a KV cache. (Mamba-1 layers
// are sized from Model::dims.ssm_* in memory.cpp.)
#pragma once
#include <cstdint>

#include "../model.hpp"

namespace cardfit {

/// Sum over every node with a recurrent state: conv_state * activation_bytes + recurrent_state *
/// (recurrent_state_bytes, or activation_bytes when that is 0). Bytes per sequence.
int64_t recurrent_state_bytes(const Model& m, int activation_bytes);

}  // namespace cardfit

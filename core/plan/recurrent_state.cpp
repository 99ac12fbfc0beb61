// See recurrent_state.hpp. The dtypes follow transformers' caches: the conv state is a slice of the
// layer's input (the activation dtype); the gated delta rule kernels (fla's chunk/fused_recurrent and
// the torch fallback of modeling_qwen3_next.py) return their final state in fp32, which the cache
// keeps as is; a Mamba-2 layer's states are allocated in the model's dtype (recurrent_state_bytes 0).
#include "recurrent_state.hpp"

namespace cardfit {

int64_t recurrent_state_bytes(const Model& m, int activation_bytes) {
  int64_t total = 0;
  for (const auto& b : m.blocks)
    for (const auto& n : b.nodes) {
      if (n.conv_state == 0 && n.recurrent_state == 0) continue;
      const int state_bytes = n.recurrent_state_bytes > 0 ? n.recurrent_state_bytes : activation_bytes;
      total = checked_add(total, checked_mul(n.conv_state, activation_bytes, "the conv state"), "the recurrent state");
      total = checked_add(total, checked_mul(n.recurrent_state, state_bytes, "the recurrent state"), "the recurrent state");
    }
  return total;
}

}  // namespace cardfit

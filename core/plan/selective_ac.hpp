// torchtitan's per-op selective activation checkpointing ([activation_checkpoint] mode "selective",
// selective_ac_option "op"): a checkpointed layer keeps, beside its input, the outputs of the ops
// on a save list, and recomputes the rest in backward. Read from torchtitan 9dec370 (2024-12-26)
// torchtitan/parallelisms/parallelize_llama.py (_save_list, _apply_ac_to_transformer_block) and
// e7c0cae (2025-06-11) torchtitan/models/llama3/parallelize_llama.py (the same list without abs).
#pragma once
#include <cstdint>

#include "../model.hpp"
#include "graph_costs.hpp"

namespace cardfit {

/// Bytes per sample a checkpointed block keeps beyond its input under the op policy:
///  - aten.mm outputs, except every second one (the policy counts mm calls per layer forward from
///    1 and saves the odd ones): an nn.Linear without bias on a 3-D input runs aten.mm, a torchao
///    Float8Linear too (torch.mm on Float8Tensors, seen by the policy before the subclass runs
///    _scaled_mm); a biased one runs addmm, grouped experts their own kernel: not on the list, not
///    counted;
///  - SDPA flash / efficient outputs: the attention output and its fp32 logsumexp (eager attention
///    runs bmm and softmax: nothing saved);
///  - max (float8 amax, a scalar per cast) and reduce_scatter (tensor parallel): nothing per sample.
/// `compiled`: under torch.compile the min-cut partitioner (torch/_functorch/partitioners.py) saves
/// only what backward reads; a MUST_SAVE output that backward never reads (an mm whose only readers
/// are residual adds, whose backward passes the gradient through) is not kept.
int64_t op_sac_kept(const Model& m, size_t block, const StepSetup& s, int64_t seq, int64_t decoder_seq, bool compiled);

}  // namespace cardfit

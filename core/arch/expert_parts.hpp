// A fused routed-expert stack (Tensor::expert_axes) as the per-expert nn.Linear weights that
// per-expert checkpoints store. Quantizers work on nn.Linear modules, so a quantized checkpoint of
// a fused model stores its experts one by one even where the bf16 checkpoint fuses them: the
// Qwen3.5 / 3.6-35B-A3B-FP8 indexes list model.language_model.layers.{l}.mlp.experts.{e}.
// {gate,up,down}_proj.weight (F8_E4M3) and .weight_scale_inv (30,720 of each for 40 layers x 256
// experts x 3, ml-explore/mlx-lm PR 1224 and vllm-project/vllm-metal PR 312, read 2026-12-04), while
// Qwen/Qwen3.6-35B-A3B stores experts.gate_up_proj / experts.down_proj; vLLM's qwen3_5.py loads both.
#pragma once
#include <cstdint>
#include <vector>

#include "../model.hpp"

namespace cardfit {

/// Copy 0 of each per-expert weight a fused stack holds, named as the per-expert checkpoints name it
/// (Tensor::copies = experts, linear, copy_run_start on the first): "<p>experts.gate_up_proj" gives
/// <p>experts.0.gate_proj.weight and <p>experts.0.up_proj.weight [intermediate, hidden] (gate first,
/// as the modeling code chunks it), "<p>experts.down_proj" gives <p>experts.0.down_proj.weight
/// [hidden, intermediate]. Empty for a tensor that is not a stack or whose per-expert names are not
/// known (GraniteMoE's input_linear.weight).
std::vector<Tensor> expert_parts(const Tensor& stack);

/// A fused stack of `m.tensors` (index) and its parts.
struct SplitStack {
  int32_t stack = -1;
  std::vector<Tensor> parts;
};
/// Every fused stack of m.tensors with known per-expert names, in tensor order.
std::vector<SplitStack> split_stacks(const Model& m);
/// The first fused stack of m.tensors (expert_axes set) whose per-expert names are not known, or null.
const Tensor* unnamed_stack(const Model& m);

}  // namespace cardfit

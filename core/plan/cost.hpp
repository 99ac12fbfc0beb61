// Roofline cost of a training run: FLOPs from the graph, time at the card's dense peak × MFU.
#pragma once
#include "plan.hpp"

namespace cardfit {

/// Forward FLOPs per token of the whole model at `seq` (attention with causal masking; an
/// encoder-decoder's decoder runs `decoder_seq` tokens, 0 = seq): per sample, divided by `seq`. A
/// vision tower adds its FLOPs for `images` images per sample (-1: the model's default, 1 with a
/// tower).
double forward_flops_per_token(const Model& model, int64_t seq, int64_t decoder_seq = 0, int64_t images = -1);

/// Forward FLOPs of the vision blocks (tower and projector) for one image: each node's FLOPs per
/// token × its tokens per image, attention spanning one image's tokens. 0 without a tower.
double vision_flops_per_image(const Model& model);

/// Training-step FLOPs per token in `mode`: full = forward + input gradients + weight gradients;
/// LoRA/QLoRA skip the frozen weights' gradients (the adapters add their own three passes);
/// gradient checkpointing adds one more forward of the checkpointed blocks.
double step_flops_per_token(const Model& model, const Options& opt, Mode mode, int64_t seq);

/// Fills plan.cost from plan.cards (which must already be solved).
void cost_plan(const Model& model, const Catalog& catalog, Plan& plan);

}  // namespace cardfit

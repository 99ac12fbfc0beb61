// The Llama 4 vision model and projector (transformers models/llama4/modeling_llama4.py:
// Llama4VisionModel, Llama4VisionPixelShuffleMLP, Llama4MultiModalProjector), as the published
// Llama4ForConditionalGeneration checkpoints store them ("vision_model.", "multi_modal_projector.").
#pragma once
#include <string>

#include "../config.hpp"
#include "builder.hpp"

namespace cardfit {

struct Llama4VisionSpec {  // Llama4VisionConfig's class defaults
  int64_t hidden = 768, layers = 34, heads = 16, intermediate = 5632, channels = 3;
  int64_t image_size = 448, patch = 14;
  int64_t projector_in = 4096, projector_out = 4096, output_dim = 7680;  // projector_input/output_dim, vision_output_dim
  int64_t shuffle_denominator = 2;  // pixel_shuffle_ratio 0.5 as 1 / 2: the shuffle folds 2 × 2 patches into one
  std::string act = "gelu";         // Llama4VisionMLP uses nn.GELU() whatever hidden_act says
};
/// patch_embedding.linear (an nn.Linear over unfolded patch × patch × C pixels, no bias) → + class_embedding
/// [hidden] (appended as the last token) → + positional_embedding_vlm [patches + 1, hidden] →
/// layernorm_pre → model.layers.N (input_layernorm → self_attn q/k/v_proj (bias) → bidirectional
/// attention (2-D rotary, no parameters) → o_proj (bias) → add → post_attention_layernorm → mlp.fc1 →
/// GELU → mlp.fc2 (biases) → add) → layernorm_post → the class token dropped → pixel shuffle (2 × 2
/// patches → one token of intermediate_size features) → vision_adapter.mlp.fc1 [projector_in,
/// intermediate] → GELU → fc2 [projector_out, projector_out] → GELU → multi_modal_projector.linear_1
/// [text_hidden, output_dim] (no bias). Planned per image as one image_size × image_size tile.
void llama4_vision(ModelBuilder& b, const Llama4VisionSpec& spec, int64_t text_hidden);
/// Llama4VisionConfig with its class defaults; coded errors name the field.
Llama4VisionSpec read_llama4_vision(const Config& vision);

}  // namespace cardfit

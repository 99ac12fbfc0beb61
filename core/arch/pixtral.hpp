// The Pixtral vision encoder (transformers models/pixtral/modeling_pixtral.py, PixtralVisionModel) and
// Mistral 3's projector (models/mistral3/modeling_mistral3.py, Mistral3MultiModalProjector), as the
// published Mistral3ForConditionalGeneration checkpoints store them ("vision_tower.",
// "multi_modal_projector.").
#pragma once
#include <string>

#include "../config.hpp"
#include "builder.hpp"

namespace cardfit {

struct PixtralSpec {
  int64_t hidden = 1024, layers = 24, heads = 16, intermediate = 4096, patch = 14, image_size = 1540, channels = 3;
  std::string act = "gelu";
  int64_t merge = 2;            // Mistral3Config.spatial_merge_size
  int64_t feature_layers = 1;   // vision_feature_layer: one index, or a list whose features are concatenated
  bool projector_bias = false;  // multimodal_projector_bias
  std::string projector_act = "gelu";
};
/// patch_conv (Conv2d [hidden, C, patch, patch], no bias) → ln_pre (RMSNorm) → transformer.layers.N
/// (attention_norm → attention.q/k/v_proj (no bias; head_dim = hidden / heads) → attention within each
/// image (2-D rotary) → o_proj → add → ffn_norm → feed_forward gate/up/down_proj → add) →
/// multi_modal_projector (norm RMSNorm → patch_merger.merging_layer [hidden, hidden · merge²] over
/// merge × merge patches → linear_1 [text, hidden · feature_layers] → act → linear_2 [text, text]).
/// Planned per image at the processor's largest size, image_size × image_size.
void pixtral_vision(ModelBuilder& b, const PixtralSpec& spec, int64_t text_hidden);
/// PixtralVisionConfig (with Mistral3Config's default tower where vision_config is absent) and the
/// projector keys of the top-level Mistral3Config.
PixtralSpec read_pixtral(const Config& mistral3);

}  // namespace cardfit

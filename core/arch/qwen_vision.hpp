// The Qwen2.5-VL vision transformer (transformers models/qwen2_5_vl/modeling_qwen2_5_vl.py,
// Qwen2_5_VisionTransformerPretrainedModel), stored under "visual." in the published checkpoints,
// and the Qwen3-VL one (models/qwen3_vl/modeling_qwen3_vl.py, Qwen3VLVisionModel, "model.visual.").
// Built from ModelBuilder's public primitives; the forward order is in the builder's comment.
#pragma once
#include <string>
#include <vector>

#include "../config.hpp"
#include "blocks.hpp"

namespace cardfit {

struct QwenVisionSpec {
  std::string prefix = "visual";
  int64_t hidden = 0, depth = 0, heads = 0, intermediate = 0, out_hidden = 0;
  int64_t patch = 14, temporal_patch = 2, merge = 2, channels = 3;
  int64_t window = 0;                 // patches per attention window (0: every block global)
  std::vector<int64_t> full_blocks;   // fullatt_block_indexes: blocks that attend to the whole image
  int64_t patches_per_image = 0;      // the planning assumption: patches of one reference image
  std::string act = "silu";
  // Qwen2-VL's tower is Qwen2.5-VL's with LayerNorms (weight and bias) for norm1, norm2 and ln_q, and
  // an ungated MLP fc1 → act → fc2 (VisionMlp).
  NormKind norm = NormKind::rmsnorm;
  bool gated_mlp = true;
  // Qwen3-VL only:
  int64_t position_table = 0;         // num_position_embeddings: pos_embed [table, hidden], interpolated
  std::vector<int64_t> deepstack;     // deepstack_visual_indexes: blocks whose output a merger adds to the text
  // Qwen3-Omni-MoE's copy of the tower (modeling_qwen3_omni_moe.py Qwen3OmniMoeVisionPatchMerger) names its
  // mergers "merger" / "merger_list.i" with ln_q, mlp.0 and mlp.2; Qwen3-VL: norm, linear_fc1, linear_fc2
  // under "merger" / "deepstack_merger_list.i". Same shapes.
  bool omni_merger_names = false;
};
/// patch_embed.proj (Conv3d [hidden, C, temporal_patch, patch, patch], no bias: one linear map per
/// patch) → blocks.N (norm1 RMSNorm → attn.qkv (bias) → attention (a window of `window` patches,
/// or the whole image in full_blocks; 2-D rotary, no parameters) → attn.proj → add → norm2 →
/// mlp gate_proj/up_proj (bias) → silu(gate) * up → down_proj → add) → merger (ln_q RMSNorm over
/// each patch → 2×2 patches concatenated to hidden * merge² → mlp.0 → GELU → mlp.2 →
/// out_hidden: the image's tokens in the text). Domain::vision blocks.
/// Qwen2-VL's (Qwen2VisionTransformerPretrainedModel): the same with spec.norm LayerNorm, an
/// ungated mlp.fc1 / mlp.fc2 and every block global.
void qwen2_5_vision(ModelBuilder& b, const QwenVisionSpec& spec);
/// Qwen2_5_VLVisionConfig read with its class defaults; `out_hidden` falls back to `text_hidden`.
QwenVisionSpec read_qwen2_5_vision(const Config& vision, int64_t text_hidden);
/// Qwen2VLVisionConfig with its class defaults (embed_dim is the tower's width, hidden_size its output).
QwenVisionSpec read_qwen2_vision(const Config& vision);

/// Qwen3-VL: patch_embed.proj (Conv3d with bias) → + pos_embed (bilinearly interpolated rows of
/// [position_table, hidden]) → blocks.N (norm1 LayerNorm → attn.qkv → attention over the whole image
/// → attn.proj → add → norm2 → mlp.linear_fc1 → gelu → mlp.linear_fc2 → add) → merger (norm
/// LayerNorm(hidden) per patch → 2×2 concat → linear_fc1 → GELU → linear_fc2 → out_hidden); for each
/// deepstack index k: deepstack_merger_list.i reads block k's output (2×2 concat → norm
/// LayerNorm(hidden * 4) → linear_fc1 → GELU → linear_fc2), added to the text model's hidden states
/// at the image tokens after its layer i.
void qwen3_vision(ModelBuilder& b, const QwenVisionSpec& spec);
/// Qwen3VLVisionConfig with its class defaults.
QwenVisionSpec read_qwen3_vision(const Config& vision, int64_t text_hidden);

/// Every name in `m` beginning with `from` renamed to begin with `to` (tensors, ties, buffers,
/// stored extras, blocks and nodes).
void rename_prefix(Model& m, const std::string& from, const std::string& to);
/// `sub` with every name beginning with `from` renamed to begin with `to` (the text model of a
/// multimodal checkpoint: "model." → "model.language_model."), appended to `b`, its Dims taken.
void append_renamed(ModelBuilder& b, Model sub, const std::string& from, const std::string& to);

}  // namespace cardfit

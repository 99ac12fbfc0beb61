// Gemma 4 unified's encoder-free embedders (transformers models/gemma4_unified/modeling_gemma4_unified.py,
// Gemma4UnifiedVisionEmbedder and Gemma4UnifiedMultimodalEmbedder), named as the published checkpoint
// stores them: convert_gemma4_unified_weights.py writes the vision embedder's body as
// "model.vision_embedder.*" and both projections as "model.embed_vision.embedding_projection" /
// "model.embed_audio.embedding_projection" (transformers renames them to embed_vision.* and
// embed_vision.multimodal_embedder.* on load; google/gemma-4-12B holds 13 non-layer tensors).
#pragma once
#include "../config.hpp"
#include "builder.hpp"

namespace cardfit {

struct Gemma4UnifiedVisionSpec {
  int64_t patch = 16, pool = 3;        // model patch = patch · pool pixels a side
  int64_t embed = 3840, posemb = 1120; // mm_embed_dim, mm_posemb_size
  int64_t out = 3840;                  // output_proj_dims: the projection's input width
  int64_t soft_tokens = 280;           // the planning assumption: the image processor's max_soft_tokens
};
/// Per image (soft_tokens merged patches of 3 · (patch · pool)² pixels, padded to soft_tokens):
/// patch_ln1 (LayerNorm [3·(patch·pool)²]) → patch_dense (+ bias) → patch_ln2 → + pos_embedding
/// [posemb, 2, embed] (one row per x and per y, summed) → pos_norm → weightless RMSNorm →
/// embed_vision.embedding_projection [text_hidden, out]. No attention, no layers (Domain::vision).
void gemma4_unified_vision(ModelBuilder& b, const Gemma4UnifiedVisionSpec& spec, int64_t text_hidden);
/// Gemma4UnifiedVisionConfig with its class defaults; coded errors name the field.
Gemma4UnifiedVisionSpec read_gemma4_unified_vision(const Config& vision);

/// Raw waveform frames of `samples` samples (audio_embed_dim, 640 = 40 ms at 16 kHz) → weightless
/// RMSNorm → embed_audio.embedding_projection [text_hidden, samples]. Domain::audio blocks of 0
/// tokens: cardfit has no audio-clip option, so the projection is counted and no audio is planned.
void gemma4_unified_audio(ModelBuilder& b, int64_t samples, int64_t text_hidden);
/// Gemma4UnifiedAudioConfig.audio_embed_dim (aliases hidden_size, output_proj_dims,
/// audio_samples_per_token all set it); default 640.
int64_t read_gemma4_unified_audio(const Config& audio);

}  // namespace cardfit

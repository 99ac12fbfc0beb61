// DiffusionGemma (transformers models/diffusion_gemma/{configuration,modular,modeling}_diffusion_gemma.py and
// convert_diffusion_gemma_weights.py, read 2026-12-01; DiffusionGemmaForBlockDiffusion, model_type
// diffusion_gemma): a block-diffusion encoder-decoder over ONE Gemma 4 MoE text stack. The encoder
// (model.encoder.language_model, causal) writes the prompt's KV cache; the decoder (model.decoder) denoises
// a canvas of canvas_length tokens bidirectionally, reading that cache. DiffusionGemmaModel._tied_weights_keys
// ties every encoder text weight to the decoder's (embed_tokens, layers.*.{weight,scale,per_expert_scale,
// gate_up_proj,down_proj}, norm), and lm_head to model.decoder.embed_tokens.weight, so the checkpoint
// stores the stack once under model.decoder.* (the tied keys are dropped on save). Buffers are not tied:
// each side stores its own layers.N.layer_scalar [1]. Only the decoder has self_conditioning (pre_norm
// weight, gate/up [intermediate, hidden], down [hidden, intermediate]; post_norm has no weight).
// DiffusionGemmaTextConfig removes enable_moe_block, attention_k_eq_v, use_double_wide_mlp,
// num_kv_shared_layers and the per-layer-input keys: every layer runs the MLP beside the routed experts,
// full-attention layers have no v_proj (values = keys) and num_global_key_value_heads heads of
// global_head_dim, and there is no KV sharing and no per-layer embedding. The vision tower and
// embed_vision are Gemma 4's, under model.encoder.
#include <nlohmann/json.hpp>

#include "../blocks.hpp"
#include "../gemma4_towers.hpp"
#include "../qwen_vision.hpp"  // append_renamed, rename_prefix
#include "../registry.hpp"
#include "../vision.hpp"
#include "wrappers.hpp"

namespace cardfit::families {

namespace {

// text_config as DiffusionGemmaConfig builds DiffusionGemmaTextConfig, in gemma4_text's keys.
Config diffusion_text_config(const Config& c) {
  const Config given = child_or_empty(c, "text_config");
  nlohmann::json t = given.raw();
  t["model_type"] = "gemma4_text";
  if (!t.contains("tie_word_embeddings")) t["tie_word_embeddings"] = c.boolean_or("tie_word_embeddings", true);
  t["enable_moe_block"] = true;          // the layers always build router + experts
  t["attention_k_eq_v"] = true;          // removed attribute: the kv-head override is ungated, no v_proj on full layers
  t["use_double_wide_mlp"] = false;
  t["num_kv_shared_layers"] = 0;
  t["hidden_size_per_layer_input"] = 0;  // no per-layer embeddings
  // __post_init__: with bidirectional attention everywhere the window becomes (window // 2) + 1.
  if (given.string_or("use_bidirectional_attention", "") == "all")
    t["sliding_window"] = given.count_or({"sliding_window"}, 512) / 2 + 1;
  return Config(std::make_shared<const nlohmann::json>(std::move(t)), c.path_of("text_config"));
}

}  // namespace

Model diffusion_gemma(const Config& c) {
  const Config text = diffusion_text_config(c);
  Model language = trace_model(text);
  const int64_t hidden = language.dims.hidden, layers = language.dims.layers;
  const int64_t intermediate = text.positive_or({"intermediate_size"}, 9216);  // DiffusionGemmaTextConfig default
  const std::string act = text.string_or("hidden_activation", "gelu_pytorch_tanh");
  const int64_t canvas = c.positive_or({"canvas_length"}, 256);

  ModelBuilder b(c.string_or("model_type", "diffusion_gemma"), "diffusion_gemma");
  if (c.has("vision_config")) gemma4_vision(b, read_gemma4_vision(c.child("vision_config")), hidden);

  // DiffusionGemmaSelfConditioning: pre_norm → gated MLP (intermediate_size) → + inputs_embeds → post_norm
  // (RMS, with_scale=False). It runs on the decoder's canvas only: a root of the graph over the target
  // sequence (the decoder_seq option; seq when unset).
  b.restart();
  b.sequence(Sequence::target);
  b.block("model.decoder.self_conditioning", "other");
  b.norm("model.decoder.self_conditioning.pre_norm", hidden, NormKind::rmsnorm);
  mlp_block(b, {.prefix = "model.decoder.self_conditioning", .hidden = hidden, .intermediate = intermediate,
                .act = act, .role = Role::mlp});
  b.norm("model.decoder.self_conditioning.post_norm", hidden, NormKind::layernorm_noaffine);
  b.restart();
  b.sequence(Sequence::source);

  append_renamed(b, std::move(language), "model.", "model.decoder.");
  // The encoder's text weights: aliases of the decoder's (not stored); its layer_scalar buffers are its own.
  const size_t stored = b.model().tensors.size();
  for (size_t i = 0; i < stored; ++i) {
    const Tensor t = b.model().tensors[i];
    if (t.name.rfind("model.decoder.", 0) != 0 || !t.tied_to.empty()) continue;
    if (t.name.rfind("model.decoder.self_conditioning.", 0) == 0) continue;
    b.tied("model.encoder.language_model." + t.name.substr(14), t.shape, t.name, t.role);
    b.model().tensors.back().copies = t.copies;  // an alias of a stack is one of every copy
    b.model().tensors.back().copy_run_start = t.copy_run_start;
  }
  for (int64_t i = 0; i < layers; ++i)
    b.buffer("model.encoder.language_model.layers." + std::to_string(i) + ".layer_scalar", {1});

  b.note("Block diffusion: the plan runs the shared text stack once over the sequence, as the encoder does when "
         "it prefills the prompt and commits each finished canvas (DiffusionGemmaGenerationMixin.generate). Serving "
         "keeps only that encoder KV cache (the decoder reads it and never writes). The decoder's self-conditioning MLP "
         "is planned over the target sequence (the decoder_seq option, seq when unset). Not in the plan: the decoder's "
         "denoising passes, each over the " + std::to_string(canvas) + "-token canvas (canvas_length) attending "
         "to the cached prompt and the whole canvas, up to max_denoising_steps per canvas (generation_config; "
         "adaptive stopping ends most canvases earlier), nor the self-conditioning logits [batch, " +
         std::to_string(canvas) + ", vocab] (float32) each step keeps for the next; in training, the decoder's "
         "pass over the canvas beside the encoder's over the prompt.");
  if (c.has("vision_config"))
    b.note("Images: planned at Gemma4ImageProcessor's default budget, 280 soft tokens per image from 2520 patches "
           "(max_soft_tokens 280 x pooling_kernel_size 3^2).");
  Model m = b.finish();
  rename_prefix(m, "model.vision_tower.", "model.encoder.vision_tower.");
  rename_prefix(m, "model.embed_vision.", "model.encoder.embed_vision.");
  return m;
}

}  // namespace cardfit::families

// The standard decoder-only config keys, read once, and the pre-norm decoder layer most
// families share (Llama, Mistral, Qwen2, ...). Families override what differs.
#pragma once
#include <functional>
#include <string>

#include "../config.hpp"
#include "blocks.hpp"

namespace cardfit {

/// The Hugging Face keys every Llama-like config class has, with the class defaults applied.
struct DecoderShape {
  int64_t vocab = 0, hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0;
  int64_t intermediate = 0, max_positions = 0;
  bool tied = false;
  int64_t sliding_window = 0;
};

struct DecoderDefaults {
  bool tie_word_embeddings = false;   // the config class's default
  int64_t max_positions = 2048;       // the config class's default for max_position_embeddings
  bool intermediate_required = true;
};

/// Reads vocab_size, hidden_size, num_hidden_layers, num_attention_heads, num_key_value_heads
/// (default: heads), head_dim (default: hidden / heads), intermediate_size, max_position_embeddings,
/// tie_word_embeddings; checks that heads divide hidden when head_dim is implied and that
/// kv heads divide heads.
DecoderShape read_decoder_shape(const Config& cfg, const DecoderDefaults& defaults);

/// Fills Model::dims from a DecoderShape.
void set_dims(ModelBuilder& b, const DecoderShape& d, const Config& cfg);

/// One pre-norm decoder layer: input norm, attention, residual, post-attention norm, MLP, residual.
struct DecoderLayerSpec {
  std::string prefix;                    // "model.layers.3"
  AttentionSpec attn;                    // prefix filled in by the caller as prefix + ".self_attn"
  MlpSpec mlp;                           // prefix filled in as prefix + ".mlp"
  NormKind norm = NormKind::rmsnorm;
  std::string input_norm = "input_layernorm", post_attn_norm = "post_attention_layernorm";
  int64_t hidden = 0;
};
void pre_norm_decoder_layer(ModelBuilder& b, const DecoderLayerSpec& spec);

/// One sandwich-norm decoder layer (Gemma 2/3): input norm, attention, post-attention norm, residual,
/// pre-feedforward norm, MLP, post-feedforward norm, residual. Four norms per layer; an empty
/// name drops that norm (OLMo 2: only the post-attention and post-feedforward norms).
struct SandwichLayerSpec {
  std::string prefix;                    // "model.layers.3"
  AttentionSpec attn;                    // prefix filled in by the caller as prefix + ".self_attn"
  MlpSpec mlp;                           // prefix filled in as prefix + ".mlp"
  NormKind norm = NormKind::rmsnorm;
  std::string input_norm = "input_layernorm", post_attn_norm = "post_attention_layernorm";
  std::string pre_ff_norm = "pre_feedforward_layernorm", post_ff_norm = "post_feedforward_layernorm";
  int64_t hidden = 0;
};
void sandwich_norm_decoder_layer(ModelBuilder& b, const SandwichLayerSpec& spec);

/// Checkpoint names of the Hugging Face *ForCausalLM skeleton.
struct CausalLmNames {
  std::string embed = "model.embed_tokens", layers = "model.layers", norm = "model.norm", head = "lm_head";
  NormKind norm_kind = NormKind::rmsnorm;
};
/// The skeleton most decoders share: the token embedding, `d.layers` layers (each declared by
/// `layer(index, prefix)` inside its own block), the final norm, and the LM head, tied to the
/// embedding when the config ties them.
void causal_lm_stack(ModelBuilder& b, const DecoderShape& d, const CausalLmNames& names,
                     const std::function<void(int layer, const std::string& prefix)>& layer);

}  // namespace cardfit

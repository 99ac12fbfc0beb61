// The standard decoder-only config keys, read once, and the pre-norm decoder layer most
// families share (Llama, Mistral, Qwen2, ...). Families override what differs.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "../config.hpp"
#include "../function_ref.hpp"
#include "blocks.hpp"
#include "mla.hpp"
#include "ssm.hpp"

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
  int64_t kv_heads = 0;               // the class's num_key_value_heads (0: num_attention_heads)
  int64_t head_dim = 0;               // the class's head_dim (0: hidden_size / num_attention_heads)
};

/// Reads vocab_size, hidden_size, num_hidden_layers, num_attention_heads, num_key_value_heads
/// (default: the class's, else heads), head_dim (default: the class's, else hidden / heads),
/// intermediate_size, max_position_embeddings,
/// tie_word_embeddings; checks that heads divide hidden when head_dim is implied and that
/// kv heads divide heads.
DecoderShape read_decoder_shape(const Config& cfg, const DecoderDefaults& defaults);

/// Fills what the graph cannot tell into Model::dims: the context length and initializer range.
void set_dims(ModelBuilder& b, const DecoderShape& d, const Config& cfg);

/// The token mixer of one layer: attention (attn), or multi-head latent attention, or a Mamba mixer.
struct MixerSpec {
  AttentionSpec attn;               // used unless one of the others is set
  std::optional<MlaSpec> mla;       // DeepSeek-V2/V3
  std::optional<MambaSpec> mamba;   // Jamba's SSM layers
};
void mixer(ModelBuilder& b, const MixerSpec& spec);

/// The feed-forward of one layer: a dense MLP, or a mixture of experts stored per expert (moe) or
/// as stacked bare parameters (fused_moe).
struct FeedForwardSpec {
  MlpSpec mlp;                          // used unless one of the others is set
  std::optional<MoeSpec> moe;
  std::optional<FusedMoeSpec> fused_moe;
};
void feed_forward(ModelBuilder& b, const FeedForwardSpec& spec);

/// One pre-norm decoder layer: input norm, mixer, residual, post-attention norm, feed-forward,
/// residual. The mixer and feed-forward variants compose freely (`moe`, `mla`, `mamba`).
struct DecoderLayerSpec {
  std::string prefix;                    // "model.layers.3"
  AttentionSpec attn;                    // prefix filled in by the caller as prefix + ".self_attn"
  MlpSpec mlp;                           // prefix filled in as prefix + ".mlp"
  NormKind norm = NormKind::rmsnorm;
  std::string input_norm = "input_layernorm", post_attn_norm = "post_attention_layernorm";
  std::string mixer_residual = "residual_attn";  // the display name of the first residual add
  int64_t hidden = 0;
  std::optional<MoeSpec> moe;            // set: a mixture of experts instead of mlp
  std::optional<FusedMoeSpec> fused_moe; // set: stacked-parameter experts instead of mlp
  std::optional<MlaSpec> mla;            // set: latent attention instead of attn
  std::optional<MambaSpec> mamba;        // set: a Mamba mixer instead of attn
};
void pre_norm_decoder_layer(ModelBuilder& b, const DecoderLayerSpec& spec);

/// The attention window of every layer of an attention-only model: read_layer_types (layer_types.hpp)
/// with "full_attention" / "sliding_attention" allowed, so a mixer cardfit does not model is
/// refused, never traced as attention; absent, `slides(layer)`. Sliding layers get `window`.
std::vector<int64_t> layer_windows(const Config& c, int64_t layers, int64_t window,
                                   FunctionRef<bool(int layer)> slides);

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
  std::optional<MoeSpec> moe;            // set: a mixture of experts instead of mlp
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
                     FunctionRef<void(int layer, const std::string& prefix)> layer);

}  // namespace cardfit

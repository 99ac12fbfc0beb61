// Standard decoder keys and the shared pre-norm layer.
#include "decoder.hpp"

#include "layer_types.hpp"

namespace cardfit {

DecoderShape read_decoder_shape(const Config& c, const DecoderDefaults& defaults) {
  DecoderShape d;
  d.vocab = c.positive({"vocab_size"});
  d.hidden = c.positive({"hidden_size", "n_embd", "d_model"});
  d.layers = c.positive({"num_hidden_layers", "n_layer", "num_layers"});
  d.heads = c.positive({"num_attention_heads", "n_head"});
  d.kv_heads = c.positive_or({"num_key_value_heads"}, defaults.kv_heads > 0 ? defaults.kv_heads : d.heads);
  if (c.has("head_dim")) {
    d.head_dim = c.positive({"head_dim"});
  } else if (defaults.head_dim > 0) {
    d.head_dim = defaults.head_dim;
  } else {
    require(d.hidden % d.heads == 0, c, "num_attention_heads",
            "hidden_size (" + std::to_string(d.hidden) + ") must be divisible by num_attention_heads (" +
                std::to_string(d.heads) + ") when head_dim is not given.");
    d.head_dim = d.hidden / d.heads;
  }
  require(d.heads % d.kv_heads == 0, c, "num_key_value_heads",
          "num_key_value_heads (" + std::to_string(d.kv_heads) + ") must divide num_attention_heads (" +
              std::to_string(d.heads) + ").");
  d.intermediate = defaults.intermediate_required ? c.positive({"intermediate_size"})
                                                  : c.positive_or({"intermediate_size"}, 4 * d.hidden);
  d.max_positions = c.positive_or({"max_position_embeddings"}, defaults.max_positions);
  d.tied = c.boolean_or("tie_word_embeddings", defaults.tie_word_embeddings);
  d.sliding_window = c.count_or({"sliding_window"}, 0);
  return d;
}

void set_dims(ModelBuilder& b, const DecoderShape& d, const Config& cfg) {
  // The structural fields (hidden, heads, vocab, ...) are read off the graph (derive_dims).
  Dims& m = b.dims();
  m.max_positions = d.max_positions;
  m.initializer_range = cfg.number_or("initializer_range", 0.02);
}

void mixer(ModelBuilder& b, const MixerSpec& s) {
  if (s.mla) mla_attention_block(b, *s.mla);
  else if (s.mamba) mamba_mixer(b, *s.mamba);
  else attention_block(b, s.attn);
}

void feed_forward(ModelBuilder& b, const FeedForwardSpec& s) {
  if (s.moe) moe_block(b, *s.moe);
  else if (s.fused_moe) fused_moe_block(b, *s.fused_moe);
  else mlp_block(b, s.mlp);
}

void pre_norm_decoder_layer(ModelBuilder& b, const DecoderLayerSpec& s) {
  const std::string p = s.prefix + ".";
  b.norm(p + s.input_norm, s.hidden, s.norm);
  mixer(b, {.attn = s.attn, .mla = s.mla, .mamba = s.mamba});
  b.residual(p + s.mixer_residual, s.hidden);
  b.norm(p + s.post_attn_norm, s.hidden, s.norm);
  feed_forward(b, {.mlp = s.mlp, .moe = s.moe, .fused_moe = s.fused_moe});
  b.residual(p + "residual_mlp", s.hidden);
}

std::vector<int64_t> layer_windows(const Config& c, int64_t layers, int64_t window,
                                   FunctionRef<bool(int layer)> slides) {
  const std::vector<std::string> types =
      read_layer_types(c, layers, {"full_attention", "sliding_attention"},
                       [&](int64_t i) { return slides(int(i)) ? "sliding_attention" : "full_attention"; });
  std::vector<int64_t> out;
  for (const auto& t : types) out.push_back(window_of(t, window));
  return out;
}

void sandwich_norm_decoder_layer(ModelBuilder& b, const SandwichLayerSpec& s) {
  const std::string p = s.prefix + ".";
  // An empty norm name means the layer has no such norm (OLMo 2 keeps only the two post norms).
  if (!s.input_norm.empty()) b.norm(p + s.input_norm, s.hidden, s.norm);
  attention_block(b, s.attn);
  if (!s.post_attn_norm.empty()) b.norm(p + s.post_attn_norm, s.hidden, s.norm);
  b.residual(p + "residual_attn", s.hidden);
  if (!s.pre_ff_norm.empty()) b.norm(p + s.pre_ff_norm, s.hidden, s.norm);
  feed_forward(b, {.mlp = s.mlp, .moe = s.moe});
  if (!s.post_ff_norm.empty()) b.norm(p + s.post_ff_norm, s.hidden, s.norm);
  b.residual(p + "residual_mlp", s.hidden);
}

void causal_lm_stack(ModelBuilder& b, const DecoderShape& d, const CausalLmNames& n,
                     FunctionRef<void(int layer, const std::string& prefix)> layer) {
  b.block(n.embed, "embedding");
  token_embedding(b, n.embed, d.vocab, d.hidden);
  for (int i = 0; i < d.layers; ++i) {
    const std::string prefix = n.layers + "." + std::to_string(i);
    b.block(prefix, "decoder_layer", i);
    layer(i, prefix);
  }
  b.block("final", "final");
  b.norm(n.norm, d.hidden, n.norm_kind);
  lm_head(b, n.head, d.hidden, d.vocab, d.tied ? n.embed + ".weight" : "");
}

}  // namespace cardfit

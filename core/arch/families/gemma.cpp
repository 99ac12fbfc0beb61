// Gemma (transformers models/gemma), Gemma 2 (models/gemma2: sandwich norms, every other layer
// sliding), Gemma 3 text (models/gemma3 Gemma3ForCausalLM: sandwich norms, per-head q/k norms,
// five sliding layers to one global) and Gemma 3 multimodal (Gemma3ForConditionalGeneration: a
// SigLIP vision tower, the pooled projector and the Gemma 3 text model under "language_model.").
// Gemma's RMSNorm scales by (1 + weight): still one weight vector per norm.
#include <cmath>

#include "../../error.hpp"
#include "../decoder.hpp"
#include "../vision.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
enum class Gen { v1, v2, v3 };

struct GemmaText {
  int64_t vocab = 0, hidden = 0, intermediate = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0;
  int64_t max_positions = 0, sliding_window = 0;
  bool tied = true, attention_bias = false;
  std::string act;
  std::vector<int64_t> window;  // per layer: the sliding window, 0 for global layers
};

// The config classes' defaults: GemmaConfig, Gemma2Config, Gemma3TextConfig.
GemmaText read_text(const Config& c, Gen g) {
  GemmaText t;
  const bool v1 = g == Gen::v1;
  t.vocab = c.positive_or({"vocab_size"}, g == Gen::v3 ? 262208 : 256000);
  t.hidden = c.positive_or({"hidden_size"}, v1 ? 3072 : 2304);
  t.intermediate = c.positive_or({"intermediate_size"}, v1 ? 24576 : 9216);
  t.layers = c.positive_or({"num_hidden_layers"}, v1 ? 28 : 26);
  t.heads = c.positive_or({"num_attention_heads"}, v1 ? 16 : 8);
  t.kv_heads = c.positive_or({"num_key_value_heads"}, v1 ? 16 : 4);
  t.head_dim = c.positive_or({"head_dim"}, 256);
  t.max_positions = c.positive_or({"max_position_embeddings"}, g == Gen::v3 ? 131072 : 8192);
  t.tied = c.boolean_or("tie_word_embeddings", true);
  t.attention_bias = c.boolean_or("attention_bias", false);
  t.act = c.string_or("hidden_activation", c.string_or("hidden_act", "gelu_pytorch_tanh"));
  require(t.heads % t.kv_heads == 0, c, "num_key_value_heads",
          "num_key_value_heads (" + std::to_string(t.kv_heads) + ") must divide num_attention_heads (" +
              std::to_string(t.heads) + ").");
  if (g == Gen::v1) {
    t.window.assign(size_t(t.layers), 0);
    return t;
  }
  t.sliding_window = c.positive_or({"sliding_window"}, 4096);
  // layer_types when given; else Gemma 2: even layers slide; Gemma 3: every layer but each
  // sliding_window_pattern-th slides.
  const int64_t pattern = g == Gen::v2 ? 2 : c.positive_or({"sliding_window_pattern", "_sliding_window_pattern"}, 6);
  t.window = layer_windows(c, t.layers, t.sliding_window, [&](int i) { return (i + 1) % pattern != 0; });
  return t;
}

void set_text_dims(ModelBuilder& b, const GemmaText& t, const Config& c) {
  Dims& d = b.dims();
  d.hidden = t.hidden;
  d.layers = t.layers;
  d.heads = t.heads;
  d.kv_heads = t.kv_heads;
  d.head_dim = t.head_dim;
  d.intermediate = t.intermediate;
  d.vocab = t.vocab;
  d.max_positions = t.max_positions;
  d.sliding_window = t.sliding_window;
  d.tied_embeddings = t.tied;
  d.initializer_range = c.number_or("initializer_range", 0.02);
}

// The decoder under `prefix` ("" for *ForCausalLM, "language_model." inside the multimodal model).
void gemma_text(ModelBuilder& b, const GemmaText& t, Gen g, const std::string& prefix) {
  const std::string embed = prefix + "model.embed_tokens";
  b.block(embed, "embedding");
  token_embedding(b, embed, t.vocab, t.hidden);
  for (int i = 0; i < t.layers; ++i) {
    const std::string p = prefix + "model.layers." + std::to_string(i);
    b.block(p, "decoder_layer", i);
    AttentionSpec attn{.prefix = p + ".self_attn", .hidden = t.hidden, .heads = t.heads, .kv_heads = t.kv_heads,
                       .head_dim = t.head_dim, .q_bias = t.attention_bias, .k_bias = t.attention_bias,
                       .v_bias = t.attention_bias, .o_bias = t.attention_bias, .window = t.window[size_t(i)]};
    if (g == Gen::v3) {
      attn.q_norm = "q_norm";
      attn.k_norm = "k_norm";
    }
    MlpSpec mlp{.prefix = p + ".mlp", .hidden = t.hidden, .intermediate = t.intermediate, .act = t.act};
    if (g == Gen::v1)
      pre_norm_decoder_layer(b, {.prefix = p, .attn = attn, .mlp = mlp, .hidden = t.hidden});
    else
      sandwich_norm_decoder_layer(b, {.prefix = p, .attn = attn, .mlp = mlp, .hidden = t.hidden});
  }
  b.block(prefix + "final", "final");
  b.norm(prefix + "model.norm", t.hidden, NormKind::rmsnorm);
  lm_head(b, prefix + "lm_head", t.hidden, t.vocab, t.tied ? embed + ".weight" : "");
}

Model gemma_causal(const Config& c, Gen g, const char* type) {
  const GemmaText t = read_text(c, g);
  ModelBuilder b(c.string_or("model_type", type), "gemma");
  set_text_dims(b, t, c);
  gemma_text(b, t, g, "");
  return b.finish();
}
}  // namespace

Model gemma(const Config& c) {
  const std::string type = c.string_or("model_type", "gemma");
  if (type == "gemma2") return gemma_causal(c, Gen::v2, "gemma2");
  if (type == "gemma3_text") return gemma_causal(c, Gen::v3, "gemma3_text");
  if (type == "gemma3") return gemma3(c);
  return gemma_causal(c, Gen::v1, "gemma");
}

Model gemma3(const Config& c) {
  // Gemma3Config: a missing text_config or vision_config is the class default
  // (Gemma3TextConfig(), SiglipVisionConfig()).
  const Config text = child_or_empty(c, "text_config");
  const Config vision = child_or_empty(c, "vision_config");
  GemmaText t = read_text(text, Gen::v3);
  t.tied = text.boolean_or("tie_word_embeddings", c.boolean_or("tie_word_embeddings", true));
  const VitSpec v = read_vit(vision, "siglip_vision_model", "vision_tower.vision_model");

  ModelBuilder b(c.string_or("model_type", "gemma3"), "gemma");
  set_text_dims(b, t, text);
  vit_encoder(b, v);
  // Gemma3MultiModalProjector: avg_pool2d with kernel = patches per side / sqrt(mm_tokens_per_image)
  // over the patch grid, so each image gives (side / kernel)^2 tokens (256 for Gemma 3).
  const int64_t side = v.image_size / v.patch_size;
  const auto per_side = int64_t(std::sqrt(double(c.positive_or({"mm_tokens_per_image"}, 256))));
  const int64_t pooled = per_side <= side ? side / (side / per_side) : side;
  if (per_side > side)
    b.note("mm_tokens_per_image exceeds the " + std::to_string(side * side) +
           " patches per image (the pool's kernel would be 0): planned without pooling.");
  matrix_projector(b, {.prefix = "multi_modal_projector", .in = v.hidden, .out = t.hidden,
                       .tokens_per_image = pooled * pooled});
  gemma_text(b, t, Gen::v3, "language_model.");
  return b.finish();
}

}  // namespace cardfit::families

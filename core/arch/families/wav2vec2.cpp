// wav2vec 2.0 (transformers models/wav2vec2/modeling_wav2vec2.py): the conv feature encoder and
// projection (audio.hpp wav2vec2_front), post-norm encoder layers (attention.q/k/v/out_proj with
// biases, layer_norm, feed_forward.intermediate_dense / output_dense, final_layer_norm; pre-norm with
// do_stable_layer_norm), and the head of architectures[0]: Wav2Vec2ForCTC (lm_head [vocab, hidden]),
// Wav2Vec2ForPreTraining (quantizer.codevectors [1, G*V, codevector_dim / G], quantizer.weight_proj,
// project_hid, project_q), Wav2Vec2ForSequenceClassification (projector + classifier, layer_weights
// with use_weighted_layer_sum), Wav2Vec2Model (none, no prefix). seq counts encoder frames (one per
// 20 ms of 16 kHz audio: 50 per second).
#include "../audio.hpp"
#include "../encoders.hpp"
#include "../layers.hpp"
#include "../../limits.hpp"
#include "families.hpp"

namespace cardfit::families {

Model wav2vec2(const Config& c) {
  ModelBuilder b("wav2vec2", "wav2vec2");
  // Wav2Vec2Config defaults: hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
  // intermediate_size=3072, hidden_act="gelu", feat_extract_norm="group", conv_dim=(512,)*7,
  // conv_stride=(5,2,2,2,2,2,2), conv_kernel=(10,3,3,3,3,2,2), conv_bias=False,
  // num_conv_pos_embeddings=128, num_conv_pos_embedding_groups=16, do_stable_layer_norm=False,
  // mask_time_prob=0.05, vocab_size=32, num_codevectors_per_group=320, num_codevector_groups=2,
  // codevector_dim=256, proj_codevector_dim=256, classifier_proj_size=256.
  const int64_t hidden = c.positive_or({"hidden_size"}, 768);
  const int64_t layers = c.positive_or({"num_hidden_layers"}, 12);
  const int64_t heads = c.positive_or({"num_attention_heads"}, 12);
  const int64_t inter = c.positive_or({"intermediate_size"}, 3072);
  const std::string act = c.string_or("hidden_act", "gelu");
  require(hidden % heads == 0, c, "num_attention_heads", "hidden_size must be divisible by num_attention_heads.");
  auto list_or = [&](const char* key, std::vector<int64_t> fallback) {
    return c.has(key) ? c.integer_list(key) : fallback;
  };
  Wav2Vec2FrontSpec f{.dims = list_or("conv_dim", {512, 512, 512, 512, 512, 512, 512}),
                      .kernels = list_or("conv_kernel", {10, 3, 3, 3, 3, 2, 2}),
                      .strides = list_or("conv_stride", {5, 2, 2, 2, 2, 2, 2}),
                      .conv_bias = c.boolean_or("conv_bias", false),
                      .norm = c.string_or("feat_extract_norm", "group"),
                      .act = c.string_or("feat_extract_activation", "gelu"), .hidden = hidden,
                      .masked_spec_embed = c.number_or("mask_time_prob", 0.05) > 0 || c.number_or("mask_feature_prob", 0) > 0,
                      .pos_kernel = c.positive_or({"num_conv_pos_embeddings"}, 128),
                      .pos_groups = c.positive_or({"num_conv_pos_embedding_groups"}, 16),
                      .stable_layer_norm = c.boolean_or("do_stable_layer_norm", false)};
  require(!f.dims.empty() && f.dims.size() == f.kernels.size() && f.dims.size() == f.strides.size(), c, "conv_dim",
          "conv_dim, conv_kernel and conv_stride must list the same number (at least one) of conv layers.");
  for (const auto& [key, list] : {std::pair{"conv_dim", &f.dims}, {"conv_kernel", &f.kernels}, {"conv_stride", &f.strides}})
    for (int64_t v : *list)
      require(v >= 1 && v <= field_max(key), c, key, std::string(key) + " entries must be between 1 and " + std::to_string(field_max(key)) + ".");
  require(f.norm == "group" || f.norm == "layer", c, "feat_extract_norm", "feat_extract_norm must be \"group\" or \"layer\".");
  require(hidden % f.pos_groups == 0, c, "num_conv_pos_embedding_groups",
          "hidden_size must be divisible by num_conv_pos_embedding_groups.");
  require(!c.boolean_or("add_adapter", false), c, "add_adapter", "wav2vec2 with add_adapter is not traced yet.");
  const std::string arch = first_architecture(c);
  const bool bare = arch.empty() || arch.ends_with("Wav2Vec2Model");
  f.prefix = bare ? "" : "wav2vec2";
  const std::string p = bare ? "" : "wav2vec2.";
  const int64_t vocab = c.positive_or({"vocab_size"}, 32);
  b.dims() = Dims{.hidden = hidden, .layers = layers, .heads = heads, .kv_heads = heads, .head_dim = hidden / heads,
                  .intermediate = inter, .vocab = vocab, .encoder_only = true,
                  .initializer_range = c.number_or("initializer_range", 0.02)};
  b.note("seq counts encoder frames: one per 320 waveform samples (20 ms at 16 kHz), 50 per second of audio.");

  const ValueId features = wav2vec2_front(b, f);
  for (int i = 0; i < layers; ++i) {
    const std::string l = p + "encoder.layers." + std::to_string(i);
    b.block(l, "encoder_layer", i);
    residual_layer(b, {.prefix = l, .hidden = hidden, .norm = NormKind::layernorm, .post_norm = !f.stable_layer_norm,
                       .attn = {.prefix = l + ".attention", .hidden = hidden, .heads = heads, .kv_heads = heads,
                                .head_dim = hidden / heads, .q_bias = true, .k_bias = true, .v_bias = true,
                                .o_bias = true, .o = "out_proj", .causal = false},
                       .attn_norm = l + ".layer_norm",
                       .mlp = {.prefix = l + ".feed_forward", .hidden = hidden, .intermediate = inter, .gated = false,
                               .bias = true, .act = act, .up = "intermediate_dense", .down = "output_dense"},
                       .mlp_norm = l + ".final_layer_norm"});
  }
  b.block("heads", "final");
  if (f.stable_layer_norm) b.norm(p + "encoder.layer_norm", hidden, NormKind::layernorm);
  const ValueId x = b.cursor();
  if (arch.ends_with("ForCTC")) {
    head_linear(b, "lm_head", hidden, vocab);
  } else if (arch.ends_with("ForPreTraining")) {
    const int64_t groups = c.positive_or({"num_codevector_groups"}, 2);
    const int64_t per_group = c.positive_or({"num_codevectors_per_group"}, 320);
    const int64_t codevector = c.positive_or({"codevector_dim"}, 256);
    const int64_t proj = c.positive_or({"proj_codevector_dim"}, 256);
    require(codevector % groups == 0, c, "codevector_dim", "codevector_dim must be divisible by num_codevector_groups.");
    head_linear(b, "project_hid", hidden, proj);
    // The Gumbel quantizer reads the conv features (not the encoder output): weight_proj → codevectors.
    b.read(features);
    head_linear(b, "quantizer.weight_proj", f.dims.back(), groups * per_group);
    Node cv;
    cv.name = "quantizer.codevectors";
    cv.op = Op::other;
    cv.detail = "codebook";  // Gumbel-softmax picks one codevector per group
    cv.in = groups * per_group;
    cv.out = codevector;
    cv.params = b.tensor(cv.name, {1, groups * per_group, codevector / groups}, Role::head);
    b.node(cv);
    head_linear(b, "project_q", codevector, proj);
  } else if (arch.ends_with("ForSequenceClassification")) {
    if (c.boolean_or("use_weighted_layer_sum", false)) {
      Node w;
      w.name = "layer_weights";
      w.op = Op::other;
      w.in = w.out = hidden;
      w.params = b.tensor("layer_weights", {layers + 1}, Role::head);
      b.node(w);
    }
    const int64_t proj = c.positive_or({"classifier_proj_size"}, 256);
    b.read(x);
    head_linear(b, "projector", hidden, proj);
    head_linear(b, "classifier", proj, num_labels(c, 2));
  }
  return b.finish();
}

}  // namespace cardfit::families

// Qwen3-Omni-MoE's code2wav vocoder (see qwen3_omni.hpp). Fallbacks for absent keys are
// Qwen/Qwen3-Omni-30B-A3B-Instruct's published code2wav_config values (read 2026-12-02).
#include "qwen3_omni.hpp"

namespace cardfit {

namespace {
// A Conv1d / ConvTranspose1d as the planner sees it: one im2col row of in/groups × kernel → out.
// Conv1d stores [out, in / groups, kernel]; ConvTranspose1d [in, out, kernel]. Both with bias.
void conv(ModelBuilder& b, const std::string& name, int64_t in, int64_t out, int64_t kernel, bool transposed,
          int64_t groups = 1) {
  Node n;
  n.name = name;
  n.op = Op::linear;
  n.detail = transposed ? "conv_transpose1d" : "conv1d";
  n.linear = LinearKind::patch_conv;  // not an nn.Linear
  n.in = in / groups * kernel;
  n.out = out;
  const Shape w = transposed ? Shape{in, out, kernel} : Shape{out, in / groups, kernel};
  n.params = b.tensor(name + ".weight", w, Role::other) + b.tensor(name + ".bias", {out}, Role::other);
  b.node(n);
}

// A learned per-channel vector applied elementwise: SnakeBeta (alpha, beta), LayerScale (scale),
// the ConvNeXt block's gamma.
void channel_params(ModelBuilder& b, const std::string& name, int64_t dim, std::vector<std::string> leaves,
                    const std::string& detail) {
  Node n;
  n.name = name;
  n.op = Op::other;
  n.detail = detail;
  n.in = n.out = dim;
  for (const auto& leaf : leaves) n.params += b.tensor(name + (name.empty() ? "" : ".") + leaf, {dim}, Role::other);
  b.node(n);
}
void snake(ModelBuilder& b, const std::string& name, int64_t dim) { channel_params(b, name, dim, {"alpha", "beta"}, "snake_beta"); }
}  // namespace

void omni_code2wav(ModelBuilder& b, const Config& c) {
  const int64_t h = c.positive_or({"hidden_size"}, 1024), layers = c.positive_or({"num_hidden_layers"}, 8);
  const int64_t heads = c.positive_or({"num_attention_heads"}, 16), kv = c.positive_or({"num_key_value_heads"}, 16);
  const int64_t inter = c.positive_or({"intermediate_size"}, 3072), window = c.positive_or({"sliding_window"}, 72);
  const int64_t codebook = c.positive_or({"codebook_size"}, 2048), quantizers = c.positive_or({"num_quantizers"}, 16);
  const int64_t decoder_dim = c.positive_or({"decoder_dim"}, 1536);
  const std::vector<int64_t> rates = c.has("upsample_rates") ? c.integer_list("upsample_rates") : std::vector<int64_t>{8, 5, 4, 3};
  const std::vector<int64_t> ratios =
      c.has("upsampling_ratios") ? c.integer_list("upsampling_ratios") : std::vector<int64_t>{2, 2};
  require(h % heads == 0, c, "num_attention_heads", "code2wav hidden_size must be divisible by num_attention_heads.");
  require(decoder_dim >> rates.size() > 0, c, "decoder_dim", "decoder_dim must survive one halving per upsample rate.");
  const std::string p = "code2wav.";

  b.restart();
  b.block(p + "code_embedding", "other");
  b.reads({});
  b.embedding(p + "code_embedding", quantizers * codebook, h);  // one table, offset per quantizer
  for (int64_t i = 0; i < layers; ++i) {
    // Qwen3OmniMoeCode2WavTransformerLayer: RMSNorm → sliding-window attention (no q/k norms) →
    // self_attn_layer_scale → add → RMSNorm → SiLU-gated MLP → mlp_layer_scale → add.
    const std::string l = p + "pre_transformer.layers." + std::to_string(i);
    b.block(l, "other");
    b.norm(l + ".input_layernorm", h, NormKind::rmsnorm);
    attention_block(b, {.prefix = l + ".self_attn", .hidden = h, .heads = heads, .kv_heads = kv, .head_dim = h / heads,
                        .window = window});
    channel_params(b, l + ".self_attn_layer_scale", h, {"scale"}, "layer_scale");
    b.residual(l + ".residual_attn", h);
    b.norm(l + ".post_attention_layernorm", h, NormKind::rmsnorm);
    mlp_block(b, {.prefix = l + ".mlp", .hidden = h, .intermediate = inter, .act = "silu"});
    channel_params(b, l + ".mlp_layer_scale", h, {"scale"}, "layer_scale");
    b.residual(l + ".residual_mlp", h);
  }
  b.block(p + "upsample", "other");
  b.norm(p + "pre_transformer.norm", h, NormKind::rmsnorm);
  for (size_t i = 0; i < ratios.size(); ++i) {
    // upsample.i.0: ConvTranspose1d (kernel = stride = ratio); upsample.i.1: Qwen3OmniMoeConvNeXtBlock
    // (depthwise Conv1d k7 → LayerNorm → pwconv1 → GELU → pwconv2 → gamma → add).
    const std::string u = p + "upsample." + std::to_string(i);
    conv(b, u + ".0.conv", h, h, ratios[i], true);
    conv(b, u + ".1.dwconv.conv", h, h, 7, false, h);
    b.norm(u + ".1.norm", h, NormKind::layernorm);
    b.linear(u + ".1.pwconv1", h, 4 * h, {.bias = true, .role = Role::other});
    b.activation(u + ".1.act", 4 * h, "gelu");
    b.linear(u + ".1.pwconv2", 4 * h, h, {.bias = true, .role = Role::other});
    channel_params(b, u + ".1", h, {"gamma"}, "layer_scale");
  }
  b.block(p + "decoder", "other");
  conv(b, p + "decoder.0.conv", h, decoder_dim, 7, false);
  int64_t ch = decoder_dim;
  for (size_t i = 0; i < rates.size(); ++i) {
    // Qwen3OmniMoeCode2WavDecoderBlock: SnakeBeta → ConvTranspose1d (kernel 2 * rate, stride rate) →
    // three residual units (SnakeBeta → Conv1d k7, dilation 1 / 3 / 9 → SnakeBeta → Conv1d k1 → add).
    const std::string d = p + "decoder." + std::to_string(i + 1) + ".block.";
    const int64_t out = ch / 2;
    snake(b, d + "0", ch);
    conv(b, d + "1.conv", ch, out, 2 * rates[i], true);
    for (int u = 2; u <= 4; ++u) {
      const std::string r = d + std::to_string(u);
      snake(b, r + ".act1", out);
      conv(b, r + ".conv1.conv", out, out, 7, false);
      snake(b, r + ".act2", out);
      conv(b, r + ".conv2.conv", out, out, 1, false);
    }
    ch = out;
  }
  snake(b, p + "decoder." + std::to_string(rates.size() + 1), ch);
  conv(b, p + "decoder." + std::to_string(rates.size() + 2) + ".conv", ch, 1, 7, false);
}

}  // namespace cardfit

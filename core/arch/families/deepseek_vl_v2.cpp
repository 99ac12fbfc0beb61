// DeepSeek-VL2 (remote code: deepseek-ai/DeepSeek-VL2 deepseek_vl2/models/modeling_deepseek_vl_v2.py,
// DeepseekVLV2ForCausalLM, model_type "deepseek_vl_v2"; read 2026-12-01). Stored as its checkpoints hold it:
//   vision.*     a timm VisionTransformer (timm_vit.hpp) from vision_config (VisionEncoderConfig: width,
//                layers, heads, mlp_ratio, image_size 384, patch_size, global_pool "map" builds the
//                attention pool that ignore_head never runs);
//   projector.*  MlpProjector from projector_config (MlpProjectorConfig defaults: downsample_mlp_gelu,
//                input_dim 1152, n_embed 2048, depth 2, mlp_ratio 1, downsample_ratio 2): the tile's
//                patch grid padded to a multiple of downsample_ratio, each ratio × ratio group unfolded
//                into one token, then layers.0, GELU, layers.2, ...; "mlp_gelu" and "linear" too;
//   image_newline, view_seperator [n_embed] (tile_tag "2D"), or tile_indicators (tile_tag "1D");
//   language.*   DeepseekV2ForCausalLM of language_config (the remote DeepseekV2Config's defaults
//                filled in where a key is absent), traced by the deepseek family: language.model.*,
//                language.lm_head.weight.
// Images: one image_size × image_size tile each (384 px: 27 × 27 = 729 patches, 14 × 14 = 196 tokens);
// the processor sends a global view and up to 9 local tiles per image, so `images` counts tiles.
// DeepSeek-OCR shares the model_type with another tower (SAM + CLIP, DeepseekOCRForCausalLM): refused.
#include <nlohmann/json.hpp>

#include "../../error.hpp"
#include "../encoders.hpp"
#include "../registry.hpp"
#include "../timm_vit.hpp"
#include "../vision.hpp"
#include "vlm_tier2.hpp"

namespace cardfit::families {

namespace {
// deepseek_vl2/models/configuration_deepseek.py DeepseekV2Config defaults where they differ from what
// the deepseek family assumes for an absent key (n_routed_experts / n_shared_experts None: dense).
constexpr const char* kRemoteV2Defaults = R"({"model_type": "deepseek_v2", "vocab_size": 102400,
  "hidden_size": 4096, "intermediate_size": 11008, "moe_intermediate_size": 1407, "num_hidden_layers": 30,
  "num_attention_heads": 32, "n_shared_experts": null, "n_routed_experts": null, "kv_lora_rank": 512,
  "q_lora_rank": 1536, "qk_rope_head_dim": 64, "v_head_dim": 128, "qk_nope_head_dim": 128,
  "topk_method": "gready", "first_k_dense_replace": 0, "max_position_embeddings": 2048,
  "tie_word_embeddings": false, "use_mla": true})";

nlohmann::json language_json(const Config& c) {
  nlohmann::json lang = nlohmann::json::parse(kRemoteV2Defaults);
  const Config given = child_or_empty(c, "language_config");
  for (const auto& [key, value] : given.raw().items()) lang[key] = value;  // explicit nulls kept: they mean none
  lang["model_type"] = "deepseek_v2";
  return lang;
}
}  // namespace

Model deepseek_vl_v2(const Config& c) {
  const std::string arch = first_architecture(c);
  require(arch.empty() || arch == "DeepseekVLV2ForCausalLM", c, "architectures",
          "deepseek_vl_v2 with architectures \"" + arch.substr(0, 60) + "\" is not supported: cardfit traces "
          "DeepSeek-VL2 (DeepseekVLV2ForCausalLM); DeepSeek-OCR's SAM + CLIP tower is not traced yet.");
  const nlohmann::json lang = language_json(c);
  const Config lc(std::make_shared<const nlohmann::json>(lang), c.path_of("language_config"));
  require(lc.boolean_or("use_mla", true), lc, "use_mla",
          "language_config.use_mla false (DeepSeek-VL2-Tiny's multi-head attention) is not traced yet; cardfit "
          "traces DeepSeek-V2's latent attention.");
  const Model language = trace_model(lc);

  // VisionEncoderConfig defaults: image_size 384, patch_size 16, width 1024, layers 24, heads 16,
  // mlp_ratio 4, global_pool "map", class_token false.
  const Config v = child_or_empty(c, "vision_config");
  TimmVitSpec t;
  t.width = v.positive_or({"width"}, 1024);
  t.layers = v.positive_or({"layers"}, 24);
  t.heads = v.positive_or({"heads"}, 16);
  t.image_size = v.positive_or({"image_size"}, 384);
  t.patch = v.positive_or({"patch_size"}, 16);
  t.mlp_hidden = int64_t(double(t.width) * v.number_or("mlp_ratio", 4.0));  // int(dim * mlp_ratio), as timm's Block
  const std::string pool = v.string_or("global_pool", "map");
  require(pool == "map" || pool.empty(), v, "global_pool", "vision_config.global_pool must be \"map\" or \"\".");
  t.map_pool = pool == "map";
  require(!v.boolean_or("class_token", false), v, "class_token", "vision_config.class_token true is not traced.");
  require(t.width % t.heads == 0, v, "heads", "vision_config.width must be divisible by heads.");
  require(t.image_size >= t.patch, v, "patch_size", "vision_config.patch_size must not exceed image_size.");

  const Config pc = child_or_empty(c, "projector_config");
  const std::string type = pc.string_or("projector_type", "downsample_mlp_gelu");
  const int64_t in = pc.positive_or({"input_dim"}, 1152), embed = pc.positive_or({"n_embed"}, 2048);
  const int64_t depth = pc.positive_or({"depth"}, 2), ratio = pc.positive_or({"mlp_ratio"}, 1);
  const int64_t down = pc.positive_or({"downsample_ratio"}, 2);
  require(type == "downsample_mlp_gelu" || type == "mlp_gelu" || type == "linear", pc, "projector_type",
          "projector_config.projector_type \"" + type.substr(0, 40) + "\" is not traced (cardfit traces "
          "downsample_mlp_gelu, mlp_gelu and linear).");
  require(!pc.boolean_or("token_pooling", false), pc, "token_pooling", "projector_config.token_pooling is not traced yet.");
  require(in == t.width, pc, "input_dim",
          "projector_config.input_dim (" + std::to_string(in) + ") must equal vision_config.width (" +
              std::to_string(t.width) + ").");
  require(embed == lc.positive_or({"hidden_size"}, 4096), pc, "n_embed",
          "projector_config.n_embed must equal language_config.hidden_size: the projector's tokens go into the text.");

  ModelBuilder b(c.string_or("model_type", "deepseek_vl_v2"), "deepseek_vl_v2");
  timm_vit(b, t);
  const int64_t side = t.image_size / t.patch;
  const bool unfold = type == "downsample_mlp_gelu";
  const int64_t grid = unfold ? (side + down - 1) / down : side;  // padded to a multiple of downsample_ratio
  const int64_t features = unfold ? checked_mul(in, down * down, "input_dim × downsample_ratio²") : in;
  vision_block(b, "projector", "projector", grid * grid, features);
  const int64_t mid = unfold ? checked_mul(embed, ratio, "n_embed × mlp_ratio") : embed;
  if (type == "linear") {
    b.linear("projector.layers", in, embed, {.bias = true, .role = Role::projector});
  } else {
    // nn.Sequential: Linear at 0, then (GELU, Linear) pairs; the last Linear maps to n_embed.
    int64_t index = 0, width = features;
    for (int64_t k = 0; k < depth; ++k) {
      if (k > 0) b.activation("projector.layers." + std::to_string(index++), width, "gelu");
      const int64_t out = k + 1 == depth ? embed : mid;
      b.linear("projector.layers." + std::to_string(index++), width, out, {.bias = true, .role = Role::projector});
      width = out;
    }
  }
  // The tile separators: bare parameters of n_embed placed between the image's tokens.
  const std::string tag = c.string_or("tile_tag", "2D");
  require(tag == "2D" || tag == "1D", c, "tile_tag", "tile_tag must be \"2D\" or \"1D\".");
  const ValueId projected = b.cursor();
  auto separator = [&](const std::string& name, Shape shape) {
    Node n;  // a bare nn.Parameter placed into the sequence as tokens: a lookup, no FLOPs
    n.name = name;
    n.op = Op::embedding;
    n.in = 1;
    n.out = embed;
    n.tokens_per_image = 1;
    n.params = b.tensor(name, std::move(shape), Role::projector);
    b.reads({});
    b.node(n);
  };
  if (tag == "2D") {
    separator("image_newline", {embed});
    separator("view_seperator", {embed});  // sic, as the checkpoint spells it
  } else {
    const int64_t variants = c.has("candidate_resolutions") ? int64_t(c.raw().at("candidate_resolutions").size()) : 1;
    separator("tile_indicators", {variants + 1, embed});
  }
  b.set_stream(projected);
  append_model(b, language, "language.", true);
  b.note("Images: one " + std::to_string(t.image_size) + " x " + std::to_string(t.image_size) + " tile each (" +
         std::to_string(side * side) + " patches, " + std::to_string(grid * grid) + " text tokens, plus the row "
         "separators); the processor sends a global view and local tiles per image, so scale `images` to the tiles.");
  return b.finish();
}

}  // namespace cardfit::families

// DiffusionGemma (issue 10; transformers models/diffusion_gemma/modular_diffusion_gemma.py, read 2026-12-01):
// the total derived by hand from the modules' __init__, the one text stack stored under model.decoder.*
// with the encoder's tied to it, the self-conditioning MLP, the serving state (the encoder's KV cache
// only), plans in every mode, the config class's window rule and coded errors.
#include <catch2/catch.hpp>

#include "error.hpp"
#include "test_util.hpp"

namespace arch_diffusion_gemma_test {

using namespace cardfit;
using nlohmann::json;

namespace {
// google/diffusiongemma-26B-A4B-it's text_config (convert_diffusion_gemma_weights.py _MODEL_CONFIG):
constexpr int64_t H = 2816, V = 262144, E = 128, I = 2112, MI = 704;
constexpr int64_t embed = V * H;  // decoder.embed_tokens; encoder's and lm_head tied to it
// DiffusionGemma{Encoder,Decoder}TextAttention: sliding layers 16 heads of 256 over 8 kv heads with v_proj;
// full layers 16 heads of global_head_dim 512 over num_global_key_value_heads 2, no v_proj (values = keys);
// q_norm, k_norm [head_dim] (v_norm with_scale=False: no weight).
constexpr int64_t sliding_attn = H * 16 * 256 + 2 * H * 8 * 256 + 16 * 256 * H + 2 * 256;
constexpr int64_t full_attn = H * 16 * 512 + H * 2 * 512 + 16 * 512 * H + 2 * 512;
constexpr int64_t mlp = 3 * H * I;                        // DiffusionGemmaText4MLP gate/up/down_proj
constexpr int64_t router = E * H + H + E;                 // router proj.weight, scale, per_expert_scale
constexpr int64_t experts = E * 2 * MI * H + E * H * MI;  // experts gate_up_proj [E, 2·MI, H], down_proj [E, H, MI]
constexpr int64_t norms = 7 * H;  // input, post_attention, pre/post_feedforward, post_feedforward_1/2, pre_feedforward_2
constexpr int64_t ffn = mlp + router + experts + norms;
constexpr int64_t stack = embed + 25 * (sliding_attn + ffn) + 5 * (full_attn + ffn) + H;  // + norm
// DiffusionGemmaSelfConditioning: pre_norm [H] (post_norm has no weight), gate/up [I, H], down [H, I].
constexpr int64_t self_conditioning = H + 3 * H * I;
// Gemma4VisionModel (1152 wide, 27 layers, 16 heads of 72, intermediate 4304, 16 px patches, 10240
// positions, no clip bounds) and embed_vision.embedding_projection [H, 1152]:
constexpr int64_t VH = 1152;
constexpr int64_t vision = VH * 3 * 16 * 16 + 2 * 10240 * VH + 27 * (4 * VH * VH + 2 * 72 + 3 * VH * 4304 + 4 * VH);
constexpr int64_t embed_vision = H * VH;
constexpr int64_t total = stack + self_conditioning + vision + embed_vision;
static_assert(stack == 25233141760 && self_conditioning == 17844992 && vision == 569548080);
static_assert(total == 25823778864);

json golden() { return golden_file("diffusiongemma-26b-a4b-it.json").at("config"); }
}  // namespace

TEST_CASE("DiffusionGemma 26B-A4B: exact total by hand, one stored stack, encoder tied to decoder") {
  const Model m = trace_json(golden());
  CHECK(m.parameter_count() == total);
  CHECK(m.buffer_count() == 30 + 30 + 2 * VH);  // encoder and decoder layer_scalar (buffers not tied); std_bias/scale
  CHECK(m.model_type == "diffusion_gemma");
  // Every encoder text weight is an alias of the decoder's: same shape, nothing stored twice.
  int64_t aliases = 0;
  for (const auto& t : m.tensors) {
    if (t.name.rfind("model.encoder.language_model.", 0) != 0) continue;
    INFO(t.name);
    ++aliases;
    const std::string target = "model.decoder." + t.name.substr(29);
    CHECK(t.tied_to == target);
    const Tensor* d = find(m, target);
    REQUIRE(d);
    CHECK(d->tied_to.empty());
    CHECK(d->shape == t.shape);
  }
  CHECK(aliases == 1 + 25 * 21 + 5 * 20 + 1);  // embed, sliding / full layers' tensors, norm
  CHECK(find(m, "lm_head.weight")->tied_to == "model.decoder.embed_tokens.weight");
  // Full-attention layers: no v_proj, 2 kv heads of 512; sliding layers: v_proj, 8 kv heads of 256.
  CHECK(find(m, "model.decoder.layers.5.self_attn.v_proj.weight") == nullptr);
  CHECK(find(m, "model.decoder.layers.5.self_attn.k_proj.weight")->shape == Shape{2 * 512, H});
  CHECK(find(m, "model.decoder.layers.4.self_attn.v_proj.weight")->shape == Shape{8 * 256, H});
  // No per-layer embeddings and no KV sharing, whatever Gemma 4 keys a config carries.
  CHECK(find(m, "model.decoder.embed_tokens_per_layer.weight") == nullptr);
  CHECK(find(m, "model.decoder.self_conditioning.up_proj.weight")->shape == Shape{I, H});
  CHECK(find(m, "model.decoder.self_conditioning.post_norm.weight") == nullptr);
  // Self-conditioning runs on the decoder's canvas only; every other text block on the sequence.
  int sc_blocks = 0;
  for (const auto& blk : m.blocks) {
    INFO(blk.name);
    const bool sc = blk.name == "model.decoder.self_conditioning";
    sc_blocks += sc;
    CHECK(blk.sequence == (sc ? Sequence::target : Sequence::source));
  }
  CHECK(sc_blocks == 1);
  CHECK(find(m, "model.vision_tower.patch_embedder.input_proj.weight") == nullptr);
  CHECK(find(m, "model.encoder.vision_tower.patch_embedder.input_proj.weight")->shape == Shape{VH, 3 * 16 * 16});
}

TEST_CASE("DiffusionGemma: the stack is Gemma 4 26B-A4B's, and serving holds only its KV cache") {
  const json config = golden();
  const Model m = trace_json(config);
  const Model g = trace_golden("gemma-4-26b-a4b-it.json");
  // The same text stack as the autoregressive model it was converted beside (prefix aside).
  for (const auto& t : g.tensors) {
    if (t.name.rfind("model.language_model.", 0) != 0) continue;
    INFO(t.name);
    const Tensor* d = find(m, "model.decoder." + t.name.substr(21));
    REQUIRE(d);
    CHECK(d->shape == t.shape);
  }
  // generate() keeps the encoder's cache (sliding layers hold their window); the decoder never writes.
  const int64_t seq = 8192;
  const json r = plan(config.dump(), {{"mode", "serve"}, {"batch", 1}, {"seq", seq}});
  REQUIRE(r.at("ok") == true);
  const json a = plan(golden_file("gemma-4-26b-a4b-it.json").at("config").dump(), {{"mode", "serve"}, {"batch", 1}, {"seq", seq}});
  CHECK(r["plan"]["components"]["kv_cache"] == a["plan"]["components"]["kv_cache"]);
  // By hand, bf16: 25 sliding layers hold their 1024-token window of k and v (8 heads of 256), 5 full layers
  // all 8192 tokens of k and v (2 heads of 512; values = keys before v_norm, cached apart).
  CHECK(r["plan"]["components"]["kv_cache"] == 25 * 1024 * 2 * 8 * 256 * 2 + 5 * seq * 2 * 2 * 512 * 2);
  CHECK(r["plan"]["components"]["weights"] == 2 * total);  // bf16: 51.65 GB, the "51.7 GB" quoted for the BF16 weights
  for (const char* mode : {"full", "lora", "qlora", "serve"}) {
    INFO(mode);
    const json p = plan(config.dump(), {{"mode", mode}});
    REQUIRE(p.at("ok") == true);
    CHECK(p["params"]["total"] == total);
  }
}

TEST_CASE("DiffusionGemma: bidirectional attention everywhere narrows the window as the config class does") {
  json c = golden();
  c["text_config"]["use_bidirectional_attention"] = "all";
  CHECK(trace_json(c).dims.sliding_window == 1024 / 2 + 1);  // __post_init__: (sliding_window // 2) + 1
  CHECK(trace_json(golden()).dims.sliding_window == 1024);
}

TEST_CASE("DiffusionGemma without expert sizes is a coded error naming the text_config field") {
  for (const char* key : {"num_experts", "top_k_experts", "moe_intermediate_size"}) {
    INFO(key);
    json bad = golden();
    bad["text_config"].erase(key);
    try {
      trace_json(bad);
      FAIL("traced");
    } catch (const Error& e) {
      CHECK(e.path == std::string("$.text_config.") + key);
    }
  }
  // Gemma 4 keys the DiffusionGemma text config removes change nothing.
  json extra = golden();
  extra["text_config"]["attention_k_eq_v"] = false;
  extra["text_config"]["hidden_size_per_layer_input"] = 256;
  extra["text_config"]["num_kv_shared_layers"] = 10;
  CHECK(trace_json(extra).parameter_count() == total);
}
}  // namespace arch_diffusion_gemma_test

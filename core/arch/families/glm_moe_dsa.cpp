// GLM-5 (transformers models/glm_moe_dsa/{configuration,modeling}_glm_moe_dsa.py, GlmMoeDsaForCausalLM,
// read 2026-12-01): DeepSeek-V3's multi-head latent attention (mla.hpp) with DeepSeek Sparse
// Attention's lightning indexer in every layer (dsa_indexer.hpp: self_attn.indexer.{wq_b, wk, k_norm,
// weights_proj}), over GLM-4.5's MoE: router mlp.gate [n_routed_experts, hidden] with the persistent
// e_score_correction_bias buffer, routed experts mlp.experts.{e}.* as the checkpoint stores them, one
// merged shared expert of moe_intermediate_size × n_shared_experts. mlp_layer_types (default: the first
// first_k_dense_replace = 3 layers "dense", intermediate_size) picks the dense layers; indexer_types
// (default from index_topk_freq / index_skip_topk_offset or index_topk_pattern: every layer "full")
// marks the layers whose indexer runs ("shared" ones reuse the previous layer's top-k). The checkpoint's
// num_nextn_predict_layers MTP layer model.layers.{num_hidden_layers}.* is dropped on load
// (_keys_to_ignore_on_load_unexpected) and listed as a stored extra: enorm, hnorm, eh_proj,
// shared_head.norm and a copy of the last decoder layer, without embed_tokens or shared_head.head of
// its own (converters for GLM-5 copy model.embed_tokens / lm_head into those names because the
// published files lack them; runtimes bind the main model's).
#include <nlohmann/json.hpp>

#include "../decoder.hpp"
#include "../layer_types.hpp"
#include "../mla.hpp"
#include "../stored_extras.hpp"
#include "glm_moe_dsa.hpp"

namespace cardfit::families {

namespace {
// GlmMoeDsaConfig.__post_init__: explicit indexer_types, else index_topk_pattern ("F" / "S" per layer),
// else "full" where max(i - index_skip_topk_offset + 1, 0) % index_topk_freq == 0.
std::vector<std::string> indexer_types(const Config& c, int64_t layers) {
  const int64_t freq = std::max<int64_t>(1, c.count_or({"index_topk_freq"}, 1));
  const int64_t offset = c.count_or({"index_skip_topk_offset"}, 2);
  const auto schedule = [&](int64_t i) -> std::string {
    return std::max<int64_t>(i - offset + 1, 0) % freq == 0 ? "full" : "shared";
  };
  const nlohmann::json& raw = c.raw();
  if (!c.has("indexer_types") && raw.contains("index_topk_pattern") && !raw["index_topk_pattern"].is_null()) {
    if (raw["index_topk_pattern"].is_string()) {
      const std::string pattern = raw["index_topk_pattern"].get<std::string>();
      require(int64_t(pattern.size()) == layers && pattern.find_first_not_of("FS") == std::string::npos, c,
              "index_topk_pattern", "index_topk_pattern needs one 'F' (full) or 'S' (shared) per layer.");
      std::vector<std::string> out;
      for (char ch : pattern) out.push_back(ch == 'F' ? "full" : "shared");
      return out;
    }
    return read_layer_types(c, layers, {"full", "shared"}, schedule, "index_topk_pattern");
  }
  return read_layer_types(c, layers, {"full", "shared"}, schedule, "indexer_types");
}

// The MTP layer's own embed_tokens / shared_head.head are not in GLM-5's published files.
void drop_nextn_copies(Model& m) {
  std::erase_if(m.stored_extras, [](const StoredExtra& e) {
    const std::string& n = e.tensor.name;
    return n.ends_with(".embed_tokens.weight") || n.ends_with(".shared_head.head.weight");
  });
}
}  // namespace

Model glm_moe_dsa(const Config& c) {
  const int64_t vocab = c.positive_or({"vocab_size"}, 154880), hidden = c.positive_or({"hidden_size"}, 6144);
  const int64_t layers = c.positive_or({"num_hidden_layers"}, 78), heads = c.positive_or({"num_attention_heads"}, 64);
  const int64_t intermediate = c.positive_or({"intermediate_size"}, 12288);
  require(!(c.raw().contains("q_lora_rank") && c.raw()["q_lora_rank"].is_null()), c, "q_lora_rank",
          "GLM-5's indexer reads the query latent: q_lora_rank must be a number (null has no latent).");
  const int64_t q_lora = c.positive_or({"q_lora_rank"}, 2048), kv_lora = c.positive_or({"kv_lora_rank"}, 512);
  const int64_t nope = c.positive_or({"qk_nope_head_dim"}, 192), rope = c.positive_or({"qk_rope_head_dim"}, 64);
  const int64_t v_dim = c.positive_or({"v_head_dim"}, 256);
  require(c.positive_or({"num_key_value_heads"}, heads) == heads, c, "num_key_value_heads",
          "GLM-5's latent attention decompresses a key and value per head: num_key_value_heads must equal "
          "num_attention_heads.");
  const int64_t experts = c.positive_or({"n_routed_experts"}, 256), shared = c.count_or({"n_shared_experts"}, 1);
  const int64_t top_k = c.positive_or({"num_experts_per_tok"}, 8), moe_inter = c.positive_or({"moe_intermediate_size"}, 2048);
  require(top_k <= experts, c, "num_experts_per_tok", "num_experts_per_tok cannot exceed n_routed_experts.");
  const int64_t index_heads = c.positive_or({"index_n_heads"}, 32), index_dim = c.positive_or({"index_head_dim"}, 128);
  const int64_t index_topk = c.positive_or({"index_topk"}, 2048);
  require(index_dim >= rope, c, "index_head_dim", "index_head_dim must hold the qk_rope_head_dim rotary part.");
  const bool bias = c.boolean_or("attention_bias", false);
  const std::string act = c.string_or("hidden_act", "silu");
  const int64_t first_dense = std::min(c.count_or({"first_k_dense_replace"}, 3), layers);
  const auto mlp_types = read_layer_types(c, layers, {"dense", "sparse"},
                                          [&](int64_t i) { return i < first_dense ? "dense" : "sparse"; },
                                          "mlp_layer_types");
  const auto index_types = indexer_types(c, layers);

  ModelBuilder b("glm_moe_dsa", "glm_moe_dsa");
  const DecoderShape d{.vocab = vocab, .hidden = hidden, .layers = layers, .heads = heads, .kv_heads = heads,
                       .head_dim = nope + rope, .intermediate = intermediate,
                       .max_positions = c.positive_or({"max_position_embeddings"}, 202752),
                       .tied = c.boolean_or("tie_word_embeddings", false)};
  set_dims(b, d, c);
  causal_lm_stack(b, d, {}, [&](int i, const std::string& p) {
    DecoderLayerSpec layer{
        .prefix = p,
        .mlp = {.prefix = p + ".mlp", .hidden = hidden, .intermediate = intermediate, .act = act},
        .hidden = hidden,
        .mla = MlaSpec{.prefix = p + ".self_attn", .hidden = hidden, .heads = heads, .q_lora_rank = q_lora,
                       .kv_lora_rank = kv_lora, .qk_nope_head_dim = nope, .qk_rope_head_dim = rope,
                       .v_head_dim = v_dim, .bias = bias, .index_heads = index_heads, .index_head_dim = index_dim,
                       .index_topk = index_topk,
                       // The first layer has no previous top-k to reuse: its indexer runs whatever its type.
                       .index_runs = i == 0 || index_types[size_t(i)] == "full"}};
    const bool sparse = mlp_types[size_t(i)] == "sparse";
    if (sparse)
      layer.moe = MoeSpec{.prefix = p + ".mlp", .hidden = hidden, .experts = experts, .top_k = top_k,
                          .expert_intermediate = moe_inter, .expert = {.act = act}, .shared_experts = shared > 0 ? 1 : 0,
                          .shared_intermediate = checked_mul(moe_inter, shared, "the shared experts' width")};
    pre_norm_decoder_layer(b, layer);
    if (sparse) b.buffer(p + ".mlp.gate.e_score_correction_bias", {experts});
  });
  b.note("GLM-5's serving cache per token and layer: the latent (kv_lora_rank + qk_rope_head_dim) and the "
         "indexer's key (index_head_dim) in the activation dtype, as serving engines keep MLA; transformers' "
         "own DynamicCache keeps the decompressed keys and values (heads x (qk_head_dim + v_head_dim)).");
  b.note("GLM-5 in transformers attends densely under the indexer's top-k mask (an -inf mask over all keys): "
         "attention FLOPs and scores are those of dense causal attention; the indexer scores every key in "
         "fp32 under torch.no_grad() (forward FLOPs only, nothing kept for backward, its weights get no "
         "gradient).");
  Model m = b.finish();
  const int64_t mtp = c.count_or({"num_nextn_predict_layers"}, 0);
  if (mtp > 0) {
    add_nextn_layers(m, mtp, layers, layers - 1, hidden, vocab);
    drop_nextn_copies(m);
    m.notes.push_back("The published checkpoint also stores " + std::to_string(mtp) + " multi-token-prediction "
                      "layer(s) as model.layers." + std::to_string(layers) + ".* (num_nextn_predict_layers); "
                      "GlmMoeDsaForCausalLM drops them on load, so they are not counted here.");
  }
  return m;
}

}  // namespace cardfit::families

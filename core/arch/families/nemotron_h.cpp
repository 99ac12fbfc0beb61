// Nemotron-H (transformers models/nemotron_h/modeling_nemotron_h.py, NemotronHForCausalLM; checkpoints
// under "backbone."): every block is one pre-normed mixer with a residual — a Mamba-2 mixer
// (mamba2.hpp), GQA attention without biases, an ungated relu2 MLP (up_proj, down_proj) or an MoE of
// ungated experts (router gate + e_score_correction_bias buffer, experts.{e}.up/down_proj, a shared
// expert, optional latent projections). The block types come from layers_block_type / layer_types
// (legacy names mamba/attention) or hybrid_override_pattern (M Mamba, * attention, - MLP, E MoE).
// NemotronHConfig defaults: head_dim=128, mamba_num_heads=128, mamba_head_dim=64, n_groups=8,
// ssm_state_size=128, conv_kernel=4, mamba_ssm_cache_dtype float32, tie_word_embeddings=False.
#include "../../error.hpp"
#include "../decoder.hpp"
#include "../mamba2.hpp"
#include "../stored_extras.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
std::vector<std::string> block_types(const Config& c) {
  std::vector<std::string> types;
  const char* key = c.has("layers_block_type") ? "layers_block_type" : "layer_types";
  for (std::string t : c.string_list(key)) {
    if (t == "mamba") t = "linear_attention";  // remap_legacy_layer_types
    if (t == "attention") t = "full_attention";
    require(t == "linear_attention" || t == "full_attention" || t == "mlp" || t == "moe", c, key,
            std::string(key) + " has \"" + t + "\"; nemotron_h blocks are mamba, attention, mlp or moe.");
    types.push_back(t);
  }
  if (!types.empty()) return types;
  const std::string pattern = c.string_or("hybrid_override_pattern", "");
  require(!pattern.empty(), c, "hybrid_override_pattern",
          "nemotron_h needs layers_block_type or hybrid_override_pattern to know each block's mixer.");
  for (char ch : pattern) {
    require(ch == 'M' || ch == '*' || ch == '-' || ch == 'E', c, "hybrid_override_pattern",
            std::string("hybrid_override_pattern has '") + ch + "'; expected M, *, - or E.");
    types.push_back(ch == 'M' ? "linear_attention" : ch == '*' ? "full_attention" : ch == '-' ? "mlp" : "moe");
  }
  return types;
}
// NemotronHConfig.__post_init__: mtp_layers_block_type (legacy names remapped), else
// ["full_attention", "moe"], which mtp_hybrid_override_pattern replaces when given.
std::vector<std::string> mtp_block_types(const Config& c) {
  std::vector<std::string> types;
  for (std::string t : c.string_list("mtp_layers_block_type")) {
    if (t == "mamba") t = "linear_attention";
    if (t == "attention") t = "full_attention";
    types.push_back(t);
  }
  if (types.empty()) types = {"full_attention", "moe"};
  const std::string pattern = c.string_or("mtp_hybrid_override_pattern", "");
  if (types == std::vector<std::string>{"full_attention", "moe"} && !pattern.empty()) {
    types.clear();
    for (char ch : pattern)
      types.push_back(ch == 'M' ? "linear_attention" : ch == '*' ? "full_attention" : ch == '-' ? "mlp" : ch == 'E' ? "moe" : "?");
  }
  return types;
}

// The MTP blocks as stored extras (stored_extras.hpp): each a copy of the first main-model block of its
// type. Only what vLLM's nemotron_h_mtp.py loads is listed: one predict step of attention / MoE blocks.
void add_mtp(ModelBuilder& b, const Config& c, const std::vector<std::string>& main_types, int64_t steps,
             int64_t hidden) {
  const std::vector<std::string> types = mtp_block_types(c);
  std::vector<std::string> sources;
  for (const std::string& t : types) {
    size_t i = 0;
    while (i < main_types.size() && main_types[i] != t) ++i;
    if ((t != "full_attention" && t != "moe") || i == main_types.size() || steps != 1) {
      b.note("Its MTP blocks (" + std::to_string(steps) + " step(s) of " + std::to_string(types.size()) +
             " blocks) are not listed as stored extras: only one step of attention / MoE blocks, each shaped "
             "like a block of the main model, is traced (vLLM's nemotron_h_mtp.py loads no other).");
      return;
    }
    sources.push_back("backbone.layers." + std::to_string(i));
  }
  add_nemotron_h_mtp_layers(b.model(), sources, hidden);
}
}  // namespace

Model nemotron_h(const Config& c) {
  const std::vector<std::string> types = block_types(c);
  const auto layers = int64_t(types.size());
  const int64_t vocab = c.positive_or({"vocab_size"}, 131072), hidden = c.positive_or({"hidden_size"}, 4096);
  const int64_t heads = c.positive_or({"num_attention_heads"}, 32), kv_heads = c.positive_or({"num_key_value_heads"}, 8);
  const int64_t head_dim = c.positive_or({"head_dim", "attention_head_dim"}, 128);
  const int64_t inter = c.positive_or({"intermediate_size"}, 21504);
  const bool tied = c.boolean_or("tie_word_embeddings", false), mlp_bias = c.boolean_or("mlp_bias", false);
  const std::string mlp_act = c.string_or("mlp_hidden_act", "relu2");
  require(heads % kv_heads == 0, c, "num_key_value_heads", "num_key_value_heads must divide num_attention_heads.");
  const std::string ssm_dtype = c.string_or("mamba_ssm_cache_dtype", "float32");
  const Mamba2Spec mamba{.hidden = hidden, .heads = c.positive_or({"mamba_num_heads"}, 128),
                         .head_dim = c.positive_or({"mamba_head_dim"}, 64),
                         .groups = c.positive_or({"n_groups", "mamba_n_groups"}, 8),
                         .state = c.positive_or({"ssm_state_size"}, 128),
                         .conv_kernel = c.positive_or({"conv_kernel", "mamba_d_conv"}, 4),
                         .conv_bias = c.boolean_or("use_conv_bias", true), .proj_bias = c.boolean_or("use_bias", false),
                         .act = c.string_or("mamba_hidden_act", "silu"),
                         .state_bytes = ssm_dtype == "float32" ? 4 : 0};
  const int64_t experts = c.positive_or({"n_routed_experts"}, 8), top_k = c.positive_or({"num_experts_per_tok"}, 2);
  const int64_t latent = c.count_or({"moe_latent_size"}, 0);

  ModelBuilder b("nemotron_h", "nemotron_h");
  Dims& d = b.dims();
  d.hidden = hidden; d.layers = layers; d.heads = heads; d.kv_heads = kv_heads; d.head_dim = head_dim;
  d.intermediate = inter; d.vocab = vocab; d.tied_embeddings = tied;
  d.max_positions = c.positive_or({"max_position_embeddings"}, 4096);
  d.initializer_range = c.number_or("initializer_range", 0.02);
  b.block("backbone.embeddings", "embedding");
  token_embedding(b, "backbone.embeddings", vocab, hidden);
  for (int i = 0; i < layers; ++i) {
    const std::string p = "backbone.layers." + std::to_string(i), m = p + ".mixer";
    const std::string& t = types[size_t(i)];
    b.block(p, t == "linear_attention" ? "ssm_layer" : "decoder_layer", i);
    b.norm(p + ".norm", hidden, NormKind::rmsnorm);
    if (t == "linear_attention") {
      Mamba2Spec s = mamba;
      s.prefix = m;
      mamba2_mixer(b, s);
    } else if (t == "full_attention") {
      attention_block(b, {.prefix = m, .hidden = hidden, .heads = heads, .kv_heads = kv_heads, .head_dim = head_dim});
    } else if (t == "mlp") {
      mlp_block(b, {.prefix = m, .hidden = hidden, .intermediate = inter, .gated = false, .bias = mlp_bias, .act = mlp_act});
    } else {
      d.experts = experts;
      d.experts_per_token = top_k;
      // The router reads the full hidden state; with moe_latent_size the experts would run on a
      // projected width, which the shared moe_block does not express: refused rather than miscounted.
      require(latent == 0, c, "moe_latent_size",
              "nemotron_h with moe_latent_size (latent expert projections) is not traced yet.");
      moe_block(b, {.prefix = m, .hidden = hidden, .experts = experts, .top_k = top_k,
                    .expert_intermediate = c.positive_or({"moe_intermediate_size"}, 7688),
                    .expert = {.gated = false, .bias = mlp_bias, .act = mlp_act}});
      b.buffer(m + ".gate.e_score_correction_bias", {experts});
      mlp_block(b, {.prefix = m + ".shared_experts", .hidden = hidden,
                    .intermediate = c.positive_or({"moe_shared_expert_intermediate_size"}, 7688), .gated = false,
                    .bias = mlp_bias, .act = mlp_act});
    }
    b.residual(p + ".residual", hidden);
  }
  b.block("final", "final");
  b.norm("backbone.norm_f", hidden, NormKind::rmsnorm);
  lm_head(b, "lm_head", hidden, vocab, tied ? "backbone.embeddings.weight" : "");
  const int64_t mtp = c.count_or({"num_nextn_predict_layers"}, 0);
  if (mtp > 0) {
    b.note("The checkpoint also stores multi-token-prediction layers under mtp.* (num_nextn_predict_layers); "
           "NemotronHForCausalLM ignores them on load, so they are not counted here.");
    add_mtp(b, c, types, mtp, hidden);
  }
  return b.finish();
}

}  // namespace cardfit::families

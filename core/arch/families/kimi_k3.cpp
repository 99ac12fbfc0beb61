// Kimi-K3 (model_type kimi_k3: KimiK3ForConditionalGeneration over KimiLinearForCausalLM, text_config
// model_type kimi_linear). The hub's remote code (configuration_kimi_k3.py, modeling_kimi_linear.py,
// modeling_kimi_k3.py) is not readable here and transformers has no model class for it, so the forward
// is read in SGLang's models/kimi_k3.py and kimi_k3_vl.py (0000e9b4), mlx-lm's models/kimi_k3.py and
// vLLM's layers/kda.py (2026-12-07), and the names and shapes in a public listing of the published
// checkpoint (96 files, 497,220 tensors, 1,503,647,073,024 scalars; tests/cpp/arch_kimi_k3_test.cpp):
//   language_model.model.embed_tokens, layers.N, output_attn_res_{norm,proj}, norm; language_model.lm_head;
//   vision_tower.* and mm_projector.* (moonvit.hpp).
// Layer N (SiTU activations throughout):
//   attention residual self_attention_res_{norm,proj}: softmax over the block summaries (the running sum
//     appended every attn_res_block_size layers, the embedding first) and the running sum, each scored
//     rms_normalize(row) · (norm ⊙ proj), their weighted sum → input_layernorm →
//   KDA (kda.hpp; linear_attn_config.kda_layers, 1-based) or MLA without rotary and with a sigmoid output
//     gate g_proj (mla.hpp; full_attn_layers) → added to the running sum →
//   attention residual mlp_res_* → post_attention_layernorm → the dense MLP (the first_k_dense_replace
//     layers) or the latent MoE (blocks.hpp: router on x, routed_expert_down_proj → experts w1/w3/w2 →
//     weighted sum → routed_expert_norm → routed_expert_up_proj, shared_experts on x) → added.
// The model ends with output_attn_res over every summary, the norm and the head.
#include <algorithm>

#include "../../error.hpp"
#include "../blocks.hpp"
#include "../decoder.hpp"
#include "../kda.hpp"
#include "../mla.hpp"
#include "../moonvit.hpp"
#include "../vision.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
// One attention residual: its two weights, and its input, the `rows` candidates it weighs (the
// concatenation autograd keeps for backward); one row (layer 0, no summary yet) passes the sum through.
void attn_res(ModelBuilder& b, const std::string& name, int64_t hidden, int64_t rows) {
  Node n;
  n.name = name;
  n.op = Op::other;
  n.detail = "attn_res";
  n.in = rows > 1 ? checked_mul(rows, hidden, "the attention-residual candidates") : 0;
  n.out = hidden;
  n.params = b.tensor(name + "_norm.weight", {hidden}, Role::norm);
  n.params += b.tensor(name + "_proj.weight", {1, hidden}, Role::other);
  b.node(std::move(n));
}

// linear_attn_config's kda_layers and full_attn_layers (1-based): every layer in exactly one.
std::vector<bool> kda_layers(const Config& lin, int64_t layers) {
  std::vector<int> seen(size_t(layers), 0);
  std::vector<bool> kda(size_t(layers), false);
  for (const char* key : {"kda_layers", "full_attn_layers"})
    for (int64_t l : lin.integer_list(key)) {
      require(l >= 1 && l <= layers, lin, key, lin.path_of(key) + " lists layer " + std::to_string(l) +
                                                   " outside 1.." + std::to_string(layers) + " (1-based).");
      ++seen[size_t(l - 1)];
      kda[size_t(l - 1)] = std::string(key) == "kda_layers";
    }
  for (int64_t i = 0; i < layers; ++i)
    require(seen[size_t(i)] == 1, lin, "kda_layers",
            "Layer " + std::to_string(i + 1) + " must be in exactly one of kda_layers and full_attn_layers.");
  return kda;
}

MoonVitSpec read_vision(const Config& v, int64_t text_hidden) {
  for (const auto& [key, want] : {std::pair<const char*, const char*>{"mm_projector_type", "patchmergerv2"},
                                  {"merge_type", "sd2_tpool"}, {"norm_type", "rmsnorm"}, {"mlp_type", "mlp2"}})
    if (v.string_or(key, want) != want)
      throw Error(ErrorCode::field_range, v.path_of(key) + " \"" + v.string_or(key, "").substr(0, 60) +
                                              "\" is not traced; cardfit knows Kimi-K3's \"" + want + "\".",
                  v.path_of(key));
  for (const char* key : {"attn_bias", "linear_bias", "patch_embed_proj_bias"})
    require(!v.boolean_or(key, false), v, key, v.path_of(key) + ": Kimi-K3's tower has no biases; cardfit traces it without.");
  MoonVitSpec s;
  s.hidden = v.positive_or({"vt_hidden_size"}, 1024);
  s.layers = v.positive_or({"vt_num_hidden_layers"}, 27);
  s.heads = v.positive_or({"vt_num_attention_heads"}, 12);
  s.qkv_hidden = v.positive_or({"qkv_hidden_size"}, s.hidden);
  s.intermediate = v.positive_or({"vt_intermediate_size"}, 4096);
  s.patch = v.positive_or({"patch_size"}, 14);
  s.pos_height = v.positive_or({"init_pos_emb_height"}, 64);
  s.pos_width = v.positive_or({"init_pos_emb_width"}, 64);
  s.act = v.string_or("activation_func", "gelu_pytorch_tanh");
  s.text_hidden = text_hidden;
  const std::vector<int64_t> merge = v.integer_list("merge_kernel_size");
  require(merge.empty() || (merge.size() == 2 && merge[0] == merge[1] && merge[0] > 0), v, "merge_kernel_size",
          v.path_of("merge_kernel_size") + " must be two equal positive sizes.");
  if (!merge.empty()) s.merge = merge[0];
  require(s.qkv_hidden % s.heads == 0, v, "vt_num_attention_heads", "qkv_hidden_size must divide by vt_num_attention_heads.");
  require(v.positive_or({"mm_hidden_size"}, s.hidden) == s.hidden, v, "mm_hidden_size", "mm_hidden_size must equal vt_hidden_size.");
  require(v.positive_or({"text_hidden_size"}, text_hidden) == text_hidden, v, "text_hidden_size",
          "vision_config.text_hidden_size must equal text_config.hidden_size.");
  // Planning assumption: one 448 × 448 image, 32 × 32 patches of 14 px (a multiple of 28: the processor
  // pads to whole 2 × 2 merges), 256 tokens in the text.
  const int64_t side = 448 / s.patch;
  require(side % s.merge == 0, v, "patch_size", "448 px must make whole merge windows of patches.");
  s.patches_per_image = side * side;
  return s;
}
}  // namespace

Model kimi_k3(const Config& c) {
  if (!c.has_object("text_config"))
    throw Error(ErrorCode::field_missing, "A kimi_k3 config needs its text_config (KimiLinearConfig).", c.path_of("text_config"));
  const Config t = c.child("text_config");
  if (!t.has_object("linear_attn_config"))
    throw Error(ErrorCode::field_missing, "Kimi-K3's text_config needs linear_attn_config (its KDA and MLA layers).",
                t.path_of("linear_attn_config"));
  const Config lin = t.child("linear_attn_config");
  const int64_t vocab = t.positive({"vocab_size"}), hidden = t.positive({"hidden_size"});
  const int64_t layers = t.positive({"num_hidden_layers"}), heads = t.positive({"num_attention_heads"});
  const int64_t experts = t.positive({"num_experts"}), top_k = t.positive({"num_experts_per_token"});
  const int64_t moe_inter = t.positive({"moe_intermediate_size"}), latent = t.count_or({"routed_expert_hidden_size"}, 0);
  const int64_t shared = t.count_or({"num_shared_experts"}, 0), first_dense = t.count_or({"first_k_dense_replace"}, 0);
  const int64_t moe_freq = t.positive_or({"moe_layer_freq"}, 1), block = t.positive({"attn_res_block_size"});
  const std::string act = t.string_or("hidden_act", "situ");
  require(top_k <= experts, t, "num_experts_per_token", "num_experts_per_token cannot exceed num_experts.");
  require(lin.boolean_or("use_full_rank_gate", true), lin, "use_full_rank_gate",
          "Only Kimi-K3's KDA gate (use_full_rank_gate true) is traced.");
  require(!t.boolean_or("tie_word_embeddings", false) && !c.boolean_or("tie_word_embeddings", false), t,
          "tie_word_embeddings", "Kimi-K3 stores its head apart; a tied head is not traced.");
  const std::vector<bool> kda = kda_layers(lin, layers);
  const KdaSpec kda_spec{.hidden = hidden, .heads = lin.positive({"num_heads"}), .head_dim = lin.positive({"head_dim"}),
                         .conv_kernel = lin.positive_or({"short_conv_kernel_size"}, 4)};
  const MlaSpec mla{.hidden = hidden, .heads = heads, .q_lora_rank = t.positive({"q_lora_rank"}),
                    .kv_lora_rank = t.positive({"kv_lora_rank"}), .qk_nope_head_dim = t.positive({"qk_nope_head_dim"}),
                    .qk_rope_head_dim = t.positive({"qk_rope_head_dim"}), .v_head_dim = t.positive({"v_head_dim"}),
                    .output_gate = t.boolean_or("mla_use_output_gate", false) ? "g_proj" : ""};
  if (!c.has_object("vision_config"))
    throw Error(ErrorCode::field_missing, "A kimi_k3 config needs its vision_config (the checkpoint stores the tower).",
                c.path_of("vision_config"));
  const MoonVitSpec vision = read_vision(c.child("vision_config"), hidden);

  ModelBuilder b("kimi_k3", "kimi_k3");
  b.dims().max_positions = t.positive_or({"max_position_embeddings"}, 1048576);
  b.dims().initializer_range = t.number_or("initializer_range", 0.02);
  moonvit(b, vision);

  const std::string m = "language_model.model.";
  b.block(m + "embed_tokens", "embedding");
  token_embedding(b, m + "embed_tokens", vocab, hidden);
  auto summaries_before = [&](int64_t i) { return (i + block - 1) / block; };  // appended at i % block == 0
  for (int64_t i = 0; i < layers; ++i) {
    const std::string p = m + "layers." + std::to_string(i);
    b.block(p, "decoder_layer", int(i));
    attn_res(b, p + ".self_attention_res", hidden, summaries_before(i) + 1);
    b.norm(p + ".input_layernorm", hidden, NormKind::rmsnorm);
    if (kda[size_t(i)]) {
      KdaSpec s = kda_spec;
      s.prefix = p + ".self_attn";
      s.gate_rank = s.a_log = s.head_dim;  // f_a_proj [head_dim, hidden]; A_log stored at head_dim entries
      kda_mixer(b, s);
    } else {
      MlaSpec s = mla;
      s.prefix = p + ".self_attn";
      mla_attention_block(b, s);
    }
    b.residual(p + ".residual_attn", hidden);
    attn_res(b, p + ".mlp_res", hidden, summaries_before(i + 1) + 1);
    b.norm(p + ".post_attention_layernorm", hidden, NormKind::rmsnorm);
    if (i >= first_dense && i % moe_freq == 0) {
      moe_block(b, {.prefix = p + ".block_sparse_moe", .hidden = hidden, .experts = experts, .top_k = top_k,
                    .expert_intermediate = moe_inter, .expert = {.act = act, .gate = "w1", .up = "w3", .down = "w2"},
                    .shared_experts = shared > 0 ? 1 : 0,
                    .shared_intermediate = checked_mul(moe_inter, shared, "the shared experts' width"),
                    .shared_spec = MlpSpec{.act = act},  // gate_proj / up_proj / down_proj
                    .router_bias_name = "e_score_correction_bias", .latent = latent,
                    .latent_down = "routed_expert_down_proj",
                    .latent_norm = t.boolean_or("latent_moe_use_norm", true) ? "routed_expert_norm" : "",
                    .latent_up = "routed_expert_up_proj"});
    } else {
      mlp_block(b, {.prefix = p + ".mlp", .hidden = hidden, .intermediate = t.positive({"intermediate_size"}), .act = act});
    }
    b.residual(p + ".residual_mlp", hidden);
  }
  b.block("final", "final");
  attn_res(b, m + "output_attn_res", hidden, summaries_before(layers) + 1);
  b.norm(m + "norm", hidden, NormKind::rmsnorm);
  lm_head(b, "language_model.lm_head", hidden, vocab, "");

  b.note("Kimi-K3 runs as remote code of its hub repository, which is not readable here: its forward is read in "
         "SGLang's models/kimi_k3.py and mlx-lm's port, its names and shapes in a listing of the published "
         "checkpoint. Assumed where those do not say: SiTU as one fused op keeping its input; each attention "
         "residual keeps its candidates (summaries and running sum) for backward; the conv states keep "
         "short_conv_kernel_size frames (fla's ShortConvolution cache); A_log is stored at head_dim entries, "
         "of which the heads use the first num_heads.");
  b.note("Images: one 448 x 448 image each (" + std::to_string(vision.patches_per_image) + " patches of " +
         std::to_string(vision.patch) + " px, " + std::to_string(vision.patches_per_image / (vision.merge * vision.merge)) +
         " text tokens after the 2 x 2 merge); the processor resizes within its patch limit and pads to whole merges.");
  return b.finish();
}

}  // namespace cardfit::families

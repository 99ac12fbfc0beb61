// Shared structural builders: attention variants, MLP variants, MoE, embeddings and heads.
// A family file fills these specs from its config; the specs carry names as in the checkpoint.
#pragma once
#include <optional>
#include <string>

#include "builder.hpp"

namespace cardfit {

struct AttentionSpec {
  std::string prefix;          // "model.layers.0.self_attn"
  int64_t hidden = 0;          // model width in and out
  int64_t heads = 0, kv_heads = 0, head_dim = 0;
  int64_t v_head_dim = 0;      // 0: same as head_dim
  bool q_bias = false, k_bias = false, v_bias = false, o_bias = false;
  std::string q = "q_proj", k = "k_proj", v = "v_proj", o = "o_proj";
  std::string fused_qkv;       // non-empty: one projection of this name makes q, k and v
  bool fused_bias = false;     // the fused projection has a bias
  bool transposed = false;     // GPT-2 Conv1D weights ([in, out])
  NormKind qk_norm = NormKind::rmsnorm;
  std::string q_norm, k_norm;  // non-empty: per-head (or whole) norms on q and k
  bool qk_norm_per_head = true;// norm over head_dim (Qwen3, Gemma3) rather than heads*head_dim (OLMo2)
  int64_t window = 0;          // sliding-window attention
  bool causal = true;
  bool cross = false;
  ValueId kv_source = kNoValue;// cross attention: the encoder output its k and v project
  std::string core = "attn";   // the name of the score/softmax node (no parameters)
  bool alibi = false;          // ALiBi position bias (BLOOM, MPT, Falcon-RW): no position tensor
  // How the q/k norm weights are stored (qk_norm_per_head only): kShared, one [head_dim] weight
  // (Qwen3); kPerHeadModules, one norm module per head named "{q_norm}.norms.{h}" (StableLM's
  // LayerNormPerHead); kHeadsByDim, one [heads, head_dim] weight (Cohere's use_qk_norm).
  enum QkNormStorage { kShared, kPerHeadModules, kHeadsByDim };
  QkNormStorage qk_norm_storage = kShared;
  std::string sinks;           // non-empty: a learned sink logit per head, "{prefix}.{sinks}" [heads],
                               // owned by the attention node (gpt-oss "sinks")
  bool output_gate = false;    // q projection also makes a per-head gate: q_proj out = 2 * heads * head_dim,
                               // attention output * sigmoid(gate) before o_proj (Qwen3-Next / Qwen3.5)
  bool kv_shared = false;      // no k/v projections or k norm: the layer attends over an earlier layer's
                               // keys and values and holds no cache of its own (Gemma 4 num_kv_shared_layers)
  bool k_eq_v = false;         // no v projection: values are the k projection's output (Gemma 4 attention_k_eq_v)
  bool fp32_qk = false;        // eager scores from fp32 copies of q and k (GPT-Neo's _attn)
};
/// q/k/v (or fused) projections, optional q/k norms, the attention op, the output projection.
void attention_block(ModelBuilder& b, const AttentionSpec& spec);

struct MlpSpec {
  std::string prefix;          // "model.layers.0.mlp"
  int64_t hidden = 0, intermediate = 0;
  bool gated = true;           // act(gate(x)) * up(x)
  bool bias = false;
  bool transposed = false;
  std::string act = "silu";
  std::string gate = "gate_proj", up = "up_proj", down = "down_proj";
  std::string fused_gate_up;   // non-empty: one projection making gate and up (Phi-3 "gate_up_proj")
  Role role = Role::mlp;
  int64_t experts = 1, active = 1;  // used by moe_block for stacked experts
};
void mlp_block(ModelBuilder& b, const MlpSpec& spec);

struct MoeSpec {
  std::string prefix;            // "model.layers.0.mlp" / "...block_sparse_moe"
  int64_t hidden = 0;
  int64_t experts = 0, top_k = 0;
  int64_t expert_intermediate = 0;
  std::string router = "gate";   // router linear name under prefix
  bool router_bias = false;
  std::string experts_name = "experts";
  MlpSpec expert;                // names and act of one expert (prefix/dims filled in)
  int64_t shared_experts = 0;    // DeepSeek/Qwen2-MoE shared expert(s), always active
  int64_t shared_intermediate = 0;
  std::string shared_name = "shared_experts";
  std::optional<MlpSpec> shared_spec;  // the shared experts' names and act where not `expert`'s
  std::string shared_gate;       // Qwen2-MoE: a sigmoid gate on the shared expert, [1, hidden]
  std::string router_bias_name;  // DeepSeek-V3: e_score_correction_bias [experts]
  // Latent MoE (Kimi-K3's routed_expert_hidden_size): the routed experts run at `latent` features,
  // after latent_down [latent, hidden]; their weighted sum goes through the RMSNorm latent_norm (if
  // named) and latent_up [hidden, latent]; the router and the shared experts read x. Bare matrices:
  // the published checkpoint keeps them 16-bit where its rule quantizes every nn.Linear.
  int64_t latent = 0;
  std::string latent_down, latent_norm, latent_up;
};
/// Router, per-expert MLPs (as checkpoint tensors named experts.{i}.*), shared experts.
void moe_block(ModelBuilder& b, const MoeSpec& spec);

/// Token embedding of a decoder ("model.embed_tokens").
void token_embedding(ModelBuilder& b, const std::string& name, int64_t vocab, int64_t hidden);
/// LM head: "lm_head.weight" [vocab, hidden], tied to `tied_to` when given.
void lm_head(ModelBuilder& b, const std::string& name, int64_t hidden, int64_t vocab,
             const std::string& tied_to, bool bias = false);

/// MoE whose experts are stored as one bare parameter per projection rather than per-expert
/// nn.Linear modules. Such parameters are not nn.Linear: PEFT's LoRA does not target them and
/// bitsandbytes (QLoRA) leaves them unquantized, so their tensors are not marked linear.
enum class FusedExpertLayout {
  rows,     // DBRX: each of w1/v1/w2 is [experts * intermediate, hidden] (w2 used transposed)
  stacked,  // [experts, out, in] per projection
  stacked_in_out,  // [experts, in, out] per projection (gpt-oss, Llama 4: used as x @ W[e])
};
struct FusedMoeSpec {
  std::string prefix;              // "transformer.blocks.0.ffn"
  int64_t hidden = 0, experts = 0, top_k = 0, intermediate = 0;
  std::string router = "router.layer";  // nn.Linear [experts, hidden], no bias; empty: the caller
                                        // declared the router (Gemma 4's reads another value)
  std::string gate = "experts.mlp.w1", up = "experts.mlp.v1", down = "experts.mlp.w2";
  FusedExpertLayout layout = FusedExpertLayout::rows;
  std::string act = "silu";
  std::string gate_up;             // non-empty (stacked layouts only): one projection of 2 * intermediate
                                   // making gate and up (GraniteMoE input_linear, gpt-oss gate_up_proj)
  bool router_bias = false;        // the router's nn.Linear has a bias (gpt-oss)
  bool biases = false;             // each projection has a stacked bias "<name>_bias" [experts, out]
  bool weighted_sum = false;       // a node for the routing-weighted sum over top_k (before a shared
                                   // expert beside it)
};
/// Router, then gate and up projections, the gated activation and the down projection, each one
/// node holding every expert (experts = E, active = top_k).
void fused_moe_block(ModelBuilder& b, const FusedMoeSpec& spec);

}  // namespace cardfit

// The lightning indexer (see dsa_indexer.hpp).
#include "dsa_indexer.hpp"

namespace cardfit {

namespace {
// Under torch.no_grad(), and not a default LoRA target: adapters there would get no gradient either.
void untracked(ModelBuilder& b) {
  Node* n = b.last_node();
  n->no_grad = true;
  n->lora = false;
}
}  // namespace

ValueId lightning_indexer(ModelBuilder& b, const IndexerSpec& s, ValueId x, ValueId q_latent) {
  const int64_t q_width = checked_mul(s.heads, s.head_dim, "the indexer query width");
  const LinearSpec spec{.lora = false, .role = Role::attention};
  if (!s.runs) {
    // indexer_types "shared": GlmMoeDsaAttention still builds the indexer, and never calls it.
    Node n;
    n.name = s.prefix + "unused";
    n.detail = "indexer_shared";
    n.no_grad = true;
    n.params = b.tensor(s.prefix + "wq_b.weight", {q_width, s.q_lora_rank}, Role::attention, true);
    n.params += b.tensor(s.prefix + "wk.weight", {s.head_dim, s.hidden}, Role::attention, true);
    n.params += b.tensor(s.prefix + "k_norm.weight", {s.head_dim}, Role::norm);
    n.params += b.tensor(s.prefix + "k_norm.bias", {s.head_dim}, Role::norm);
    n.params += b.tensor(s.prefix + "weights_proj.weight", {s.heads, s.hidden}, Role::attention);  // BF16 in FP8 files
    b.reads({x});
    b.node(n);
    return kNoValue;
  }
  b.read(q_latent);
  b.linear(s.prefix + "wq_b", s.q_lora_rank, q_width, spec);
  untracked(b);
  const ValueId q = b.cursor();
  b.read(x);
  b.linear(s.prefix + "wk", s.hidden, s.head_dim, spec);
  untracked(b);
  b.norm(s.prefix + "k_norm", s.head_dim, NormKind::layernorm);
  untracked(b);
  const ValueId k = b.cursor();
  b.read(x);
  b.linear(s.prefix + "weights_proj", s.hidden, s.heads, spec);
  untracked(b);
  // _keep_in_fp32_modules = ["indexer.weights_proj"]: the FP8 checkpoint stores it in BF16 with no
  // weight_scale_inv (modeling_glm_moe_dsa.py), and vLLM's indexer builds it unquantized.
  b.model().tensors.back().linear = false;
  b.reads({q, k, b.cursor()});
  Node topk;
  topk.name = s.prefix + "topk";
  topk.detail = "lightning_indexer_topk";
  topk.in = q_width;
  topk.out = s.topk;
  topk.score_heads = s.heads;
  topk.score_dim = s.head_dim;
  topk.no_grad = true;
  b.node(topk);
  return b.cursor();
}

}  // namespace cardfit

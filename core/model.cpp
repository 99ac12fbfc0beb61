// Checked arithmetic on shapes and the counts of a Model.
#include "model.hpp"

#include <algorithm>
#include <string_view>
#include <cctype>
#include <unordered_map>

#include "error.hpp"

namespace cardfit {

void throw_overflow(const char* what) {
  throw Error(ErrorCode::overflow, std::string(what) + " exceeds the 64-bit range.");
}

int64_t numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n = checked_mul(n, d, "a tensor's element count");
  return n;
}

ExpertIndex expert_index(const std::string& name) {
  static constexpr std::string_view kExperts = ".experts.";
  ExpertIndex e;
  const size_t at = name.find(kExperts);
  if (at == std::string::npos) return e;
  size_t i = at + kExperts.size(), j = i;
  int64_t v = 0;
  while (j < name.size() && j - i < 9 && name[j] >= '0' && name[j] <= '9') v = v * 10 + (name[j++] - '0');
  if (j == i || j >= name.size() || name[j] != '.') return e;
  e.at = i;
  e.end = j;
  e.index = v;
  return e;
}

std::string copy_name(const std::string& name, int64_t copy) {
  const ExpertIndex e = expert_index(name);
  if (e.index < 0) return name;
  return name.substr(0, e.at) + std::to_string(copy) + name.substr(e.end);
}

void throw_copies_disagree(const Tensor& t, const char* path) {
  throw Error(ErrorCode::field_inconsistent,
              std::string(path) + " names some of the " + std::to_string(t.copies) + " experts of " + t.name +
                  " and not others; cardfit plans a layer's experts alike and cannot size that mix.",
              path);
}

namespace {
// Copy-major expansion of the runs of stacks (Tensor::copy_run_start); `tensor` gives an entry's
// Tensor, `rename` sets an entry's names for one copy.
template <typename T, typename TensorOf, typename Rename>
std::vector<T> expand_runs(const std::vector<T>& items, TensorOf tensor, Rename rename) {
  std::vector<T> out;
  size_t total = 0;
  for (const T& x : items) total += size_t(tensor(x).copies);
  out.reserve(total);
  for (size_t i = 0; i < items.size();) {
    const Tensor& t = tensor(items[i]);
    if (t.copies == 1) {
      out.push_back(items[i++]);
      continue;
    }
    size_t j = i + 1;
    while (j < items.size() && tensor(items[j]).copies == t.copies && !tensor(items[j]).copy_run_start) ++j;
    for (size_t k = i; k < j; ++k)
      if (expert_index(tensor(items[k]).name).index != 0)
        throw Error(ErrorCode::internal, "stacked tensor " + tensor(items[k]).name + " has no expert index 0");
    for (int64_t c = 0; c < t.copies; ++c)
      for (size_t k = i; k < j; ++k) {
        T x = items[k];
        rename(x, c);
        tensor(x).copies = 1;
        tensor(x).copy_run_start = false;
        out.push_back(std::move(x));
      }
    i = j;
  }
  return out;
}

void rename_copy(std::string& name, int64_t c) {
  if (!name.empty() && c != 0) name = copy_name(name, c);
}
}  // namespace

std::vector<Tensor> expand_copies(const std::vector<Tensor>& tensors) {
  return expand_runs(tensors, [](auto& t) -> auto& { return t; }, [](Tensor& t, int64_t c) {
    rename_copy(t.name, c);
    rename_copy(t.tied_to, c);
  });
}

std::vector<StoredExtra> expand_copies(const std::vector<StoredExtra>& extras) {
  return expand_runs(extras, [](auto& x) -> auto& { return x.tensor; }, [](StoredExtra& x, int64_t c) {
    rename_copy(x.tensor.name, c);
    rename_copy(x.replaces, c);
  });
}

void inherit_copies(std::vector<StoredExtra>& extras, size_t first, const Tensor& of) {
  if (of.copies == 1) return;
  for (size_t i = first; i < extras.size(); ++i) {
    extras[i].tensor.copies = of.copies;
    extras[i].tensor.copy_run_start = i == first && of.copy_run_start;
  }
}

int64_t expanded_size(const std::vector<Tensor>& tensors) {
  int64_t n = 0;
  for (const auto& t : tensors) n += t.copies;
  return n;
}

const char* domain_name(Domain domain) {
  return domain == Domain::vision ? "vision" : domain == Domain::audio ? "audio" : "text";
}

const char* role_name(Role role) {
  switch (role) {
    case Role::embedding: return "embedding";
    case Role::position_embedding: return "position_embedding";
    case Role::norm: return "norm";
    case Role::attention: return "attention";
    case Role::mlp: return "mlp";
    case Role::router: return "router";
    case Role::expert: return "expert";
    case Role::head: return "head";
    case Role::ssm: return "ssm";
    case Role::vision: return "vision";
    case Role::projector: return "projector";
    case Role::other: return "other";
  }
  return "other";
}

const char* op_name(Op op) {
  switch (op) {
    case Op::embedding: return "embedding";
    case Op::position_embedding: return "position_embedding";
    case Op::norm: return "norm";
    case Op::linear: return "linear";
    case Op::attention: return "attention";
    case Op::activation: return "activation";
    case Op::gated_activation: return "gated_activation";
    case Op::residual_add: return "residual_add";
    case Op::router: return "router";
    case Op::head: return "head";
    case Op::ssm: return "ssm";
    case Op::conv1d: return "conv1d";
    case Op::other: return "other";
  }
  return "other";
}

const char* norm_name(NormKind kind) {
  switch (kind) {
    case NormKind::layernorm: return "layernorm";
    case NormKind::layernorm_nobias: return "layernorm_nobias";
    case NormKind::layernorm_noaffine: return "layernorm_noaffine";
    case NormKind::rmsnorm: return "rmsnorm";
  }
  return "norm";
}

ActKind act_kind(const std::string& hf_name) {
  std::string k = hf_name;
  for (auto& ch : k) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  if (k == "relu" || k == "tanh" || k == "sigmoid" || k == "relu2") return ActKind::keeps_output;
  if (k == "gelu_new" || k == "gelu_fast" || k == "gelu_python") return ActKind::gelu_python;
  if (k == "quick_gelu") return ActKind::quick_gelu;
  return ActKind::fused;
}

namespace {
constexpr struct {
  BlockKind kind;
  const char* name;
} kBlockKinds[] = {
    {BlockKind::embedding, "embedding"},         {BlockKind::decoder_layer, "decoder_layer"},
    {BlockKind::encoder_layer, "encoder_layer"}, {BlockKind::ssm_layer, "ssm_layer"}, {BlockKind::final, "final"},
    {BlockKind::vision_embedding, "vision_embedding"}, {BlockKind::vision_layer, "vision_layer"},
    {BlockKind::vision_final, "vision_final"},   {BlockKind::projector, "projector"},
    {BlockKind::other, "other"},
};
}  // namespace

const char* block_kind_name(BlockKind kind) {
  for (const auto& k : kBlockKinds)
    if (k.kind == kind) return k.name;
  return "other";
}

BlockKind block_kind(const std::string& name) {
  for (const auto& k : kBlockKinds)
    if (name == k.name) return k.kind;
  throw Error(ErrorCode::internal, "unknown block kind " + name);
}

void derive_dims(Model& m) {
  Dims& d = m.dims;
  const Node* attention = nullptr;
  const Node* dense_mlp = nullptr;
  const Node* expert_mlp = nullptr;
  const Node* vocab_head = nullptr;
  const Node* token_embedding = nullptr;
  int64_t hidden = 0, layers = 0, window = 0, experts = 0, active = 0;
  for (const Block& b : m.blocks) {
    if (b.domain != Domain::text) continue;
    const bool layer = b.layer >= 0;
    if (layer && b.sequence == Sequence::source) ++layers;
    for (const Node& n : b.nodes) {
      if (n.op == Op::embedding && n.inputs.empty() && !token_embedding) token_embedding = &n;
      if (n.vocab_head && (!vocab_head || n.out > vocab_head->out)) vocab_head = &n;
      if (!layer) continue;
      if (n.op == Op::residual_add && hidden == 0) hidden = n.out;
      if (n.op == Op::attention && !n.attn.cross) {
        if (!attention) attention = &n;
        window = std::max(window, n.attn.window);
      }
      if (n.ffn_activation) {
        if (n.experts > 1 && !expert_mlp) expert_mlp = &n;
        if (n.experts == 1 && !dense_mlp) dense_mlp = &n;
      }
      if (n.experts > 1 && n.experts > experts) {
        experts = n.experts;
        active = n.active;
      }
    }
  }
  d.layers = layers;
  if (hidden > 0) d.hidden = hidden;
  if (attention) {
    d.heads = attention->attn.heads;
    d.kv_heads = attention->attn.kv_heads;
    d.head_dim = attention->attn.head_dim;
  }
  if (dense_mlp) d.intermediate = dense_mlp->out;
  else if (expert_mlp) d.intermediate = expert_mlp->out;
  if (vocab_head) d.vocab = vocab_head->out;
  else if (token_embedding && token_embedding->out > 0) d.vocab = token_embedding->params / token_embedding->out;
  d.tied_embeddings = vocab_head && vocab_head->tied_to.valid();
  d.experts = experts;
  d.experts_per_token = experts > 0 ? active : 0;
  d.sliding_window = window;
}

namespace {
void put(BlockSignature& key, int64_t v) { key.push_back(v); }

struct SignatureHash {
  size_t operator()(const BlockSignature& key) const {
    uint64_t h = 1469598103934665603ull;  // FNV-1a over the fields
    for (int64_t v : key) h = (h ^ uint64_t(v)) * 1099511628211ull;
    return size_t(h ^ (h >> 32));
  }
};
}  // namespace

BlockSignature structural_signature(const Block& b) {
  BlockSignature key;
  key.reserve(16 + b.nodes.size() * 32);
  // Values renumbered in order of first appearance (the block's input first), so two layers whose
  // edges have the same shape get the same numbers; kNoValue stays -1. A value's producer is the
  // node writing it, so "made in this block, by node i" is part of that shape.
  std::vector<std::pair<ValueId, int64_t>> seen;
  auto value = [&](ValueId v) {
    if (v == kNoValue) return put(key, -1);
    for (const auto& [id, local] : seen)
      if (id == v) return put(key, local);
    seen.emplace_back(v, int64_t(seen.size()));
    put(key, seen.back().second);
  };
  value(b.input);
  value(b.output);
  put(key, int64_t(b.kind_id));
  put(key, b.layer >= 0);  // the index itself never matters, being in the repeated stack does
  put(key, int64_t(b.sequence));
  put(key, int64_t(b.domain));
  put(key, b.tokens_per_image);
  put(key, b.width);
  put(key, int64_t(b.nodes.size()));
  for (const Node& n : b.nodes) {
    put(key, int64_t(n.op));
    put(key, int64_t(n.inputs.size()));
    for (ValueId v : n.inputs) value(v);
    value(n.output);
    for (int64_t v : {n.in, n.out, n.params, n.experts, n.active, int64_t(n.lora), n.tokens_per_image,
                      int64_t(n.norm), int64_t(n.qk_norm), int64_t(n.linear), int64_t(n.act), int64_t(n.vocab_head),
                      int64_t(n.tied_to.block), int64_t(n.tied_to.node), int64_t(n.routed_output),
                      int64_t(n.tokens_scale)})
      put(key, v);
    const AttentionGeom& g = n.attn;
    for (int64_t v : {g.heads, g.kv_heads, g.head_dim, g.v_head_dim, g.window, int64_t(g.causal), int64_t(g.cross),
                      g.cache_dim, int64_t(g.alibi), g.context, g.qkv_features, int64_t(g.sinks), g.compress_ratio,
                      g.compressed_dim, g.chunk, int64_t(g.fp32_qk)})
      put(key, v);
  }
  return key;
}

std::vector<int32_t> block_cost_classes(const Model& m) {
  std::vector<int32_t> classes(m.blocks.size());
  std::unordered_map<BlockSignature, int32_t, SignatureHash> first;
  for (size_t bi = 0; bi < m.blocks.size(); ++bi) {
    const Block& b = m.blocks[bi];
    BlockSignature key = structural_signature(b);
    if (b.domain == Domain::vision && bi > 0) {
      const Block& prev = m.blocks[bi - 1];
      put(key, prev.domain == Domain::vision ? 1 : 0);
      put(key, prev.tokens_per_image);
    }
    classes[bi] = first.try_emplace(std::move(key), int32_t(bi)).first->second;
  }
  return classes;
}

int64_t Model::parameter_count() const {
  if (traced_parameters >= 0) return traced_parameters;
  int64_t n = 0;
  for (const auto& t : tensors)
    if (t.tied_to.empty()) n = checked_add(n, t.count(), "the parameter count");
  return n;
}

int64_t Model::buffer_count() const {
  int64_t n = 0;
  for (const auto& t : buffers) n = checked_add(n, t.count(), "the buffer count");
  return n;
}

std::vector<std::string> linear_leaves(const Model& m) {
  std::vector<std::string> names;
  for (const auto& b : m.blocks)
    for (const auto& n : b.nodes)
      if (n.op == Op::linear) {  // compared in place: a model has many linears and few leaf names
        const std::string_view leaf = std::string_view(n.name).substr(n.name.rfind('.') + 1);
        if (std::find(names.begin(), names.end(), leaf) == names.end()) names.emplace_back(leaf);
      }
  return names;
}

}  // namespace cardfit

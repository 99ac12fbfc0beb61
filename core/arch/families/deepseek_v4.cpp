// DeepSeek-V4 (transformers models/deepseek_v4/{configuration,modeling}_deepseek_v4.py, read 2026-12-01;
// DeepseekV4ForCausalLM). Tensors are named as the published checkpoint stores them (deepseek-ai/
// DeepSeek-V4-Flash: `embed`, `layers.{i}.attn.wq_a`, `ffn.experts.{e}.w1`, `hc_attn_fn`, ...), which
// transformers' conversion_mapping.py ("deepseek_v4") renames on load to its module names
// (embed_tokens, self_attn.q_a_proj, mlp.experts.gate_up_proj, attn_hc.fn, ...). Per layer:
//  - manifold-constrained hyper-connections: the residual stream is hc_mult copies of the hidden state;
//    before each of attention and MoE a projection fn [(2 + hc) hc, hc H] (+ base, scale [3]) makes the
//    pre / post / comb weights, pre collapses the copies into the block's input, post and comb expand the
//    block's output back and mix the copies (DeepseekV4HyperConnection); hc_head collapses them at the end;
//  - shared-KV multi-query attention: wq_a → q_norm → wq_b (heads × head_dim), wkv → kv_norm (one head that
//    is both key and value), a sink logit per head, sliding window `sliding_window`, and the grouped output
//    projection wo_a (o_groups blocks of heads × head_dim / o_groups → o_lora_rank) → wo_b;
//  - layer_types (or the checkpoint's compress_ratios 0 / 4 / 128): sliding only, compressed sparse
//    attention (CSA: a compressor over windows of 4 tokens with two overlapping series, wkv / wgate
//    [2 head_dim, H], ape [4, 2 head_dim], norm, plus the lightning indexer: its own compressor at
//    index_head_dim, wq_b from the query latent, weights_proj), or heavily compressed attention (HCA: one
//    series over windows of 128 tokens, no indexer);
//  - MoE: a router gate [E, H] (a learned-correction bias [E] on top-k layers; on hash_moe layers a frozen
//    token → experts table tid2eid [vocab, top_k], a stored buffer), routed experts w1 / w3 / w2 stored one
//    by one, one shared expert of moe_intermediate_size (the class reads intermediate_size, which maps to
//    moe_intermediate_size; n_shared_experts is not read).
#include <optional>

#include "../blocks.hpp"
#include "../layer_types.hpp"
#include "../stored_extras.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
const char* kSliding = "sliding_attention";
const char* kCsa = "compressed_sparse_attention";
const char* kHca = "heavily_compressed_attention";

// The attention type of one compress_ratios entry (DeepseekV4Config's _COMPRESS_RATIO_TO_LAYER_TYPE).
const char* ratio_type(const Config& c, int64_t r) {
  require(r == 0 || r == 4 || r == 128, c, "compress_ratios",
          "compress_ratios entries must be 0, 4 or 128 (DeepseekV4Config's _COMPRESS_RATIO_TO_LAYER_TYPE).");
  return r == 0 ? kSliding : r == 4 ? kCsa : kHca;
}

// layer_types as DeepseekV4Config.__post_init__ resolves them: explicit layer_types, else the
// checkpoint's compress_ratios (0 / 4 / 128 per layer, the tail past num_hidden_layers describes the MTP
// layer and is dropped), else two HCA layers then CSA / HCA alternating.
std::vector<std::string> attention_types(const Config& c, int64_t layers) {
  if (!c.has("layer_types") && c.has("compress_ratios")) {
    const auto ratios = c.integer_list("compress_ratios");
    require(int64_t(ratios.size()) >= layers, c, "compress_ratios",
            "compress_ratios needs one entry per layer (num_hidden_layers).");
    std::vector<std::string> out;
    for (int64_t i = 0; i < layers; ++i) out.push_back(ratio_type(c, ratios[size_t(i)]));
    return out;
  }
  return read_layer_types(c, layers, {kSliding, kCsa, kHca}, [](int64_t i) -> std::string {
    return i < 2 || i % 2 == 0 ? kHca : kCsa;  // i - 2 odd ⇔ i odd
  });
}

// The MTP layers' attention types: compress_ratios' entries past num_hidden_layers (V4-Flash and -Pro
// end in 0), sliding where the list stops.
std::vector<std::string> mtp_attention_types(const Config& c, int64_t layers, int64_t count) {
  std::vector<std::string> out;
  const std::vector<int64_t> ratios = c.has("compress_ratios") ? c.integer_list("compress_ratios") : std::vector<int64_t>{};
  for (int64_t j = 0; j < count; ++j)
    out.push_back(size_t(layers + j) < ratios.size() ? ratio_type(c, ratios[size_t(layers + j)]) : kSliding);
  return out;
}

// compress_rates: the dict, or the legacy scalars compress_rate_csa / compress_rate_hca, default 4 / 128.
int64_t compress_rate(const Config& c, const char* type, const char* legacy, int64_t fallback) {
  if (c.has(legacy)) return c.positive_or({legacy}, fallback);
  if (c.has_object("compress_rates")) return c.child("compress_rates").positive_or({type}, fallback);
  return fallback;
}

struct V4 {
  int64_t vocab, hidden, layers, heads, head_dim, q_lora, o_groups, o_lora, window;
  int64_t experts, top_k, moe_inter, hc, index_heads, index_dim, index_topk, csa_rate, hca_rate;
  bool tied;
};

// The stored format of the published checkpoint (quantization_config fp8, weight_block_size [128, 128],
// scale_fmt ue8m0; expert_dtype fp4), declared here because its names and split differ from
// DeepSeek-V3's (stored_extras.cpp): every FP8 weight has a companion `<module>.scale` (UE8M0, one per
// block) rather than `weight_scale_inv`; the compressor and indexer wkv / wgate and the indexer's
// weights_proj stay BF16 (modeling_deepseek_v4.py _keep_in_fp32_modules: "ship in BF16 with no
// companion scale_inv"), as do embed, head, norms, the router and the hyper-connection tensors; with
// expert_dtype fp4 the routed experts are FP4 (two values a byte, [out, in / 2] int8) with one UE8M0
// scale per 32 values ([out, in / 32]). expert_dtype is absent from V4-Flash's config.json and means
// fp4 (vLLM deepseek_v4.py: getattr(config, "expert_dtype", "fp4")); fp8 experts (V4-Flash-Base) are
// FP8 with block scales. Checked against a public listing of V4-Flash's 46 safetensors files
// (69,187 tensors, 158,069,433,298 scalars, read 2026-12-04; tests/cpp/arch_deepseek_v4_test.cpp).
// Assumption: without scale_fmt ue8m0 the scales are float32, as DeepSeek-V3's.
struct V4Storage {
  Fp8Block block;
  bool fp4_experts = true;
  StoredDtype scale = StoredDtype::f8_e8m0;
};

std::optional<V4Storage> v4_storage(const Config& c) {
  if (!c.has_object("quantization_config")) return std::nullopt;
  const Config q = c.child("quantization_config");
  if (q.string_or("quant_method", "") != "fp8") return std::nullopt;  // others: add_quantization_extras
  V4Storage st;
  st.block = fp8_weight_block(q);
  const std::string experts = c.string_or("expert_dtype", "fp4");
  require(experts == "fp4" || experts == "fp8", c, "expert_dtype", "expert_dtype must be \"fp4\" or \"fp8\".");
  st.fp4_experts = experts == "fp4";
  st.scale = q.string_or("scale_fmt", "") == "ue8m0" ? StoredDtype::f8_e8m0 : StoredDtype::f32;
  return st;
}

// Whether the checkpoint stores `t` quantized: the FP8 linears and the routed experts.
bool v4_quantized(const Tensor& t) {
  const bool routed = t.role == Role::expert && t.name.find(".ffn.experts.") != std::string::npos;
  if ((!t.linear && !routed) || t.shape.size() != 2 || !t.name.ends_with(".weight") || !t.tied_to.empty()) return false;
  if (t.role == Role::embedding || t.role == Role::head || t.role == Role::router) return false;
  return t.name.find("compressor.") == std::string::npos && !t.name.ends_with("weights_proj.weight");
}

// The scale of `t` (and, for an FP4 expert, its packed shape through `packed`).
Tensor v4_scale(const Config& c, const V4Storage& st, const Tensor& t, Shape* packed) {
  const int64_t out = t.shape[0], in = t.shape[1];
  Tensor scale;
  scale.role = t.role;
  scale.name = t.name.substr(0, t.name.size() - 6) + "scale";  // "<module>.scale"
  if (st.fp4_experts && t.role == Role::expert && t.name.find(".ffn.experts.") != std::string::npos) {
    require(in % 32 == 0, c, "moe_intermediate_size", "FP4 experts need input widths that are multiples of 32.");
    *packed = {out, in / 2};
    scale.shape = {out, in / 32};
  } else {
    scale.shape = {ceil_div(out, st.block.rows), ceil_div(in, st.block.cols)};
  }
  return scale;
}

void stored_quantization(const Config& c, Model& m) {
  const std::optional<V4Storage> st = v4_storage(c);
  if (!st) return;
  m.stored_format = "fp8";
  const size_t count = m.tensors.size();
  for (size_t i = 0; i < count; ++i) {
    const Tensor& t = m.tensors[i];
    if (!v4_quantized(t)) continue;
    const size_t first = m.stored_extras.size();
    Shape packed;
    const Tensor scale = v4_scale(c, *st, t, &packed);
    if (!packed.empty()) {
      Tensor p = t;
      p.shape = packed;
      p.copies = 1;
      m.stored_extras.push_back({p, ExtraRole::quant_blocks, StoredDtype::i8, t.name, 2, false, int32_t(i)});
    }
    // A weight that is not packed is stored as itself in FP8 (one byte), beside its block scale.
    m.stored_extras.push_back({scale, ExtraRole::quant_scale, st->scale, "", 1, false, int32_t(i),
                               packed.empty() ? StoredDtype::f8_e4m3 : StoredDtype::unset});
    inherit_copies(m.stored_extras, first, m.tensors[i]);
  }
  // The MTP layers' weights, stored as they are quantized, each beside its scale.
  const size_t extras = m.stored_extras.size();
  for (size_t i = 0; i < extras; ++i) {
    if (m.stored_extras[i].role != ExtraRole::mtp || !v4_quantized(m.stored_extras[i].tensor)) continue;
    Shape packed;
    const Tensor scale = v4_scale(c, *st, m.stored_extras[i].tensor, &packed);
    StoredExtra& w = m.stored_extras[i];
    w.dtype = packed.empty() ? StoredDtype::f8_e4m3 : StoredDtype::i8;
    if (!packed.empty()) w.tensor.shape = packed;
    const Tensor of = w.tensor;
    m.stored_extras.push_back({scale, ExtraRole::quant_scale, st->scale});
    m.stored_extras.back().of_mtp = true;
    inherit_copies(m.stored_extras, m.stored_extras.size() - 1, of);
  }
}

// The published checkpoint's MTP layers, mtp.{j}.* for j < num_nextn_predict_layers, which
// DeepseekV4ForCausalLM ignores on load (_keys_to_ignore_on_load_unexpected mtp.*): each is a decoder
// block of attention type compress_ratios[layers + j] (0: sliding, no compressor or indexer) and a
// learned-routing MoE, plus e_proj and h_proj [H, H] (FP8 linears), enorm, hnorm, norm and its own
// hc_head fn / base / scale; no embedding or head of its own (DeepSeek's inference/model.py MTPBlock
// shares the model's; vLLM deepseek_v4_mtp.py "separate e_proj / h_proj ... instead of the fused
// eh_proj"). The block's tensors are copied from the last main layer of that attention type that is not
// hash-routed; for a sliding MTP layer with none, from the last learned-routing layer, without its
// compressor and indexer.
void add_mtp_layers(Model& m, const V4& v, int64_t count, const std::vector<std::string>& types,
                    const std::vector<std::string>& mlp_types, const std::vector<std::string>& mtp_types) {
  for (int64_t j = 0; j < count; ++j) {
    const std::string& type = mtp_types[size_t(j)];
    int64_t source = -1;
    bool strip = false;
    for (int64_t i = v.layers - 1; i >= 0 && source < 0; --i)
      if (mlp_types[size_t(i)] == "moe" && types[size_t(i)] == type) source = i;
    for (int64_t i = v.layers - 1; i >= 0 && source < 0 && type == kSliding; --i)
      if (mlp_types[size_t(i)] == "moe") source = i, strip = true;
    const std::string p = "mtp." + std::to_string(j) + ".";
    if (source < 0) {
      m.notes.push_back("The checkpoint's MTP layer " + p + "* (" + type + ", learned routing) has no main layer "
                        "to copy; its tensors are not listed as stored extras.");
      continue;
    }
    const std::string from = "layers." + std::to_string(source) + ".";
    auto extra = [&](Tensor t) {
      t.tied_to.clear();
      m.stored_extras.push_back({std::move(t), ExtraRole::mtp, StoredDtype::bf16});
    };
    extra(make_tensor(p + "e_proj.weight", {v.hidden, v.hidden}, Role::other, true));
    extra(make_tensor(p + "h_proj.weight", {v.hidden, v.hidden}, Role::other, true));
    extra(make_tensor(p + "enorm.weight", {v.hidden}, Role::norm, false));
    extra(make_tensor(p + "hnorm.weight", {v.hidden}, Role::norm, false));
    for (const auto& t : m.tensors) {  // extra() appends to m.stored_extras only
      if (t.name.rfind(from, 0) != 0) continue;
      const std::string rest = t.name.substr(from.size());
      if (strip && (rest.rfind("attn.compressor.", 0) == 0 || rest.rfind("attn.indexer.", 0) == 0)) continue;
      Tensor c = t;
      c.name = p + rest;
      extra(std::move(c));
    }
    extra(make_tensor(p + "norm.weight", {v.hidden}, Role::norm, false));
    extra(make_tensor(p + "hc_head_fn", {v.hc, checked_mul(v.hc, v.hidden)}, Role::other, false));
    extra(make_tensor(p + "hc_head_base", {v.hc}, Role::other, false));
    extra(make_tensor(p + "hc_head_scale", {1}, Role::other, false));
  }
}

// A parameter node that does not go through nn.Linear (hyper-connection mixes, pooling weights).
Node param_node(std::string name, Op op, int64_t in, int64_t out, int64_t params, std::string detail) {
  Node n;
  n.name = std::move(name);
  n.op = op;
  n.in = in;
  n.out = out;
  n.params = params;
  n.detail = std::move(detail);
  return n;
}

// fn [(2 + hc) hc, hc H], base [(2 + hc) hc], scale [3]: the pre / post / comb weights from the copies,
// then the copies collapsed by pre into one input of width H. Returns the weights' value.
ValueId hyper_collapse(ModelBuilder& b, const V4& v, const std::string& stem) {
  const int64_t mix = (2 + v.hc) * v.hc, wide = v.hc * v.hidden;
  const ValueId streams = b.stream();
  int64_t params = b.tensor(stem + "_fn", {mix, wide}, Role::other);
  params += b.tensor(stem + "_base", {mix}, Role::other);
  params += b.tensor(stem + "_scale", {3}, Role::other);
  b.read(streams);
  Node w = param_node(stem, Op::linear, wide, mix, params, "hyper_connection");
  w.linear = LinearKind::parameter;  // F.linear over a bare nn.Parameter: no LoRA, no bitsandbytes
  w.lora = false;
  b.node(w);
  const ValueId weights = b.cursor();
  b.reads({streams, weights});
  b.node(param_node(stem + ".collapse", Op::other, wide, v.hidden, 0, "hc_collapse"));
  return weights;
}

// post ⊗ block output + combᵀ · copies: the new residual stream (hc H wide).
void hyper_expand(ModelBuilder& b, const V4& v, const std::string& stem, ValueId weights) {
  b.reads({b.cursor(), b.stream(), weights});
  b.node(param_node(stem + ".expand", Op::other, v.hidden, v.hc * v.hidden, 0, "hc_expand_mix"));
  b.set_stream(b.cursor());
}

// wkv / wgate [series × dim, H], ape [rate, series × dim] and norm [dim]: one compressed entry per window
// of `rate` tokens (softmax-pooled, normed). Reads x; leaves the compressed keys at the cursor.
void compressor(ModelBuilder& b, const std::string& p, int64_t hidden, int64_t dim, int64_t series, int64_t rate) {
  const ValueId x = b.cursor();
  const int64_t width = checked_mul(series, dim, "the compressor width");
  const LinearSpec spec{.lora = false, .role = Role::attention};
  b.linear(p + "wkv", hidden, width, spec);
  const ValueId kv = b.cursor();
  b.read(x);
  b.linear(p + "wgate", hidden, width, spec);
  const ValueId gate = b.cursor();
  b.reads({kv, gate});
  Node pool = param_node(p + "pool", Op::other, width, dim, b.tensor(p + "ape", {rate, width}, Role::attention),
                         "compress_pool");
  // Per sequence between decode steps (DeepseekV4HCACache / CSACache): the projected kv and gate of the
  // tokens since the last full window (at most rate - 1 tokens each, the worst case counted here) and,
  // with two overlapping series (CSA), the previous window's first series, kv and gate [rate, dim]
  // each; in the activation dtype.
  pool.recurrent_state = checked_mul(2 * (rate - 1), width, "the compressor buffer");
  if (series == 2) pool.recurrent_state = checked_add(pool.recurrent_state, checked_mul(2 * rate, dim, "the overlap"),
                                                      "the compressor state");
  b.node(pool);
  b.norm(p + "norm", dim, NormKind::rmsnorm);
}

void attention(ModelBuilder& b, const V4& v, const std::string& p, const std::string& type) {
  const LinearSpec proj{.role = Role::attention};
  const int64_t q_width = checked_mul(v.heads, v.head_dim, "the query width");
  const ValueId x = b.cursor();
  b.linear(p + "wq_a", v.hidden, v.q_lora, proj);
  b.norm(p + "q_norm", v.q_lora, NormKind::rmsnorm);
  const ValueId q_latent = b.cursor();
  b.linear(p + "wq_b", v.q_lora, q_width, proj);
  b.node(param_node(p + "q_b_norm", Op::norm, q_width, q_width, 0, "rmsnorm_unweighted"));  // no weight
  const ValueId q = b.cursor();
  b.read(x);
  b.linear(p + "wkv", v.hidden, v.head_dim, proj);
  b.norm(p + "kv_norm", v.head_dim, NormKind::rmsnorm);
  const ValueId kv = b.cursor();

  AttentionGeom g;
  g.heads = v.heads;
  g.kv_heads = 1;  // one shared head, read as both key and value
  g.head_dim = g.v_head_dim = v.head_dim;
  g.window = v.window;
  g.cache_dim = v.head_dim;  // K = V: the cache holds one tensor
  g.sinks = true;
  std::vector<ValueId> inputs{q, kv, kv};
  if (type != kSliding) {
    const bool csa = type == kCsa;
    b.read(x);
    compressor(b, p + "compressor.", v.hidden, v.head_dim, csa ? 2 : 1, csa ? v.csa_rate : v.hca_rate);
    inputs.push_back(b.cursor());
    g.compress_ratio = csa ? v.csa_rate : v.hca_rate;
    g.compressed_dim = csa ? v.head_dim + v.index_dim : v.head_dim;  // CSA: + the indexer's keys, same rate
    if (csa) {
      // The lightning indexer: its own compressor at index_head_dim, queries from the query latent,
      // per-head weights from x; keeps the top index_topk compressed entries per query.
      b.read(x);
      compressor(b, p + "indexer.compressor.", v.hidden, v.index_dim, 2, v.csa_rate);
      const ValueId keys = b.cursor();
      b.read(q_latent);
      b.linear(p + "indexer.wq_b", v.q_lora, checked_mul(v.index_heads, v.index_dim, "the indexer query width"),
               {.lora = false, .role = Role::attention});
      const ValueId iq = b.cursor();
      b.read(x);
      b.linear(p + "indexer.weights_proj", v.hidden, v.index_heads, {.lora = false, .role = Role::attention});
      b.reads({iq, keys, b.cursor()});
      b.node(param_node(p + "indexer.topk", Op::other, v.index_heads * v.index_dim, v.index_topk, 0,
                        "lightning_indexer_topk"));
      inputs.push_back(b.cursor());
    }
  }
  // attn_sink [heads], a sink logit per head in the softmax: added just before the attention node,
  // which owns it.
  const int64_t sink = b.tensor(p + "attn_sink", {v.heads}, Role::attention);
  b.reads(inputs);
  b.attention(p + "attn", g, q_width);
  b.last_node()->params += sink;
  // Grouped output projection: o_groups independent blocks [o_lora, heads × head_dim / o_groups], stored
  // stacked as one [o_groups × o_lora, heads × head_dim / o_groups]; a DeepseekV4GroupedLinear (its
  // own bmm forward), so not a default LoRA target.
  const int64_t group_in = q_width / v.o_groups;
  Node wo_a = param_node(p + "wo_a", Op::linear, group_in, v.o_lora,
                         b.tensor(p + "wo_a.weight", {checked_mul(v.o_groups, v.o_lora, "wo_a rows"), group_in},
                                  Role::attention, true),
                         "grouped");
  wo_a.active = v.o_groups;  // each token runs every group once
  wo_a.lora = false;
  b.node(wo_a);
  b.linear(p + "wo_b", checked_mul(v.o_groups, v.o_lora, "wo_b input"), v.hidden, proj);
}
}  // namespace

Model deepseek_v4(const Config& c) {
  // DeepseekV4Config defaults (V4-Flash-Base).
  V4 v{};
  v.vocab = c.positive_or({"vocab_size"}, 129280);
  v.hidden = c.positive_or({"hidden_size"}, 4096);
  v.layers = c.positive_or({"num_hidden_layers"}, 43);
  v.heads = c.positive_or({"num_attention_heads"}, 64);
  v.head_dim = c.positive_or({"head_dim"}, 512);
  v.q_lora = c.positive_or({"q_lora_rank"}, 1024);
  v.o_groups = c.positive_or({"o_groups"}, 8);
  v.o_lora = c.positive_or({"o_lora_rank"}, 1024);
  v.window = c.positive_or({"sliding_window"}, 128);
  v.experts = c.positive_or({"n_routed_experts"}, 256);
  v.top_k = c.positive_or({"num_experts_per_tok"}, 6);
  v.moe_inter = c.positive_or({"moe_intermediate_size"}, 2048);
  v.hc = c.positive_or({"hc_mult"}, 4);
  v.index_heads = c.positive_or({"index_n_heads"}, 64);
  v.index_dim = c.positive_or({"index_head_dim"}, 128);
  v.index_topk = c.positive_or({"index_topk"}, 512);
  v.csa_rate = compress_rate(c, kCsa, "compress_rate_csa", 4);
  v.hca_rate = compress_rate(c, kHca, "compress_rate_hca", 128);
  v.tied = c.boolean_or("tie_word_embeddings", false);
  require(c.positive_or({"num_key_value_heads"}, 1) == 1, c, "num_key_value_heads",
          "DeepSeek-V4 attention has one shared key/value head (num_key_value_heads must be 1).");
  require(v.top_k <= v.experts, c, "num_experts_per_tok", "num_experts_per_tok cannot exceed n_routed_experts.");
  require(checked_mul(v.heads, v.head_dim, "the query width") % v.o_groups == 0, c, "o_groups",
          "o_groups must divide num_attention_heads × head_dim (the grouped output projection).");
  require(!c.boolean_or("attention_bias", false) && !c.boolean_or("mlp_bias", false), c, "attention_bias",
          "DeepSeek-V4 with attention_bias or mlp_bias is not traced (no published checkpoint has them).");
  const auto types = attention_types(c, v.layers);
  const int64_t mtp = c.count_or({"num_nextn_predict_layers"}, 1);
  require(mtp <= v.layers, c, "num_nextn_predict_layers", "num_nextn_predict_layers cannot exceed num_hidden_layers.");
  const auto mtp_types = mtp_attention_types(c, v.layers, mtp);
  const int64_t hash_layers = c.count_or({"num_hash_layers"}, 3);
  const auto mlp_types = read_layer_types(c, v.layers, {"hash_moe", "moe"},
                                          [&](int64_t i) -> std::string { return i < hash_layers ? "hash_moe" : "moe"; },
                                          "mlp_layer_types");
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b("deepseek_v4", "deepseek_v4");
  Dims& d = b.dims();
  d.hidden = v.hidden;
  d.layers = v.layers;
  d.heads = v.heads;
  d.kv_heads = 1;
  d.head_dim = v.head_dim;
  d.intermediate = v.moe_inter;
  d.vocab = v.vocab;
  d.max_positions = c.positive_or({"max_position_embeddings"}, 1048576);
  d.experts = v.experts;
  d.experts_per_token = v.top_k;
  d.tied_embeddings = v.tied;
  d.initializer_range = c.number_or("initializer_range", 0.02);

  b.block("embed", "embedding");
  token_embedding(b, "embed", v.vocab, v.hidden);
  // The embedding is copied into hc_mult streams.
  b.node(param_node("hc_expand", Op::other, v.hidden, v.hc * v.hidden, 0, "hc_copies"));
  b.set_stream(b.cursor());
  for (int i = 0; i < v.layers; ++i) {
    const std::string p = "layers." + std::to_string(i) + ".";
    b.block("layers." + std::to_string(i), "decoder_layer", i);
    ValueId w = hyper_collapse(b, v, p + "hc_attn");
    b.norm(p + "attn_norm", v.hidden, NormKind::rmsnorm);
    attention(b, v, p + "attn.", types[size_t(i)]);
    hyper_expand(b, v, p + "hc_attn", w);

    w = hyper_collapse(b, v, p + "hc_ffn");
    b.norm(p + "ffn_norm", v.hidden, NormKind::rmsnorm);
    const bool hash = mlp_types[size_t(i)] == "hash_moe";
    moe_block(b, {.prefix = p + "ffn", .hidden = v.hidden, .experts = v.experts, .top_k = v.top_k,
                  .expert_intermediate = v.moe_inter,
                  .expert = {.act = act, .gate = "w1", .up = "w3", .down = "w2"},
                  .shared_experts = 1, .shared_intermediate = v.moe_inter,
                  .router_bias_name = hash ? "" : "bias"});
    // Hash routing picks the experts by token id from a frozen table the checkpoint stores.
    if (hash) b.buffer(p + "ffn.gate.tid2eid", {v.vocab, v.top_k});
    hyper_expand(b, v, p + "hc_ffn", w);
  }
  b.block("final", "final");
  {
    const ValueId streams = b.stream();
    int64_t params = b.tensor("hc_head_fn", {v.hc, v.hc * v.hidden}, Role::other);
    params += b.tensor("hc_head_base", {v.hc}, Role::other);
    params += b.tensor("hc_head_scale", {1}, Role::other);
    b.read(streams);
    Node w = param_node("hc_head", Op::linear, v.hc * v.hidden, v.hc, params, "hyper_head");
    w.linear = LinearKind::parameter;
    w.lora = false;
    b.node(w);
    b.reads({streams, b.cursor()});
    b.node(param_node("hc_head.collapse", Op::other, v.hc * v.hidden, v.hidden, 0, "hc_collapse"));
  }
  b.norm("norm", v.hidden, NormKind::rmsnorm);
  lm_head(b, "head", v.hidden, v.vocab, v.tied ? "embed.weight" : "");

  Model m = b.finish();
  // The checkpoint stores each routed expert as w1 / w3 / w2, but DeepseekV4Experts holds them as stacked
  // bare parameters (gate_up_proj [E, 2I, H], down_proj [E, H, I]): PEFT's LoRA does not target them and
  // bitsandbytes leaves them unquantized. The shared expert is a DeepseekV4MLP of nn.Linear modules.
  for (auto& blk : m.blocks)
    for (auto& n : blk.nodes)
      if (n.op == Op::linear && n.experts > 1) {
        n.linear = LinearKind::parameter;
        n.lora = false;
      }
  for (auto& t : m.tensors)
    if (t.role == Role::expert && t.name.find(".ffn.experts.") != std::string::npos) t.linear = false;
  add_mtp_layers(m, v, mtp, types, mlp_types, mtp_types);
  stored_quantization(c, m);
  // What the plan assumes where the graph is coarser than the modeling code.
  m.facts.sdpa = false;  // eager unless asked otherwise: what transformers runs
  m.notes.push_back(
      "DeepSeek-V4 in transformers runs eager attention only (_supports_sdpa and _supports_flash_attn are "
      "False: head_dim 512 and the per-head sinks), so the plan takes eager attention by default.");
  m.notes.push_back(
      "DeepSeek-V4 training activations: each hyper-connection saves the hc_mult-wide stream it reads and "
      "the block output it expands; the fp32 copies the mixes run in, the Sinkhorn iterations' "
      "intermediates and the compressors' windowed softmax are not counted; attention FLOPs are those of the "
      "sliding window, eager scores of the whole sequence (the window is a mask); the compressed entries CSA / HCA "
      "layers also attend to are not added.");
  if (mtp > 0)
    m.notes.push_back("The published checkpoint also stores " + std::to_string(mtp) +
                      " multi-token-prediction layer(s) as mtp.{j}.* (num_nextn_predict_layers); DeepseekV4ForCausalLM "
                      "ignores them (_keys_to_ignore_on_load_unexpected mtp.*), so they are not counted here; the "
                      "checkpoint reconciliation lists them.");
  return m;
}

}  // namespace cardfit::families

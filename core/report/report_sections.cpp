// The sections made only when asked: the graph (nodes, and blocks folded by signature), the
// tensor list (MoE experts stacked per layer unless expanded) and the memory curves, each written
// straight to a string. Formats only: every number comes from plan/ and the traced Model.
#include <cstdio>
#include <string_view>
#include <unordered_map>

#include "../plan/curve.hpp"
#include "../plan/graph_costs.hpp"
#include "json_writer.hpp"
#include "report.hpp"

namespace cardfit {

namespace {
std::string leaf(const std::string& block_name, const std::string& node_name) {
  return node_name.rfind(block_name + ".", 0) == 0 ? node_name.substr(block_name.size() + 1) : node_name;
}

struct NodeRow {
  const Node* node;
  std::string name;
  int64_t rows, tokens, flops_context, saved;
};

// One node's members (keys in nlohmann's order); `block` < 0 leaves the block index out (the
// folding signature, which must not differ between blocks that only differ in position).
// In a signature, value ids are numbered by first appearance within the block (`local`), so two
// blocks that wire their nodes alike compare equal whatever their global ids.
void node_json(JsonWriter& w, const NodeRow& r, int64_t block, Domain domain, std::unordered_map<ValueId, ValueId>* local = nullptr,
               double softcap = 0) {
  auto id = [&](ValueId v) { return local && v != kNoValue ? local->try_emplace(v, ValueId(local->size())).first->second : v; };
  const Node& n = *r.node;
  w.begin_object();
  if (n.op == Op::attention) {
    w.key("attention").begin_object().field("causal", n.attn.causal).field("cross", n.attn.cross);
    w.field("head_dim", n.attn.head_dim).field("heads", n.attn.heads).field("kv_heads", n.attn.kv_heads);
    w.field("window", n.attn.window).end_object();
  }
  if (block >= 0) w.field("block", block);
  w.field("detail", n.detail).field("domain", domain_name(domain));
  // The config's attention soft-cap as written ("50"), for display: every attention node applies it.
  if (n.op == Op::attention && softcap > 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", softcap);
    w.field("logit_softcap", std::string(buf));
  }
  if (n.experts > 1) w.key("experts").begin_object().field("active", n.active).field("stored", n.experts).end_object();
  w.field("flops_per_token", forward_flops_per_token(n, r.flops_context)).key("inputs").begin_array();
  for (ValueId v : n.inputs) w.value(id(v));
  w.end_array();
  w.field("name", r.name).field("op", op_name(n.op));
  w.key("out_shape").begin_array().value(r.rows).value(r.tokens).value(n.out).end_array().field("output", id(n.output));
  w.field("params", n.params).field("saved_bytes", r.saved).end_object();
}

void tensor_json(JsonWriter& w, const Tensor& t, const std::string& name, int64_t count, int64_t experts) {
  w.begin_object().field("count", count);
  if (experts > 0) w.field("experts", experts);
  w.field("layer", t.layer).field("name", name).field("role", role_name(t.role)).key("shape").array_of(t.shape);
  w.field("tied", !t.tied_to.empty()).field("tied_to", t.tied_to).end_object();
}
}  // namespace

std::string graph_report(const Model& m, const Plan& p) {
  // Saved bytes as the requested mode's training step keeps them (serving: the full fine-tune's).
  // A vision tower's blocks run over images: their nodes' shapes are [batch × images, tokens per
  // image, features], as the tower's tensors are, and a frozen tower keeps nothing.
  const Options& opt = p.options;
  const int64_t batch = opt.batch;
  const int64_t seq = opt.mode == Mode::serve ? p.serve_seq : p.seq;
  const Mode mode = opt.mode == Mode::serve ? Mode::full : opt.mode;
  const StepSetup setup = make_setup(m, opt, mode);
  StepSetup unrecorded = setup;
  unrecorded.train = false;
  const std::vector<char> recorded = recorded_blocks(m, opt, mode, setup.images);
  const int64_t dseq = opt.decoder_seq > 0 ? opt.decoder_seq : seq;

  std::string nodes, sig;
  JsonWriter nw(nodes);
  nw.begin_array();
  // Blocks whose rows (leaf names, ops, shapes, numbers) are identical fold into one entry,
  // wherever they sit: Gemma 2's alternating local and global layers give two entries, not 42.
  struct Group {
    size_t first;
    std::vector<size_t> members;
    std::string folded_nodes;
    int64_t params = 0;
  };
  std::vector<Group> groups;
  std::unordered_map<std::string, size_t> by_signature;
  size_t node_count = 0;
  for (size_t bi = 0; bi < m.blocks.size(); ++bi) {
    const Block& b = m.blocks[bi];
    const bool vision = b.domain == Domain::vision;
    const double softcap = vision ? 0 : m.facts.attn_logit_softcap;  // the text model's cap
    const BlockCost cost = block_cost(m, bi, recorded[bi] ? setup : unrecorded, seq, dseq);
    std::vector<NodeRow> rows;
    for (size_t ni = 0; ni < b.nodes.size(); ++ni) {
      const Node& n = b.nodes[ni];
      const int64_t tokens = vision ? (n.tokens_per_image > 0 ? n.tokens_per_image : b.tokens_per_image)
                                    : node_tokens(m, bi, ni, seq, dseq, setup.images);
      rows.push_back({&n, n.name, vision ? checked_mul(batch, setup.images, "a shape") : batch, tokens,
                      attention_context(m, bi, n, seq, dseq), checked_mul(cost.node_saved[ni], batch, "saved activations")});
      node_json(nw, rows.back(), int64_t(bi), b.domain, nullptr, softcap);
      ++node_count;
    }
    sig.clear();
    JsonWriter sw(sig);
    sw.begin_array().value(b.kind).value(domain_name(b.domain)).value(vision ? b.tokens_per_image : int64_t(0));
    std::unordered_map<ValueId, ValueId> local;
    for (auto& r : rows) {
      r.name = leaf(b.name, r.node->name);
      node_json(sw, r, -1, b.domain, &local, softcap);
    }
    sw.end_array();
    auto [it, fresh] = by_signature.try_emplace(sig, groups.size());
    if (fresh) {
      Group g{bi, {}, {}, 0};
      JsonWriter fw(g.folded_nodes);
      fw.begin_array();
      for (const auto& r : rows) node_json(fw, r, int64_t(bi), b.domain, nullptr, softcap);
      fw.end_array();
      for (const auto& n : b.nodes) g.params += n.params;
      groups.push_back(std::move(g));
    }
    groups[it->second].members.push_back(bi);
  }
  nw.end_array();

  std::string out;
  out.reserve(nodes.size() + 4096);
  JsonWriter w(out);
  w.begin_object().field("batch", batch).key("blocks").begin_array();
  for (const auto& g : groups) {
    const Block& first = m.blocks[g.first];
    const Block& last = m.blocks[g.members.back()];
    const bool contiguous = g.members.back() - g.members.front() + 1 == g.members.size();
    w.begin_object().field("contiguous", contiguous).field("domain", domain_name(first.domain));
    w.field("first", first.name).key("indices").array_of(g.members).field("kind", first.kind);
    w.field("last", last.name).field("name", first.name).key("nodes").raw(g.folded_nodes);
    w.field("params", g.params).field("repeat", g.members.size());
    if (first.domain == Domain::vision) w.field("tokens_per_image", first.tokens_per_image);
    w.end_object();
  }
  w.end_array().field("images", setup.images).field("node_count", node_count).key("nodes").raw(nodes);
  w.field("seq", seq).end_object();
  return out;
}

std::string tensors_report(const Model& m, bool expand_experts) {
  // The Model holds a layer's experts stacked (Tensor::copies): listed so, or one entry per expert.
  const std::vector<Tensor> expanded = expand_experts ? expand_copies(m.tensors) : std::vector<Tensor>{};
  const std::vector<Tensor>& list = expand_experts ? expanded : m.tensors;
  std::string out;
  out.reserve(list.size() * (expand_experts ? 140 : 60) + 256);
  JsonWriter w(out);
  w.begin_object().field("expanded", expand_experts).field("tensor_count", expanded_size(m.tensors)).key("tensors").begin_array();
  for (const Tensor& t : list) {
    if (t.copies == 1) {
      tensor_json(w, t, t.name, t.count(), 0);
      continue;
    }
    const ExpertIndex e = expert_index(t.name);
    const std::string name = t.name.substr(0, e.at) + "{0.." + std::to_string(t.copies - 1) + "}" + t.name.substr(e.end);
    tensor_json(w, t, name, t.count(), t.copies);
  }
  w.end_array().end_object();
  return out;
}

std::string curves_report(const Plan& p) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  for (const auto& c : memory_curves(p)) {  // full, lora, qlora, serve: sorted already
    w.data_key(mode_name(c.mode)).begin_object().key("points").begin_array();
    for (const auto& pt : c.points)
      w.begin_object().field("batch", pt.batch).field("peak_bytes", pt.peak_bytes).field("reserved_bytes", pt.reserved_bytes).end_object();
    w.end_array().field("seq", c.seq).end_object();
  }
  w.end_object();
  return out;
}

}  // namespace cardfit

namespace cardfit {

namespace {
void components_json(JsonWriter& w, const std::vector<Component>& cs) {
  w.begin_array();
  for (const auto& c : cs) w.begin_object().field("bytes", c.bytes).field("id", c.id).field("label", c.label).end_object();
  w.end_array();
}
void topology_json(JsonWriter& w, const Topology& t) {
  w.begin_object().field("cards_per_node", t.cards_per_node).field("inter_node", t.inter_node);
  w.field("intra_node", t.intra_node).field("nodes", t.nodes).field("note", t.note).field("recommended", t.recommended);
  w.end_object();
}
}  // namespace

std::string parallel_report(const Plan& p) {
  const ParallelPlan& pp = p.parallel;
  const ParallelLayout& l = pp.layout;
  std::string out;
  JsonWriter w(out);
  w.begin_object().key("assumptions").begin_array();
  for (const auto& a : pp.assumptions) w.begin_object().field("id", a.id).field("source", a.source).field("text", a.text).end_object();
  w.end_array().field("batch", pp.batch).key("cards").begin_array();
  for (const auto& row : pp.cards) {
    w.begin_object().field("capacity_bytes", row.card->capacity_bytes).field("id", row.card->id);
    w.field("interconnect", row.card->interconnect).field("name", row.card->name).key("smallest").begin_array();
    for (const auto& s : row.smallest) {
      w.begin_object().key("gpus");
      if (s.gpus > 0) w.value(s.gpus);
      else w.null();
      w.field("host_bytes", s.host_bytes).field("offload", s.offload).field("per_rank_reserved_bytes", s.per_rank_reserved);
      w.field("strategy", parallel_name(s.strategy)).key("topology");
      if (s.gpus > 0) topology_json(w, s.topology);
      else w.null();
      w.end_object();
    }
    w.end_array().end_object();
  }
  w.end_array().field("fits_priced_card", pp.fits_priced).key("layout").begin_object();
  w.field("cp", l.cp).field("dp", l.dp).field("ep", l.ep).field("gpus", l.gpus);
  w.field("offload_optimizer", l.offload_optimizer).field("offload_params", l.offload_params);
  w.field("reshard_after_forward", l.reshard_after_forward).field("shard_group", l.shard).field("tp", l.tp);
  w.end_object().field("note", pp.note).key("per_rank").begin_object().key("components");
  components_json(w, pp.rank.components);
  w.key("host_components");
  components_json(w, pp.rank.host);
  w.field("host_bytes", pp.rank.host_bytes).field("peak_bytes", pp.rank.peak_bytes).field("peak_event", pp.rank.peak_event);
  w.field("peak_phase", pp.rank.peak_phase).key("phases").begin_array();
  for (const auto& ph : pp.rank.phases) w.begin_object().field("bytes", ph.bytes).field("name", ph.name).end_object();
  w.end_array().field("reserved_bytes", pp.rank.reserved_bytes).end_object();
  w.field("priced_card", pp.priced_card).field("seq", pp.seq).field("strategy", parallel_name(l.strategy));
  w.field("supported", pp.supported).key("topology");
  if (pp.topology) topology_json(w, *pp.topology);
  else w.null();
  w.end_object();
  return out;
}

}  // namespace cardfit

// Model + Plan → the JSON report. Field names are a contract (DESIGN.md); add, never rename.
#include <nlohmann/json.hpp>

#include "../plan/curve.hpp"
#include "../plan/graph_costs.hpp"
#include "report.hpp"

namespace cardfit {
using nlohmann::json;

namespace {
json memory_json(const MemoryPlan& p) {
  json comps = json::object();
  for (const auto& c : p.components) comps[c.id] = c.bytes;
  json labels = json::object();
  for (const auto& c : p.components) labels[c.id] = c.label;
  json phases = json::object();
  for (const auto& ph : p.phases) phases[ph.name] = ph.bytes;
  json overheads = json::object();
  for (const auto& c : p.overheads) overheads[c.id] = c.bytes;
  return {{"mode", mode_name(p.mode)}, {"batch", p.batch}, {"seq", p.seq}, {"peak_bytes", p.peak_bytes},
          {"reserved_bytes", p.reserved_bytes}, {"peak_phase", p.peak_phase}, {"peak_event", p.peak_event},
          {"components", comps}, {"component_labels", labels}, {"overheads", overheads}, {"phases", phases},
          {"trainable_params", p.trainable_params}};
}

json split_option_json(const SplitOption& s) {
  return {{"strategy", s.strategy}, {"cards", s.cards}, {"stage_blocks", s.stage_layers},
          {"per_card_bytes", s.per_card_bytes}, {"card_hours", s.card_hours}};
}

json split_json(const Split& s) {
  json j = split_option_json(s);
  json alt = json::array();
  for (const auto& o : s.alternatives) alt.push_back(split_option_json(o));
  j["alternatives"] = alt;
  j["cheapest"] = s.cheapest;
  return j;
}

json cost_row_json(const CostRow& r) {
  return {{"card", r.card ? r.card->id : ""}, {"mode", mode_name(r.mode)}, {"cards", r.cards},
          {"strategy", r.strategy}, {"hours", r.hours}, {"usd", r.usd}, {"fits", r.fits}, {"priced", r.priced}};
}

// Blocks with the same structure (op, widths, params, attention window) fold into one entry.
std::string signature(const Block& b) {
  std::string s = b.kind;
  for (const auto& n : b.nodes)
    s += "|" + std::string(op_name(n.op)) + n.detail + ":" + std::to_string(n.in) + ">" + std::to_string(n.out) + "#" +
         std::to_string(n.params) + "w" + std::to_string(n.attn.window);
  return s;
}

std::string leaf(const std::string& block_name, const std::string& node_name) {
  return node_name.rfind(block_name + ".", 0) == 0 ? node_name.substr(block_name.size() + 1) : node_name;
}
}  // namespace

json graph_json(const Model& m, int64_t batch, int64_t seq, const Options& opt) {
  // Saved bytes as the requested mode's training step keeps them (serving: the full fine-tune's).
  // A vision tower's blocks run over images: their nodes' shapes are [batch × images, tokens per
  // image, features], as the tower's tensors are, and a frozen tower keeps nothing.
  const Mode mode = opt.mode == Mode::serve ? Mode::full : opt.mode;
  const StepSetup setup = make_setup(m, opt, mode);
  StepSetup unrecorded = setup;
  unrecorded.train = false;
  const std::vector<char> recorded = recorded_blocks(m, opt, mode, setup.images);
  const int64_t dseq = opt.decoder_seq > 0 ? opt.decoder_seq : seq;
  json nodes = json::array(), blocks = json::array();
  std::string last_sig;
  for (size_t bi = 0; bi < m.blocks.size(); ++bi) {
    const Block& b = m.blocks[bi];
    const bool vision = b.domain == Domain::vision;
    const BlockCost cost = block_cost(m, bi, recorded[bi] ? setup : unrecorded, seq, dseq);
    json bnodes = json::array();
    for (size_t ni = 0; ni < b.nodes.size(); ++ni) {
      const Node& n = b.nodes[ni];
      const int64_t tokens = vision ? (n.tokens_per_image > 0 ? n.tokens_per_image : b.tokens_per_image)
                                    : node_tokens(m, bi, ni, seq, dseq, setup.images);
      const int64_t rows = vision ? checked_mul(batch, setup.images, "a shape") : batch;
      json node = {{"name", n.name}, {"op", op_name(n.op)}, {"detail", n.detail}, {"block", bi},
                   {"out_shape", {rows, tokens, n.out}}, {"params", n.params},
                   {"flops_per_token", forward_flops_per_token(n, attention_context(m, bi, n, seq, dseq))},
                   {"saved_bytes", checked_mul(cost.node_saved[ni], batch, "saved activations")},
                   {"domain", domain_name(b.domain)}, {"inputs", n.inputs}, {"output", n.output}};
      if (n.experts > 1) node["experts"] = {{"stored", n.experts}, {"active", n.active}};
      if (n.op == Op::attention)
        node["attention"] = {{"heads", n.attn.heads}, {"kv_heads", n.attn.kv_heads}, {"head_dim", n.attn.head_dim},
                             {"window", n.attn.window}, {"causal", n.attn.causal}, {"cross", n.attn.cross}};
      nodes.push_back(node);
      json folded = node;
      folded["name"] = leaf(b.name, n.name);
      bnodes.push_back(folded);
    }
    const std::string sig = signature(b);
    if (!blocks.empty() && sig == last_sig) {
      json& prev = blocks.back();
      prev["repeat"] = prev["repeat"].get<int64_t>() + 1;
      prev["last"] = b.name;
      continue;
    }
    last_sig = sig;
    int64_t params = 0;
    for (const auto& n : b.nodes) params += n.params;
    json block = {{"name", b.name}, {"first", b.name}, {"last", b.name}, {"kind", b.kind}, {"repeat", 1},
                  {"params", params}, {"nodes", bnodes}, {"domain", domain_name(b.domain)}};
    if (vision) block["tokens_per_image"] = b.tokens_per_image;
    blocks.push_back(block);
  }
  return {{"batch", batch}, {"seq", seq}, {"images", setup.images}, {"node_count", nodes.size()}, {"nodes", nodes},
          {"blocks", blocks}};
}

json report_json(const ReportInput& in) {
  const Model& m = in.model;
  const Plan& p = in.plan;
  json r;
  r["ok"] = true;
  r["schema"] = kReportSchema;

  const Dims& d = m.dims;
  r["model"] = {{"model_type", m.model_type}, {"family", m.family}, {"approximate", m.approximate},
                {"notes", m.notes},
                {"dims", {{"hidden", d.hidden}, {"layers", d.layers}, {"heads", d.heads}, {"kv_heads", d.kv_heads},
                          {"head_dim", d.head_dim}, {"intermediate", d.intermediate}, {"vocab", d.vocab},
                          {"max_positions", d.max_positions}, {"experts", d.experts},
                          {"experts_per_token", d.experts_per_token}, {"sliding_window", d.sliding_window},
                          {"tied_embeddings", d.tied_embeddings}, {"encoder_decoder", d.encoder_decoder},
                          {"encoder_only", d.encoder_only}}}};

  json tensors = json::array(), buffers = json::array();
  json by_role = json::object();
  for (const auto& t : m.tensors) {
    tensors.push_back({{"name", t.name}, {"shape", t.shape}, {"count", t.count()}, {"tied", !t.tied_to.empty()},
                       {"tied_to", t.tied_to}, {"role", role_name(t.role)}, {"layer", t.layer}});
    if (t.tied_to.empty()) by_role[role_name(t.role)] = by_role.value(role_name(t.role), int64_t(0)) + t.count();
  }
  for (const auto& t : m.buffers)
    buffers.push_back({{"name", t.name}, {"shape", t.shape}, {"count", t.count()}});
  r["params"] = {{"total", m.parameter_count()}, {"by_role", by_role}, {"tensor_count", m.tensors.size()},
                 {"tensors", tensors}, {"buffers", buffers}, {"buffers_total", m.buffer_count()}};

  if (in.checkpoint) {
    const Reconciliation& c = *in.checkpoint;
    json mism = json::array();
    for (const auto& x : c.shape_mismatches) mism.push_back({{"name", x.name}, {"expected", x.expected}, {"found", x.found}});
    r["checkpoint"] = {{"source", c.source}, {"scalars", c.scalars ? json(*c.scalars) : json(nullptr)},
                       {"total_bytes", c.total_bytes ? json(*c.total_bytes) : json(nullptr)},
                       {"params", c.params}, {"buffers", c.buffers}, {"tied_copies", c.tied_copies},
                       {"unexplained", c.unexplained ? json(*c.unexplained) : json(nullptr)},
                       {"missing", c.missing}, {"extra", c.extra}, {"shape_mismatches", mism}, {"dtypes", c.dtypes}};
  } else {
    r["checkpoint"] = nullptr;
  }

  r["graph"] = graph_json(m, p.options.batch, p.options.mode == Mode::serve ? p.serve_seq : p.seq, p.options);
  r["plan"] = memory_json(p.requested);
  r["plan"]["precision"] = precision_name(p.options.precision);
  r["plan"]["optimizer"] = optimizer_name(p.options.optimizer);
  r["plan"]["attention"] = attention_name(p.options.attention);
  r["plan"]["grad_ckpt"] = p.options.grad_ckpt;
  r["plan"]["lora_rank"] = p.options.lora_rank;
  r["plan"]["lora_dropout"] = p.options.lora_dropout;
  r["plan"]["grad_accum"] = p.options.grad_accum;
  r["plan"]["optimizer_impl"] = optimizer_impl_name(p.options.optimizer_impl);
  r["plan"]["qlora_quant"] = quant_name(p.options.qlora_quant);
  r["plan"]["borderline_factor"] = p.borderline_factor;
  r["plan"]["images"] = p.cost.images;
  json modes = json::object();
  for (Mode mode : all_modes) modes[mode_name(mode)] = memory_json(p.modes[int(mode)]);
  r["modes"] = modes;

  json cards = json::array();
  for (const auto& row : p.cards) {
    json mb = json::object(), bl = json::object(), sp = json::object(), safe = json::object();
    for (Mode mode : all_modes) {
      const int i = int(mode);
      mb[mode_name(mode)] = row.max_batch[i];
      safe[mode_name(mode)] = row.safe_batch[i];
      bl[mode_name(mode)] = row.borderline[i];
      sp[mode_name(mode)] = row.split[i] ? split_json(*row.split[i]) : json(nullptr);
    }
    auto price = row.card->price(p.options);
    cards.push_back({{"id", row.card->id}, {"name", row.card->name}, {"capacity_bytes", row.card->capacity_bytes},
                     {"driver_mib", row.card->driver_mib}, {"max_batch", mb}, {"safe_batch", safe}, {"borderline", bl}, {"split", sp},
                     {"usd_per_gpu_hr", price ? json(*price) : json(nullptr)}});
  }
  r["cards"] = cards;

  // Memory against batch per mode (core/plan/curve.hpp): the page's batch-vs-memory chart.
  json curves = json::object();
  for (const auto& c : memory_curves(p)) {
    json points = json::array();
    for (const auto& pt : c.points)
      points.push_back({{"batch", pt.batch}, {"peak_bytes", pt.peak_bytes}, {"reserved_bytes", pt.reserved_bytes}});
    curves[mode_name(c.mode)] = {{"seq", c.seq}, {"points", points}};
  }
  r["curves"] = curves;

  const Cost& c = p.cost;
  json rows = json::array();
  for (const auto& row : c.rows) rows.push_back(cost_row_json(row));
  r["cost"] = {{"mode", mode_name(p.options.mode == Mode::serve ? Mode::full : p.options.mode)},
               {"epochs", p.options.epochs}, {"samples", p.options.samples}, {"batch", p.options.cost_batch},
               {"seq", p.seq}, {"tokens", c.tokens}, {"mfu", c.mfu},
               {"flops_per_token_forward", c.flops_per_token_forward}, {"flops_per_token_step", c.flops_per_token_step},
               {"images", c.images}, {"flops_per_image_forward", c.flops_per_image_forward},
               {"total_flops", c.total_flops}, {"rows", rows},
               {"priced", c.priced ? cost_row_json(*c.priced) : json(nullptr)},
               {"cheapest", c.cheapest ? cost_row_json(*c.cheapest) : json(nullptr)}};

  json checks = json::array();
  for (const auto& f : in.checks)
    checks.push_back({{"id", f.id}, {"severity", f.severity}, {"message", f.message}, {"fix", f.fix}});
  r["checks"] = checks;

  json assumptions = json::array();
  for (const auto& a : p.assumptions)
    assumptions.push_back({{"id", a.id}, {"text", a.text}, {"option", a.option}, {"value", a.value}, {"source", a.source}});
  r["assumptions"] = assumptions;
  return r;
}

}  // namespace cardfit

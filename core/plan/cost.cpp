// Training FLOPs per token: forward + backward (2× forward for inputs and weights in a full
// fine-tune; LoRA skips the frozen weights' gradients, about 1×); checkpointing adds a forward.
#include "cost.hpp"

#include "graph_costs.hpp"

namespace cardfit {

double forward_flops_per_token(const Model& m, int64_t seq, Precision precision) {
  StepShape s{1, seq, precision, Attention::sdpa, false};
  double f = 0;
  for (const auto& b : m.blocks)
    for (const auto& n : b.nodes) f += forward_flops(n, s);
  return f / double(seq);
}

namespace {
double step_multiplier(Mode mode, bool grad_ckpt) {
  const double base = mode == Mode::full ? 3.0 : 2.0;  // fwd + bwd(inputs) [+ bwd(weights)]
  return base + (grad_ckpt ? 1.0 : 0.0);
}

CostRow row_for(const Plan& plan, const CardRow& r, Mode mode, double flops, double mfu) {
  CostRow row;
  row.card = r.card;
  row.mode = mode;
  const int mi = int(mode);
  row.fits = r.max_batch[mi] > 0 || r.split[mi].has_value();
  row.cards = r.max_batch[mi] > 0 ? std::max<int64_t>(1, plan.options.gpus) : (r.split[mi] ? r.split[mi]->cards : 0);
  const double tflops = r.card->dense_tflops(plan.options.precision);
  if (tflops <= 0) row.fits = false;  // no published throughput: cannot be priced
  if (!row.fits) return row;
  row.hours = flops / (double(row.cards) * tflops * 1e12 * mfu) / 3600.0;
  if (auto price = r.card->price(plan.options)) row.usd = row.hours * double(row.cards) * *price;
  else row.fits = false;  // unpriced: cannot be the cheapest
  return row;
}
}  // namespace

void cost_plan(const Model& m, const Catalog& cat, Plan& plan) {
  Cost& c = plan.cost;
  const Options& o = plan.options;
  const Mode mode = o.mode == Mode::serve ? Mode::full : o.mode;
  c.mfu = o.mfu.value_or(cat.mfu);
  c.flops_per_token_forward = forward_flops_per_token(m, plan.seq, o.precision);
  c.flops_per_token_step = c.flops_per_token_forward * step_multiplier(mode, o.grad_ckpt);
  c.tokens = double(o.epochs) * double(o.samples) * double(plan.seq);
  c.total_flops = c.flops_per_token_step * c.tokens;
  const std::string priced = o.card.empty() ? cat.priced_card : o.card;
  for (const auto& r : plan.cards) {
    CostRow row = row_for(plan, r, mode, c.total_flops, c.mfu);
    c.rows.push_back(row);
    if (r.card->id == priced) c.priced = row;
    for (Mode alt : {Mode::full, Mode::lora, Mode::qlora}) {
      const double flops = c.flops_per_token_forward * step_multiplier(alt, o.grad_ckpt) * c.tokens;
      CostRow candidate = row_for(plan, r, alt, flops, c.mfu);
      if (candidate.fits && (!c.cheapest || candidate.usd < c.cheapest->usd)) c.cheapest = candidate;
    }
  }
}

}  // namespace cardfit

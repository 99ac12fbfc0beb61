// Training FLOPs from the graph, and time and dollars per card: hours = FLOPs × card-hours factor
// / (cards × dense peak × MFU); dollars = hours × cards × price. A card without a published dense
// peak or price is not priced (and never the cheapest), whether or not it fits.
#include "cost.hpp"

#include "graph_costs.hpp"

namespace cardfit {

namespace {
// FLOPs per sample of each op, split by how a training step treats them.
struct Flops {
  double linear_frozen = 0;    // frozen base linears/heads (LoRA): forward + input gradient
  double linear_trained = 0;   // trainable linears: forward + input + weight gradients
  double attention = 0;        // score and value products: forward + 2× backward
  double adapters = 0;         // LoRA A and B: forward + input + weight gradients
  double recompute = 0;        // forward of checkpointed blocks (recomputed in backward)
  double untracked = 0;        // blocks autograd does not record (a frozen vision tower): forward only
  double forward = 0;
  double vision = 0;           // of which: forward of the vision blocks (all images of a sample)
  double tokens = 0;           // tokens per sample (encoder side)
};

// Per sample: every node's FLOPs per token × the tokens it runs (a vision node: images × its tokens
// per image, attending within one image).
Flops count(const Model& m, const Options& opt, Mode mode, int64_t seq, int64_t images) {
  Flops f;
  const int64_t dseq = opt.decoder_seq > 0 ? opt.decoder_seq : seq;
  const bool full = mode == Mode::full;
  const std::vector<char> recorded = recorded_blocks(m, opt, mode, images);
  f.tokens = double(seq);
  for (size_t bi = 0; bi < m.blocks.size(); ++bi) {
    const Block& b = m.blocks[bi];
    double block_forward = 0;
    for (size_t ni = 0; ni < b.nodes.size(); ++ni) {
      const Node& n = b.nodes[ni];
      const double t = double(node_tokens(m, bi, ni, seq, dseq, images));
      const double fl = forward_flops_per_token(n, attention_context(m, bi, n, seq, dseq)) * t;
      double a = 0;
      if (!full && is_lora_target(n, opt)) {
        // lora.Embedding looks A's rows up (no FLOPs) and multiplies them by B.
        const LoraDims ld = lora_dims(n);
        const bool lookup = n.op == Op::embedding || n.op == Op::position_embedding;
        a = 2.0 * double(opt.lora_rank) * double(lookup ? ld.out : ld.in + ld.out) * double(n.active) * t;
      }
      block_forward += fl + a;
      if (!recorded[bi] || n.no_grad) {  // no backward: forward only
        f.untracked += fl + a;
      } else if (n.op == Op::attention) {
        f.attention += fl;
      } else if (fl > 0) {
        if (full || is_saved_module(n, opt)) f.linear_trained += fl;
        else f.linear_frozen += fl;
      }
      if (recorded[bi]) f.adapters += a;
    }
    f.forward += block_forward;
    if (b.domain == Domain::vision) f.vision += block_forward;
    if (grad_ckpt_of(opt, mode) && checkpointable(b) && recorded[bi]) f.recompute += block_forward;
  }
  return f;
}
}  // namespace

double forward_flops_per_token(const Model& m, int64_t seq, int64_t decoder_seq, int64_t images) {
  Options o;
  o.decoder_seq = decoder_seq;
  const Flops f = count(m, o, Mode::full, seq, images >= 0 ? images : images_per_sample(m, o));
  return f.forward / f.tokens;
}

double vision_flops_per_image(const Model& m) {
  if (!has_vision(m)) return 0;  // no vision block adds to Flops::vision
  Options o;
  return count(m, o, Mode::full, 1, 1).vision;
}

namespace {
double step_per_token(const Flops& f) {
  const double step = 3.0 * f.linear_trained + 2.0 * f.linear_frozen + 3.0 * f.attention + 3.0 * f.adapters +
                      f.recompute + f.untracked;
  return step / f.tokens;
}
}  // namespace

double step_flops_per_token(const Model& m, const Options& opt, Mode mode, int64_t seq) {
  return step_per_token(count(m, opt, mode, seq, images_per_sample(m, opt)));
}

namespace {
CostRow row_for(const Plan& plan, const CardRow& r, Mode mode, double flops, double flops_per_token, double mfu) {
  CostRow row;
  row.card = r.card;
  row.mode = mode;
  const int mi = int(mode);
  row.fits = r.max_batch[mi] > 0 || r.split[mi] != nullptr;
  if (!row.fits) {
    row.cards = 0;
    return row;
  }
  double factor = 1;
  if (r.max_batch[mi] > 0) {
    row.cards = std::max<int64_t>(1, plan.options.gpus);
    row.strategy = "single";
  } else {
    row.cards = r.split[mi]->cards;
    row.strategy = r.split[mi]->strategy;
    factor = r.split[mi]->card_hours;
  }
  const double tflops = r.card->dense_tflops(plan.options.precision);
  const auto price = r.card->price(plan.options);
  if (tflops <= 0) return row;  // no published throughput: not priced
  row.hours = flops * factor / (double(row.cards) * tflops * 1e12 * mfu) / 3600.0;
  if (flops_per_token > 0) {
    const Options& o = plan.options;
    row.tokens_per_s = double(row.cards) * tflops * 1e12 * mfu / (flops_per_token * factor);
    row.step_seconds = double(plan.seq) * double(o.batch) * double(o.grad_accum) * double(row.cards) / row.tokens_per_s;
  }
  if (!price) return row;        // no price: hours only
  row.usd = row.hours * double(row.cards) * *price;
  row.priced = true;
  return row;
}
}  // namespace

void cost_plan(const Model& m, const Catalog& cat, Plan& plan) {
  Cost& c = plan.cost;
  const Options& o = plan.options;
  const Mode mode = o.mode == Mode::serve ? Mode::full : o.mode;
  c.mfu = o.mfu.value_or(cat.mfu);
  c.images = images_per_sample(m, o);
  c.flops_per_image_forward = vision_flops_per_image(m);
  c.tokens = double(o.epochs) * double(o.samples) * double(plan.seq);
  // One walk of the graph per training mode. The full mode's forward is forward_flops_per_token's:
  // in full mode count() reads no option but decoder_seq (no adapters; the recorded blocks and
  // saved modules change only how the backward counts).
  double mode_flops[3], mode_flops_per_token[3];
  for (Mode alt : {Mode::full, Mode::lora, Mode::qlora}) {
    auto& counted = plan.memory.mode(size_t(int(alt))).step_flops;  // kept with the mode's memory model
    if (!counted) {
      const Flops f = count(m, o, alt, plan.seq, c.images);
      counted = ModeMemory::StepFlops{step_per_token(f), f.forward / f.tokens};
    }
    if (alt == Mode::full) c.flops_per_token_forward = counted->forward_per_token;
    mode_flops_per_token[int(alt)] = counted->step_per_token;
    mode_flops[int(alt)] = mode_flops_per_token[int(alt)] * c.tokens;
  }
  c.flops_per_token_step = mode_flops_per_token[int(mode)];
  c.total_flops = c.flops_per_token_step * c.tokens;
  const std::string priced = o.card.empty() ? cat.priced_card : o.card;
  for (const auto& r : plan.cards) {
    CostRow row = row_for(plan, r, mode, c.total_flops, c.flops_per_token_step, c.mfu);
    c.rows.push_back(row);
    if (r.card->id == priced) c.priced = row;
    for (Mode alt : {Mode::full, Mode::lora, Mode::qlora}) {
      CostRow candidate = row_for(plan, r, alt, mode_flops[int(alt)], mode_flops_per_token[int(alt)], c.mfu);
      if (candidate.fits && candidate.priced && (!c.cheapest || candidate.usd < c.cheapest->usd)) c.cheapest = candidate;
    }
  }
}

}  // namespace cardfit

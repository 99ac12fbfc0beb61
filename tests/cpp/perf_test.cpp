// The fast paths of the planner against the plain computations they replace (issue 9 "Speed"):
// the step's events from running sums against a block-by-block re-add, the closed-form largest
// batch against the monotone search, the pipeline cut against every cut of small profiles, and
// the structural signature behind the per-block memo.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <random>

#include "plan/cards.hpp"
#include "plan/graph_costs.hpp"
#include "plan/largest_holding.hpp"
#include "plan/memory.hpp"
#include "plan/split.hpp"
#include "plan/step_events.hpp"
#include "test_util.hpp"

namespace perf_test {

using namespace cardfit;
using M = MemoryModel;

namespace {
// The event loops as they were (each event re-adds every earlier block): the reference.
std::vector<M::Event> naive_events(const TrainingStepBytes& st) {
  const size_t nb = st.blocks.size();
  std::vector<M::Event> out;
  auto kept = [&](size_t j, M::Event& e, bool in_forward) {
    const BlockStepBytes& b = st.blocks[j];
    if (b.ckpt) {
      e.per_sample[M::kCkptC] += b.input;
      if (in_forward) e.fixed[M::kCastC] += b.casts;
    } else {
      e.per_sample[M::kActsC] += b.saved;
      e.fixed[M::kCastC] += b.casts + b.fixed;
    }
  };
  auto push = [&](M::Event e) {
    finish_event(e);
    out.push_back(e);
  };
  for (size_t i = 0; i < nb; ++i) {
    if (!st.blocks[i].used) continue;
    M::Event e = st.base;
    e.phase = 0;
    e.block = int(i);
    for (size_t j = 0; j <= i; ++j) kept(j, e, true);
    e.per_sample[M::kWorkC] += st.blocks[i].forward;
    e.fixed[M::kCastC] += st.blocks[i].dequant_forward;
    push(e);
  }
  {
    M::Event e = st.base;
    e.what = "loss";
    for (size_t j = 0; j < nb; ++j) kept(j, e, true);
    e.per_sample[M::kLogitsC] = st.logits_forward;
    push(e);
  }
  {
    M::Event e = st.base;
    e.phase = 1;
    e.what = "backward of the loss (log_softmax)";
    for (size_t j = 0; j < nb; ++j) kept(j, e, false);
    e.per_sample[M::kLogitsC] = st.logits_backward;
    e.fixed[M::kDdpC] += st.ds_buckets;
    push(e);
  }
  int64_t grads_after = 0;
  for (size_t i = nb; i-- > 0;) {
    const BlockStepBytes& b = st.blocks[i];
    grads_after += b.grads;
    if (!b.recorded) continue;
    M::Event e = st.base;
    e.phase = 1;
    e.block = int(i);
    for (size_t j = 0; j < i; ++j) kept(j, e, false);
    if (b.ckpt) {
      e.per_sample[M::kCkptC] += b.input;
      e.per_sample[M::kRecomputeC] = b.saved;
      e.fixed[M::kCastC] += b.casts + b.fixed + std::max(b.dequant_forward, b.dequant_backward);
    } else {
      kept(i, e, false);
      e.fixed[M::kCastC] += b.dequant_backward;
    }
    e.per_sample[M::kWorkC] = b.backward;
    if (int(i) == st.head_block) e.per_sample[M::kLogitsC] = st.logits_grad;
    if (!st.accum) e.fixed[M::kGradsC] = grads_after;
    e.fixed[M::kDdpC] += st.ds_buckets;
    push(e);
  }
  {
    M::Event e = st.base;
    e.phase = 2;
    e.what = "optimizer step";
    e.fixed[M::kGradsC] = st.total_grads;
    e.fixed[M::kDdpC] += st.ds_buckets;
    e.fixed[M::kOptTempC] = st.optimizer_temporaries;
    push(e);
  }
  return out;
}

bool same_event(const M::Event& a, const M::Event& b) {
  const bool what = (a.what == nullptr) == (b.what == nullptr) && (!a.what || std::strcmp(a.what, b.what) == 0);
  return what && a.phase == b.phase && a.block == b.block && a.fixed == b.fixed && a.per_sample == b.per_sample &&
         a.fixed_total == b.fixed_total && a.per_sample_total == b.per_sample_total;
}

std::vector<std::filesystem::path> golden_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(CARDFIT_GOLDEN_DIR)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}
}  // namespace

TEST_CASE("the step's events from running sums equal the block-by-block re-add, on random steps") {
  std::mt19937_64 rng(20261201);
  auto bytes = [&](int64_t hi) { return int64_t(rng() % uint64_t(hi + 1)); };
  for (int trial = 0; trial < 300; ++trial) {
    TrainingStepBytes st;
    const size_t nb = size_t(rng() % 40);
    st.blocks.resize(nb);
    for (auto& b : st.blocks) {
      b.used = rng() % 8 != 0;
      b.recorded = rng() % 6 != 0;
      b.ckpt = rng() % 3 == 0;
      b.input = bytes(1 << 20);
      b.saved = bytes(1 << 24);
      b.fixed = rng() % 4 == 0 ? bytes(1 << 22) : 0;
      b.casts = rng() % 3 == 0 ? bytes(1 << 26) : 0;
      b.forward = bytes(1 << 24);
      b.backward = bytes(1 << 25);
      b.dequant_forward = rng() % 4 == 0 ? bytes(1 << 20) : 0;
      b.dequant_backward = rng() % 4 == 0 ? bytes(1 << 20) : 0;
      b.grads = bytes(1 << 30);
      st.total_grads += b.grads;
    }
    for (int c = 0; c < M::kComponents; ++c)
      if (rng() % 3 == 0) st.base.fixed[size_t(c)] = bytes(int64_t(1) << 34);
    st.head_block = nb ? int(rng() % nb) : -1;
    st.logits_forward = bytes(1 << 28);
    st.logits_backward = bytes(1 << 28);
    st.logits_grad = bytes(1 << 27);
    st.accum = rng() % 2 == 0;
    st.ds_buckets = rng() % 2 ? bytes(1 << 30) : 0;
    st.optimizer_temporaries = bytes(1 << 30);
    const auto fast = training_events(st), slow = naive_events(st);
    INFO("trial " << trial << ", " << nb << " blocks");
    REQUIRE(fast.size() == slow.size());
    for (size_t i = 0; i < fast.size(); ++i) {
      INFO("event " << i);
      CHECK(same_event(fast[i], slow[i]));
    }
  }
}

TEST_CASE("largest_holding finds what a bisection finds, from any guess") {
  // Threshold predicates over ranges of every size, with guesses on, near, far from and outside
  // the answer: the search from a guess must never differ from the plain bisection.
  std::mt19937_64 rng(20261205);
  int far = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const int64_t lo = int64_t(rng() % 1000) - 500;
    const int64_t hi = lo + int64_t(rng() % (trial % 2 ? 40 : (int64_t(1) << 40)));
    const int64_t answer = lo + int64_t(rng() % uint64_t(hi - lo + 1));
    const int64_t offsets[] = {0, 1, -1, 3, -4, 5, -6, int64_t(rng() % 1000), -int64_t(rng() % 1000)};
    const int64_t guess = trial % 7 == 0 ? int64_t(rng()) : answer + offsets[size_t(trial) % 9];
    int64_t calls = 0;
    const int64_t got = largest_holding(lo, hi, guess, [&](int64_t x) {
      ++calls;
      REQUIRE(x >= lo);
      REQUIRE(x <= hi);
      return x <= answer;
    });
    INFO("trial " << trial << " [" << lo << ", " << hi << "] answer " << answer << " guess " << guess);
    REQUIRE(got == answer);
    if (std::abs(guess - answer) > 5) ++far;
    if (guess >= lo && guess <= hi && std::abs(guess - answer) <= 4) CHECK(calls <= 6);  // near: no bisection
  }
  CHECK(far > 1000);  // the bisection fallback ran too
}

TEST_CASE("the largest peak a card holds is the bisection's, for every catalog card and overheads") {
  const Catalog cat = load_catalog();
  const Model m = trace_golden("gpt2.json");
  for (const Overheads& ov : {cat.overheads, Overheads{0, 0}, Overheads{int64_t(1) << 30, 0.5},
                              Overheads{12345, 0.999}, Overheads{int64_t(1) << 40, 0.05}}) {
    const MemoryModel mm(m, Options{}, Mode::full, 512, ov);
    for (const auto& card : cat.cards)
      for (int64_t cap : {card.capacity_bytes, card.capacity_bytes - 1, int64_t(0), int64_t(1) << 50}) {
        int64_t want = -1;
        if (mm.reserved_for(0) <= cap) {
          int64_t lo = 0, hi = cap;
          while (lo < hi) {
            const int64_t mid = lo + (hi - lo + 1) / 2;
            if (mm.reserved_for(mid) <= cap) lo = mid;
            else hi = mid - 1;
          }
          want = lo;
        }
        INFO(card.id << " capacity " << cap << " context " << ov.cuda_context_bytes << " reserve "
                     << ov.allocator_reserve_fraction);
        CHECK(mm.largest_peak(cap) == want);
      }
  }
}

TEST_CASE("the closed-form largest and safe batch equal the monotone search, every golden model, mode and card") {
  const Catalog cat = load_catalog();
  std::vector<int64_t> caps;
  for (const auto& c : cat.cards) caps.push_back(c.capacity_bytes);
  for (int64_t extra : {int64_t(1) << 30, int64_t(3) << 30, int64_t(7) << 29, int64_t(1) << 40, int64_t(1) << 47})
    caps.push_back(extra);
  const std::vector<Overheads> overheads = {cat.overheads, {0, 0}, {int64_t(1) << 30, 0.5}};
  int compared = 0;
  for (const auto& f : golden_files()) {
    const Model m = trace_golden(f.filename().string());
    for (Mode mode : all_modes)
      for (size_t oi = 0; oi < overheads.size(); ++oi) {
        Options o;
        o.grad_ckpt = oi == 1;
        const MemoryModel mm(m, o, mode, mode == Mode::serve ? 4096 : 1024, overheads[oi]);
        for (int64_t cap : caps)
          for (double factor : {1.193, 1.0, 4.0}) {
            INFO(f.filename().string() << " " << mode_name(mode) << " overheads " << oi << " capacity " << cap
                                       << " factor " << factor);
            const int64_t want = largest_fitting([&](int64_t b) { return mm.reserved(b) <= cap; }, 1 << 20);
            const int64_t got = mm.reserved(1) <= cap ? mm.largest_batch(mm.largest_peak(cap), 1 << 20) : 0;
            REQUIRE(got == want);
            if (want == 0) continue;
            const int64_t safe_want = largest_fitting(
                [&](int64_t b) { return mm.reserved_for(int64_t(std::ceil(double(mm.peak(b)) * factor))) <= cap; }, want);
            // The planner's safe peak: the largest p whose p × factor, rounded up, still fits.
            int64_t lo = -1, hi = cap;
            while (hi - lo > 1) {
              const int64_t mid = lo + (hi - lo) / 2;
              (mm.reserved_for(int64_t(std::ceil(double(mid) * factor))) <= cap ? lo : hi) = mid;
            }
            if (mm.reserved_for(int64_t(std::ceil(double(hi) * factor))) <= cap) lo = hi;
            CHECK(mm.largest_batch(lo, want) == safe_want);
            ++compared;
          }
      }
  }
  CHECK(compared > 1000);  // most rows fit somewhere: the comparison is not vacuous
}

TEST_CASE("the planner's card table equals the monotone search (default options, every golden model)") {
  const Catalog cat = load_catalog();
  for (const auto& f : golden_files()) {
    const Model m = trace_golden(f.filename().string());
    const Plan p = make_plan(m, Options{}, cat);
    for (const auto& row : p.cards)
      for (Mode mode : all_modes) {
        const MemoryModel& mm = p.memory[size_t(mode)];
        const int64_t cap = row.card->capacity_bytes;
        INFO(f.filename().string() << " " << row.card->id << " " << mode_name(mode));
        const int64_t want = largest_fitting([&](int64_t b) { return mm.reserved(b) <= cap; }, 1 << 20);
        CHECK(row.max_batch[int(mode)] == want);
        if (want > 0)
          CHECK(row.safe_batch[int(mode)] ==
                largest_fitting([&](int64_t b) {
                  return mm.reserved_for(int64_t(std::ceil(double(mm.peak(b)) * p.borderline_factor))) <= cap;
                }, want));
      }
  }
}

namespace {
// Every cut of blocks into at most `stages` stages, each run as the schedule of its own stage count
// s (stage k holding min(s − k, micro) micro-batches): the smallest fullest-stage peak, or -1 if
// none fits `limit`.
int64_t best_cut_brute_force(const StageProfile& pr, int64_t stages, int64_t micro, int64_t limit) {
  const size_t n = pr.size();
  int64_t best = -1;
  // Each of the n − 1 gaps between blocks is a cut or not.
  for (uint64_t mask = 0; mask < (uint64_t(1) << (n - 1)); ++mask) {
    const int64_t s = __builtin_popcountll(mask) + 1;
    if (s > stages) continue;
    int64_t fullest = 0;
    size_t first = 0;
    int64_t k = 0;
    for (size_t i = 1; i <= n; ++i) {
      if (i < n && !(mask >> (i - 1) & 1)) continue;
      const int64_t mult = std::min(s - k, std::max<int64_t>(1, micro));
      fullest = std::max(fullest, int64_t(pr.peak(first, i, mult)));
      first = i;
      ++k;
    }
    if (fullest <= limit && (best < 0 || fullest < best)) best = fullest;
  }
  return best;
}

std::vector<BlockMemory> random_blocks(std::mt19937_64& rng, size_t n) {
  std::vector<BlockMemory> blocks(n);
  for (auto& b : blocks) {
    b.state = int64_t(rng() % (uint64_t(1) << 33));
    b.acts = int64_t(rng() % (uint64_t(1) << 31));
    b.work = int64_t(rng() % (uint64_t(1) << 31));
    b.work_fixed = rng() % 3 == 0 ? int64_t(rng() % (uint64_t(1) << 28)) : 0;
  }
  return blocks;
}
}  // namespace

TEST_CASE("the fewest ranks of each sharding strategy equal a scan from two ranks up, every golden model") {
  // SplitSolver::solve searches them from the bound's inverse (fewest_ranks_guess): the answer must
  // be the first n >= 2 whose per-rank peak fits, as a plain scan finds it.
  const Catalog cat = load_catalog();
  int compared = 0;
  for (const auto& f : golden_files()) {
    const Model m = trace_golden(f.filename().string());
    for (Mode mode : all_modes) {
      const MemoryModel mm(m, Options{}, mode, mode == Mode::serve ? 4096 : 1024, cat.overheads);
      SplitSolver solver(mm);
      for (int64_t cap : {int64_t(8) << 30, int64_t(24) << 30, int64_t(80) << 30}) {
        const auto split = solver.split(cap, 4, 256);
        if (!split) continue;
        for (const auto& option : split->alternatives) {
          if (option.strategy == "pipeline") continue;
          int64_t want = 2;
          while (solver.sharded_reserved(option.strategy, want) > cap) ++want;
          INFO(f.filename().string() << " " << mode_name(mode) << " " << option.strategy << " capacity " << cap);
          CHECK(option.cards == want);
          ++compared;
        }
      }
    }
  }
  CHECK(compared > 100);
}

TEST_CASE("a solver asked card after card answers as a fresh solver asks each card, every golden model") {
  // SplitSolver keeps each stage count's balanced cut, and the limits at which none fits, across
  // the capacities it is asked (largest first, then smallest, then the rest): each answer must be
  // what a solver that never saw another capacity gives.
  const Catalog cat = load_catalog();
  std::vector<int64_t> capacities;
  for (int64_t gib : {80, 6, 48, 12, 24, 16, 141, 8, 32, 10}) capacities.push_back(gib << 30);
  int compared = 0, pipelines = 0;
  for (const auto& f : golden_files()) {
    const Model m = trace_golden(f.filename().string());
    for (Mode mode : all_modes) {
      const MemoryModel mm(m, Options{}, mode, mode == Mode::serve ? 4096 : 1024, cat.overheads);
      SplitSolver kept(mm);
      for (int64_t cap : capacities) {
        const auto a = kept.split(cap, 4, 256);
        const auto b = SplitSolver(mm).split(cap, 4, 256);
        INFO(f.filename().string() << " " << mode_name(mode) << " capacity " << cap);
        REQUIRE(bool(a) == bool(b));
        if (!a) continue;
        REQUIRE(a->alternatives.size() == b->alternatives.size());
        for (size_t i = 0; i < a->alternatives.size(); ++i) {
          const auto &x = a->alternatives[i], &y = b->alternatives[i];
          CHECK(x.strategy == y.strategy);
          CHECK(x.cards == y.cards);
          CHECK(x.stage_layers == y.stage_layers);
          CHECK(x.per_card_bytes == y.per_card_bytes);
          pipelines += x.strategy == "pipeline";
        }
        ++compared;
      }
    }
  }
  CHECK(compared > 300);
  CHECK(pipelines > 100);
}

TEST_CASE("the pipeline cut is the optimum of every cut of small profiles, to the byte") {
  std::mt19937_64 rng(9);
  int feasible = 0, refused = 0, fewer_stages = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const size_t n = 1 + size_t(rng() % 9);
    const std::vector<BlockMemory> blocks = random_blocks(rng, n);
    const StageProfile pr(blocks);
    for (int64_t stages = 1; stages <= int64_t(n) + 1; ++stages) {
      const int64_t micro = 1 + int64_t(rng() % 4);
      // Limits from below the lightest cut to above every cut: both answers occur.
      const int64_t limit = int64_t(rng() % (uint64_t(1) << 36));
      INFO("trial " << trial << " blocks " << n << " stages " << stages << " micro " << micro << " limit " << limit);
      int64_t fullest = -1;
      const auto cut = pipeline_cut(pr, stages, micro, limit, &fullest);
      const int64_t want = best_cut_brute_force(pr, stages, micro, limit);
      if (want < 0) {
        CHECK(cut.empty());
        ++refused;
        continue;
      }
      REQUIRE(!cut.empty());
      ++feasible;
      CHECK(fullest == want);
      // The cut itself: it covers the blocks in at most `stages` non-empty stages and its fullest
      // stage, run by its own stage count, is the reported one.
      const int64_t s = int64_t(cut.size());
      int64_t covered = 0, peak = 0;
      for (int64_t k = 0; k < s; ++k) {
        CHECK(cut[size_t(k)] > 0);
        peak = std::max(peak, int64_t(pr.peak(size_t(covered), size_t(covered + cut[size_t(k)]), std::min(s - k, micro))));
        covered += cut[size_t(k)];
      }
      CHECK(covered == int64_t(n));
      CHECK(s <= stages);
      CHECK(peak == fullest);
      // The cut does not depend on the limit it was asked under (SplitSolver keeps one per stage
      // count for every card): asked with no limit at all, the same stages.
      int64_t unlimited = -1;
      CHECK(pipeline_cut(pr, stages, micro, INT64_MAX, &unlimited) == cut);
      CHECK(unlimited == fullest);
      fewer_stages += s < stages && s < int64_t(n);
    }
  }
  // Both outcomes and the cuts that leave a stage empty (a block too heavy for the front stage's
  // micro-batches) are exercised, not only the easy case.
  CHECK(feasible > 200);
  CHECK(refused > 50);
  CHECK(fewer_stages > 0);
}

TEST_CASE("the structural signature ignores names, layer indices and absolute value ids, and sees every other field") {
  const Model m = trace_golden("meta-llama-3-8b.json");
  REQUIRE(m.blocks.size() > 4);
  const Block& one = m.blocks[1];
  const Block& two = m.blocks[2];
  CHECK(one.name != two.name);
  CHECK(one.input != two.input);
  CHECK(structural_signature(one) == structural_signature(two));
  Block renamed = one;
  renamed.name = "x";
  for (auto& n : renamed.nodes) n.name = n.detail = "y";
  CHECK(structural_signature(renamed) == structural_signature(one));
  CHECK(structural_signature(one) != structural_signature(m.blocks.front()));
  // Each field, changed alone, changes the key.
  std::vector<std::function<void(Block&)>> edits = {
      [](Block& b) { b.kind_id = BlockKind::other; },
      [](Block& b) { b.layer = -1; },
      [](Block& b) { b.sequence = Sequence::target; },
      [](Block& b) { b.domain = Domain::vision; },
      [](Block& b) { b.tokens_per_image += 1; },
      [](Block& b) { b.width += 1; },
      [](Block& b) { b.nodes.pop_back(); },
      [](Block& b) { b.nodes[1].op = Op::other; },
      [](Block& b) { b.nodes[2].inputs = {b.input}; },   // an edge moved
      [](Block& b) { b.nodes[1].output = kNoValue; },
      [](Block& b) { b.nodes[1].in += 1; },
      [](Block& b) { b.nodes[1].out += 1; },
      [](Block& b) { b.nodes[1].params += 1; },
      [](Block& b) { b.nodes[1].experts += 1; },
      [](Block& b) { b.nodes[1].active += 1; },
      [](Block& b) { b.nodes[1].lora = !b.nodes[1].lora; },
      [](Block& b) { b.nodes[1].tokens_per_image += 1; },
      [](Block& b) { b.nodes[0].norm = NormKind::layernorm; },
      [](Block& b) { b.nodes[0].qk_norm = QkNorm::whole; },
      [](Block& b) { b.nodes[1].linear = LinearKind::parameter; },
      [](Block& b) { b.nodes[1].act = ActKind::quick_gelu; },
      [](Block& b) { b.nodes[1].vocab_head = true; },
      [](Block& b) { b.nodes[1].tied_to = {0, 0}; },
      [](Block& b) { b.nodes[1].routed_output = true; },
  };

  for (int64_t AttentionGeom::*field : {&AttentionGeom::heads, &AttentionGeom::kv_heads, &AttentionGeom::head_dim,
                            &AttentionGeom::v_head_dim, &AttentionGeom::window, &AttentionGeom::cache_dim,
                            &AttentionGeom::compress_ratio, &AttentionGeom::compressed_dim, &AttentionGeom::chunk})
    edits.push_back([field](Block& b) {
      for (auto& n : b.nodes)
        if (n.op == Op::attention) n.attn.*field += 1;
    });
  for (bool AttentionGeom::*flag : {&AttentionGeom::causal, &AttentionGeom::cross, &AttentionGeom::alibi})
    edits.push_back([flag](Block& b) {
      for (auto& n : b.nodes)
        if (n.op == Op::attention) n.attn.*flag = !(n.attn.*flag);
    });
  for (size_t i = 0; i < edits.size(); ++i) {
    Block b = one;
    edits[i](b);
    INFO("edit " << i);
    CHECK(structural_signature(b) != structural_signature(one));
  }
}

TEST_CASE("blocks with one signature cost the same, in every golden model and mode (what the memo relies on)") {
  for (const auto& f : golden_files()) {
    const Model m = trace_golden(f.filename().string());
    for (Mode mode : all_modes)
      for (bool ckpt : {false, true}) {
        Options o;
        o.grad_ckpt = ckpt;
        const StepSetup s = make_setup(m, o, mode);
        std::map<BlockSignature, size_t> first;
        for (size_t bi = 0; bi < m.blocks.size(); ++bi) {
          BlockSignature key = structural_signature(m.blocks[bi]);
          if (m.blocks[bi].domain == Domain::vision && bi > 0) {
            key.push_back(int(m.blocks[bi - 1].domain));
            key.push_back(m.blocks[bi - 1].tokens_per_image);
          }
          const auto [it, fresh] = first.try_emplace(key, bi);
          if (fresh) continue;
          INFO(f.filename().string() << " " << mode_name(mode) << " " << m.blocks[bi].name << " as "
                                     << m.blocks[it->second].name);
          const BlockCost a = block_cost(m, it->second, s, 1024, 1024), b = block_cost(m, bi, s, 1024, 1024);
          CHECK(a.saved == b.saved);
          CHECK(a.fixed == b.fixed);
          CHECK(a.input == b.input);
          CHECK(a.forward == b.forward);
          CHECK(a.backward == b.backward);
          CHECK(a.dequant_forward == b.dequant_forward);
          CHECK(a.dequant_backward == b.dequant_backward);
          CHECK(a.node_saved == b.node_saved);
        }
      }
  }
}

TEST_CASE("the memo keeps apart blocks that a name-matching option tells apart") {
  const Model m = trace_golden("meta-llama-3-8b.json");
  Options o;
  o.lora_targets = {"model.layers.0.self_attn.q_proj"};  // one layer's q_proj only
  const MemoryModel one(m, o, Mode::lora, 512, {});
  size_t l0 = 0, l1 = 0;
  for (size_t bi = 0; bi < m.blocks.size(); ++bi) {
    if (m.blocks[bi].layer == 0) l0 = bi;
    if (m.blocks[bi].layer == 1) l1 = bi;
  }
  REQUIRE(l1 > l0);
  CHECK(one.blocks()[l0].acts > one.blocks()[l1].acts);  // layer 0 keeps its adapter's activations
  o.lora_targets = {"q_proj"};
  const MemoryModel all(m, o, Mode::lora, 512, {});
  CHECK(all.blocks()[l0].acts == one.blocks()[l0].acts);
  CHECK(all.blocks()[l1].acts == one.blocks()[l0].acts);
}

TEST_CASE("a stage's peak in 64 bits equals the 128-bit sum, up to and past the 64-bit range") {
  std::mt19937_64 rng(20261201);
  for (int trial = 0; trial < 400; ++trial) {
    // Block sizes from a few bytes to 2^59: most profiles stay narrow, some overflow the 64-bit
    // product or sum (then peak() takes the 128-bit path), some pass 2^62 (no 64-bit copies).
    const int shift = int(rng() % 60);
    std::vector<BlockMemory> blocks(1 + rng() % 40);
    for (auto& b : blocks) {
      b.state = int64_t(rng() >> (64 - shift - 1));
      b.acts = int64_t(rng() >> (64 - shift - 1));
      b.work = int64_t(rng() >> (64 - shift - 1));
      b.work_fixed = int64_t(rng() % 1000);
    }
    const StageProfile profile(blocks);
    for (int q = 0; q < 20; ++q) {
      const size_t first = rng() % blocks.size(), last = first + 1 + rng() % (blocks.size() - first);
      const int64_t mult = 1 + int64_t(rng() % 64);
      __int128 state = 0, acts = 0;
      int64_t work = 0;
      for (size_t i = first; i < last; ++i) {
        state += blocks[i].state;
        acts += blocks[i].acts;
        work = std::max(work, blocks[i].work + blocks[i].work_fixed);
      }
      const __int128 want = state + __int128(mult) * acts + work + (int64_t(32) << 20);
      INFO("trial " << trial << " blocks [" << first << ", " << last << ") x" << mult << " shift " << shift);
      CHECK((profile.peak(first, last, mult) == want));
    }
  }
}

TEST_CASE("trace_model's block cost classes group exactly the blocks of one signature, every golden model") {
  for (const auto& f : golden_files()) {
    const Model m = trace_golden(f.filename().string());
    REQUIRE(m.cost_class.size() == m.blocks.size());
    CHECK(m.cost_class == block_cost_classes(m));
    for (size_t bi = 0; bi < m.blocks.size(); ++bi) {
      const size_t c = size_t(m.cost_class[bi]);
      INFO(f.filename().string() << " " << m.blocks[bi].name);
      REQUIRE(c <= bi);
      CHECK(m.cost_class[c] == int32_t(c));  // a class is named by its first block
      const bool same = structural_signature(m.blocks[c]) == structural_signature(m.blocks[bi]);
      CHECK(same);
      for (size_t earlier = 0; earlier < c; ++earlier)  // and no earlier block was its equal
        if (structural_signature(m.blocks[earlier]) == structural_signature(m.blocks[bi]) &&
            m.blocks[bi].domain != Domain::vision)
          FAIL_CHECK("block " << bi << " matches " << earlier << " before its class " << c);
    }
  }
}

TEST_CASE("the fewest stages from the back equal the first stage count whose forward greedy holds every block") {
  std::mt19937_64 rng(7);
  int checked = 0;
  for (int trial = 0; trial < 600; ++trial) {
    std::vector<BlockMemory> blocks(1 + rng() % 30);
    for (auto& b : blocks) {
      b.state = int64_t(rng() % 4000) << 20;
      b.acts = int64_t(rng() % 3000) << 20;
      b.work = int64_t(rng() % 2000) << 20;
    }
    const StageProfile profile(blocks);
    const int64_t micro = 1 + int64_t(rng() % 6);
    const int64_t limit = (int64_t(1) << 25) + (int64_t(rng() % 20000) << 20);
    int64_t first_forward = 0;  // the plain loop: the first p whose greedy holds every block
    for (int64_t p = 1; p <= int64_t(blocks.size()) && first_forward == 0; ++p)
      if (!profile.greedy(p, micro, limit).empty()) first_forward = p;
    INFO("trial " << trial << " blocks " << blocks.size() << " micro " << micro);
    CHECK(profile.fewest_stages(micro, limit) == first_forward);
    checked += first_forward > 0;
  }
  CHECK(checked > 200);  // most profiles are feasible: the equality is not only 0 == 0
}

TEST_CASE("the tensor limits hold every published model twice over and refuse a DeepSeek-V3 stretched past them") {
  // builder.cpp: 160,000 traced entries (a layer's experts are one), 1,000,000 checkpoint tensors.
  size_t entries = 0, tensors = 0;
  for (const auto& f : golden_files()) {
    const Model m = trace_golden(f.filename().string());
    entries = std::max(entries, m.tensors.size());
    tensors = std::max(tensors, expand_copies(m.tensors).size());
  }
  CHECK(entries * 2 <= 160000);
  CHECK(tensors * 2 <= 1000000);
  CHECK(tensors >= 249924);  // Kimi-K3's
  // Layers and experts are each capped (1,024; 2,048): only both at once pass the tensor limit. A
  // DeepSeek-V3 layer past the 3 dense ones lists 3 x 2,048 experts + 3 shared + router weight and
  // bias + 7 attention + 2 norms = 6,158 tensors: 162 x 6,158 + 3 x 12 + 3 = 997,635 at 165 layers,
  // 1,003,793 at 166.
  auto with_layers = [](int64_t layers) {
    nlohmann::json c = golden_file("deepseek-v3.json").at("config");
    c["num_hidden_layers"] = layers;
    c["n_routed_experts"] = 2048;
    return plan(c.dump());
  };
  CHECK(with_layers(165).value("ok", false));
  const nlohmann::json past = with_layers(166);
  REQUIRE_FALSE(past.value("ok", true));
  CHECK(past["error"]["code"] == "config.field_range");
  CHECK(past["error"]["message"].get<std::string>().find("1000000 tensors") != std::string::npos);
}
}  // namespace perf_test

// Pipeline and ZeRO-3 splits over per-block memory.
#include "split.hpp"

#include <algorithm>
#include <cmath>

namespace cardfit {

namespace {
int64_t component(const MemoryPlan& p, const std::string& id) {
  for (const auto& c : p.components)
    if (c.id == id) return c.bytes;
  return 0;
}

// Stages needed to pack `items` contiguously with at most `cap` per stage (-1 if one item is larger).
int64_t stages_needed(const std::vector<int64_t>& items, int64_t cap, std::vector<int64_t>* sizes) {
  int64_t stages = 0, load = 0, count = 0;
  if (sizes) sizes->clear();
  for (int64_t x : items) {
    if (x > cap) return -1;
    if (count > 0 && load + x > cap) {
      if (sizes) sizes->push_back(count);
      ++stages;
      load = 0;
      count = 0;
    }
    load += x;
    ++count;
  }
  if (count > 0) {
    if (sizes) sizes->push_back(count);
    ++stages;
  }
  return stages;
}
}  // namespace

std::optional<Split> split_across_cards(const Model& m, const MemoryPlan& b1, int64_t capacity,
                                        const Overheads& ov, int64_t max_cards) {
  const int64_t usable = int64_t(double(capacity - ov.cuda_context_bytes) / (1 + ov.allocator_reserve_fraction));
  if (usable <= 0) return std::nullopt;
  const int64_t params = std::max<int64_t>(1, m.parameter_count());
  // Bytes per parameter of the model state at the peak, and activations per block.
  const double state = double(b1.peak_bytes - component(b1, "activations") - component(b1, "logits") -
                              component(b1, "allocator_reserve") - component(b1, "cuda_context"));
  const double state_per_param = std::max(0.0, state) / double(params);
  const int64_t acts = component(b1, "activations"), logits = component(b1, "logits");
  int64_t layer_blocks = 0;
  for (const auto& b : m.blocks) layer_blocks += b.layer >= 0 ? 1 : 0;

  std::vector<int64_t> items;
  for (const auto& b : m.blocks) {
    int64_t p = 0;
    for (const auto& n : b.nodes) p += n.params;
    double bytes = double(p) * state_per_param;
    if (b.layer >= 0 && layer_blocks > 0) bytes += double(acts) / double(layer_blocks);
    if (b.kind == "final") bytes += double(logits);
    items.push_back(int64_t(bytes));
  }
  std::optional<Split> best;
  // Pipeline: the fewest stages, then the smallest fullest stage for that count (binary search).
  if (int64_t k = stages_needed(items, usable, nullptr); k > 0 && k <= max_cards) {
    int64_t lo = *std::max_element(items.begin(), items.end()), hi = usable;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      const int64_t s = stages_needed(items, mid, nullptr);
      (s > 0 && s <= k) ? hi = mid : lo = mid + 1;
    }
    Split sp{"pipeline", k, {}, 0};
    stages_needed(items, lo, &sp.stage_layers);
    sp.cards = int64_t(sp.stage_layers.size());
    sp.per_card_bytes = int64_t(double(lo) * (1 + ov.allocator_reserve_fraction)) + ov.cuda_context_bytes;
    best = sp;
  }
  // ZeRO-3 / FSDP: model state sharded over k cards, activations whole on each, plus the largest
  // block's parameters gathered (twice: the current block and the prefetched next one).
  int64_t largest_block = 0;
  for (const auto& b : m.blocks) {
    int64_t p = 0;
    for (const auto& n : b.nodes) p += n.params;
    largest_block = std::max(largest_block, p);
  }
  for (int64_t k = 2; k <= max_cards; ++k) {
    const double per = state / double(k) + double(acts + logits) + 2.0 * 2.0 * double(largest_block);
    if (per <= double(usable)) {
      if (!best || k < best->cards)
        best = Split{"zero3", k, {}, int64_t(per * (1 + ov.allocator_reserve_fraction)) + ov.cuda_context_bytes};
      break;
    }
  }
  return best;
}

}  // namespace cardfit

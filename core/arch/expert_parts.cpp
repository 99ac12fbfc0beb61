#include "expert_parts.hpp"

#include <string>

namespace cardfit {

namespace {
Tensor part(const Tensor& stack, std::string name, int64_t out, int64_t in, bool first) {
  Tensor t;
  t.name = std::move(name);
  t.shape = {out, in};
  t.role = stack.role;
  t.layer = stack.layer;
  t.linear = true;
  t.copies = stack.shape[0];
  t.copy_run_start = first && stack.shape[0] > 1;
  return t;
}
}  // namespace

std::vector<Tensor> expert_parts(const Tensor& s) {
  if (s.expert_axes == ExpertAxes::none || s.shape.size() != 3 || !s.tied_to.empty()) return {};
  const bool out_in = s.expert_axes == ExpertAxes::out_in;
  const int64_t out = out_in ? s.shape[1] : s.shape[2], in = out_in ? s.shape[2] : s.shape[1];
  static const std::string gate_up = "experts.gate_up_proj", down = "experts.down_proj";
  if (s.name.ends_with(gate_up) && out % 2 == 0) {
    const std::string p = s.name.substr(0, s.name.size() - gate_up.size()) + "experts.0.";
    return {part(s, p + "gate_proj.weight", out / 2, in, true), part(s, p + "up_proj.weight", out / 2, in, false)};
  }
  if (s.name.ends_with(down))
    return {part(s, s.name.substr(0, s.name.size() - down.size()) + "experts.0.down_proj.weight", out, in, true)};
  return {};
}

std::vector<SplitStack> split_stacks(const Model& m) {
  std::vector<SplitStack> out;
  for (size_t i = 0; i < m.tensors.size(); ++i) {
    std::vector<Tensor> parts = expert_parts(m.tensors[i]);
    if (!parts.empty()) out.push_back({int32_t(i), std::move(parts)});
  }
  return out;
}

const Tensor* unnamed_stack(const Model& m) {
  for (const auto& t : m.tensors)
    if (t.expert_axes != ExpertAxes::none && expert_parts(t).empty()) return &t;
  return nullptr;
}

}  // namespace cardfit

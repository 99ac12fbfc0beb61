// Name matching tolerates the base-model prefix that Hugging Face strips or adds on load
// ("transformer.h.0..." in GPT2LMHeadModel vs "h.0..." in a GPT2Model checkpoint).
#include "checkpoint.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "../error.hpp"
#include "../function_ref.hpp"

namespace cardfit {
using nlohmann::json;

namespace {
struct FileTensor {
  Shape shape;
  std::string dtype;
};

json parse_or_throw(const std::string& text, const char* option) {
  try {
    return json::parse(text);
  } catch (const json::parse_error&) {
    throw Error(ErrorCode::checkpoint_header, std::string("The ") + option + " is not valid JSON.", option);
  }
}

std::map<std::string, FileTensor> header_tensors(const std::string& text) {
  const json j = parse_or_throw(text, "safetensors_header");
  if (!j.is_object()) throw Error(ErrorCode::checkpoint_header, "The safetensors header must be a JSON object.", "safetensors_header");
  std::map<std::string, FileTensor> out;
  for (const auto& [name, v] : j.items()) {
    if (name == "__metadata__") continue;
    if (!v.is_object() || !v.contains("shape") || !v["shape"].is_array())
      throw Error(ErrorCode::checkpoint_header, "Tensor \"" + name + "\" in the safetensors header has no shape list.",
                  "safetensors_header." + name);
    FileTensor t;
    for (const auto& d : v["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0)
        throw Error(ErrorCode::checkpoint_header, "Tensor \"" + name + "\" has a bad shape.", "safetensors_header." + name);
      t.shape.push_back(d.get<int64_t>());
    }
    t.dtype = v.value("dtype", "");
    out.emplace(name, std::move(t));
  }
  return out;
}

// Finds `name` in the file, directly or with the first path component stripped/added.
template <typename Map>
typename Map::const_iterator lookup(const Map& file, const std::string& name, const std::string& prefix) {
  auto it = file.find(name);
  if (it != file.end()) return it;
  if (!prefix.empty()) {
    if (name.rfind(prefix + ".", 0) == 0) it = file.find(name.substr(prefix.size() + 1));
    if (it == file.end()) it = file.find(prefix + "." + name);
  }
  return it;
}

std::string base_prefix(const Model& m) {
  for (const auto& t : m.tensors) {
    auto dot = t.name.find('.');
    if (dot != std::string::npos && t.name.compare(0, 3, "lm_") != 0) return t.name.substr(0, dot);
  }
  return {};
}

// The parameters the file stores packed (their _blocks present): not missing, and not stored as themselves.
template <typename Map>
std::set<std::string> packed_in_file(const Model& m, const std::vector<StoredExtra>& extras, const Map& file) {
  const std::string prefix = base_prefix(m);
  std::set<std::string> out;
  for (const auto& x : extras)
    if (!x.replaces.empty() && lookup(file, x.tensor.name, prefix) != file.end()) out.insert(x.replaces);
  return out;
}

// Name by name against a file: the Model's stacks (Tensor::copies) one entry per expert, as stored.
template <typename Map>
void diff_names(const Model& m, const std::vector<StoredExtra>& extras, const Map& file, Reconciliation& r,
                FunctionRef<void(const Tensor&, const typename Map::mapped_type&)> on_match) {
  const std::string prefix = base_prefix(m);
  const std::set<std::string> packed = packed_in_file(m, extras, file);
  std::set<std::string> matched;
  auto visit = [&](const Tensor& t, bool optional) {
    auto it = lookup(file, t.name, prefix);
    if (it == file.end()) {
      if (!optional && !packed.count(t.name)) r.missing.push_back(t.name);
      return;
    }
    matched.insert(it->first);
    // A bitsandbytes 4-bit weight keeps its name, packed: the extra that packs it checks its shape.
    if (!packed.count(t.name)) on_match(t, it->second);
  };
  for (const auto& t : expand_copies(m.tensors)) visit(t, !t.tied_to.empty());  // tied heads are often not stored
  for (const auto& t : m.buffers) visit(t, true);
  // Stored extras are known names, counted by role (stored_extras), never "not traced".
  for (const auto& x : extras) {
    auto it = lookup(file, x.tensor.name, prefix);
    if (it != file.end()) matched.insert(it->first);
  }
  for (const auto& [name, _] : file)
    if (!matched.count(name)) r.extra.push_back(name);
}

// Groups the extras by role in a fixed order; `count` gives each one's stored scalars, or nothing
// when the file does not hold it.
// `extras` are the Model's, stacked or expanded (each entry stands for its copies).
template <typename Count>
void group_extras(const Model& m, const std::vector<StoredExtra>& extras, Reconciliation& r, Count count) {
  for (ExtraRole role : {ExtraRole::mtp, ExtraRole::quant_blocks, ExtraRole::quant_scale, ExtraRole::lookup_table,
                         ExtraRole::position_table, ExtraRole::quant_state}) {
    ExtraGroup g;
    g.role = role;
    std::set<std::string> dtypes;
    for (const auto& x : extras) {
      if (x.role != role) continue;
      const std::optional<int64_t> n = count(x);
      if (!n) continue;
      const int64_t copies = x.tensor.copies;
      g.tensors += copies;
      g.scalars = checked_add(g.scalars, *n, "the checkpoint's extra scalars");
      if (x.variable_max > 0) {
        r.variable_tensors += copies;
        r.variable_max = checked_add(r.variable_max, checked_mul(x.variable_max, copies), "the checkpoint's extra scalars");
      }
      dtypes.insert(std::string(stored_dtype_name(x.dtype)));
      if (g.example.empty()) g.example = x.tensor.name;
      if (!x.replaces.empty() && x.of_tensor >= 0) {  // of_tensor: the stack the extra packs one copy (or part) of
        const int64_t each = x.replaces_elements > 0 ? x.replaces_elements : m.tensors[size_t(x.of_tensor)].each();
        r.packed_replaced = checked_add(r.packed_replaced, checked_mul(each, copies));
      }
    }
    if (g.tensors == 0) continue;
    g.dtypes.assign(dtypes.begin(), dtypes.end());
    r.extra_scalars = checked_add(r.extra_scalars, g.scalars, "the checkpoint's extra scalars");
    r.extras.push_back(std::move(g));
  }
  if (r.packed_replaced > 0) r.packed_counting = "stored";
}

// A bare total says nothing of how it counted packed blocks: the hub counts gpt-oss's MXFP4 _blocks
// as the FP4 values they hold (its 21.5B), a safetensors header as bytes. Both are exact sums; the
// one the total equals is reported, else the header's.
void choose_packed_counting(const Model& m, Reconciliation& r, int64_t scalars) {
  if (r.packed_replaced == 0) return;
  int64_t values = 0, stored = 0;
  for (const auto& x : m.stored_extras)
    if (x.role == ExtraRole::quant_blocks) {
      stored = checked_add(stored, x.tensor.count());
      values = checked_add(values, checked_mul(x.tensor.count(), x.values_per_element));
    }
  const int64_t base = r.params + r.buffers + r.tied_copies + r.extra_scalars - r.packed_replaced;
  if (scalars == base - stored + values && values != stored) {
    r.packed_counting = "values";
    r.extra_scalars = r.extra_scalars - stored + values;
    for (auto& g : r.extras)
      if (g.role == ExtraRole::quant_blocks) g.scalars = values;
  }
}
// The buffers a file really stores (by name; a header gives their shapes, an index only names
// them): what the model type registers is not what every checkpoint holds (transformers no longer
// saves gpt2's attn.bias causal masks), so the reconciliation counts only those present.
template <typename Map, typename Count>
int64_t stored_buffers(const Model& m, const Map& file, Count count) {
  const std::string prefix = base_prefix(m);
  int64_t n = 0;
  for (const auto& t : m.buffers) {
    auto it = lookup(file, t.name, prefix);
    if (it != file.end()) n = checked_add(n, count(t, it->second), "the checkpoint's buffer count");
  }
  return n;
}
}  // namespace

std::optional<Reconciliation> reconcile(const Model& m, const Options& opt) {
  Reconciliation r;
  r.params = m.parameter_count();
  r.buffers = m.buffer_count();
  if (!opt.safetensors_header.empty()) {
    r.source = "safetensors_header";
    const auto file = header_tensors(opt.safetensors_header);
    int64_t scalars = 0;
    std::set<std::string> dtypes;
    for (const auto& [name, t] : file) {
      scalars = checked_add(scalars, numel(t.shape), "the checkpoint's scalar count");
      dtypes.insert(t.dtype);
    }
    r.scalars = scalars;
    r.dtypes.assign(dtypes.begin(), dtypes.end());
    auto match = [&](const Tensor& t, const FileTensor& f) {
      if (f.shape != t.shape) r.shape_mismatches.push_back({t.name, t.shape, f.shape, f.dtype});
      // A tied tensor stored again is a copy of parameters already counted, not unexplained.
      else if (!t.tied_to.empty()) r.tied_copies = checked_add(r.tied_copies, numel(f.shape));
    };
    const std::vector<StoredExtra> extras = expand_copies(m.stored_extras);
    diff_names(m, extras, file, r, match);
    r.buffers = stored_buffers(m, file, [](const Tensor&, const FileTensor& f) { return numel(f.shape); });
    const std::string prefix = base_prefix(m);
    group_extras(m, extras, r, [&](const StoredExtra& x) -> std::optional<int64_t> {
      auto it = lookup(file, x.tensor.name, prefix);
      if (it == file.end()) return std::nullopt;
      // A data-dependent length (variable_max) is read from the header, within its bounds.
      const bool within = x.variable_max > 0 && it->second.shape.size() == 1 && x.tensor.shape.size() == 1 &&
                          it->second.shape[0] >= x.tensor.shape[0] && it->second.shape[0] <= x.tensor.shape[0] + x.variable_max;
      if (it->second.shape != x.tensor.shape && !within)
        r.shape_mismatches.push_back({x.tensor.name, x.tensor.shape, it->second.shape, it->second.dtype});
      return numel(it->second.shape);
    });
  } else if (!opt.safetensors_index.empty()) {
    r.source = "safetensors_index";
    const json j = parse_or_throw(opt.safetensors_index, "safetensors_index");
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
      throw Error(ErrorCode::checkpoint_header, "The index has no weight_map object.", "safetensors_index.weight_map");
    if (j.contains("metadata") && j["metadata"].is_object() && j["metadata"].contains("total_size") &&
        j["metadata"]["total_size"].is_number_integer())
      r.total_bytes = j["metadata"]["total_size"].get<int64_t>();
    std::map<std::string, std::string> names;
    for (const auto& [name, file] : j["weight_map"].items()) names.emplace(name, file.is_string() ? file.get<std::string>() : "");
    auto none = [](const Tensor&, const std::string&) {};
    const std::vector<StoredExtra> extras = expand_copies(m.stored_extras);
    diff_names(m, extras, names, r, none);
    r.buffers = stored_buffers(m, names, [](const Tensor& t, const std::string&) { return numel(t.shape); });
    const std::string prefix = base_prefix(m);
    group_extras(m, extras, r, [&](const StoredExtra& x) -> std::optional<int64_t> {
      if (lookup(names, x.tensor.name, prefix) == names.end()) return std::nullopt;
      return x.tensor.count();
    });
    // An index names tensors but not their shapes; a scalar total stated beside it (the hub's
    // safetensors.total) supplies the count that is then reconciled.
    if (opt.checkpoint_total) {
      r.source = "safetensors_index+checkpoint_total";
      r.scalars = *opt.checkpoint_total;
      choose_packed_counting(m, r, *r.scalars);
    }
  } else if (opt.checkpoint_total) {
    r.source = "checkpoint_total";
    r.scalars = *opt.checkpoint_total;
    // A total alone: everything the published files store (the model's stored extras) is in it.
    group_extras(m, m.stored_extras, r, [](const StoredExtra& x) -> std::optional<int64_t> { return x.tensor.count(); });
    choose_packed_counting(m, r, *r.scalars);
  } else {
    return std::nullopt;
  }
  // Packed parameters are in the file as their blocks (counted among the extras), not as themselves.
  if (r.scalars)
    r.unexplained = *r.scalars - r.params - r.buffers - r.tied_copies - r.extra_scalars + r.packed_replaced;
  // Without a header, data-dependent lengths were counted at their least: what the total holds beyond
  // is theirs up to their bound, named as such (variable_assigned), never silently absorbed past it.
  if (r.source == "safetensors_header") {
    r.variable_tensors = r.variable_max = 0;  // the header's shapes are the lengths
  } else if (r.unexplained && *r.unexplained > 0) {
    r.variable_assigned = std::min(*r.unexplained, r.variable_max);
    *r.unexplained -= r.variable_assigned;
  }
  return r;
}

}  // namespace cardfit

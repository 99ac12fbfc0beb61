// compressed-tensors checkpoints (quant_method "compressed-tensors": RedHatAI / neuralmagic / nvidia
// FP8, NVFP4 and W4A16 repos), tensor by tensor as the library saves them. Sources (read 2026-12-01,
// github.com/vllm-project/compressed-tensors at ac8e2ba, 2026-08-06):
// - module selection, quantization/lifecycle/apply.py + utils/match.py: a config group's targets are
//   module names ("re:" + a regex that re.match-es from the name's start, else the exact name) or class
//   names ("Linear"); exact names rank before regexes (each sorted), those before class names, and the
//   first ranked target's group wins; a later group stating the same target replaces the earlier one.
//   `ignore` is matched the same way and wins over every target.
// - parameters, quantization/lifecycle/initialize.py initialize_qparams: weight_scale (and
//   weight_zero_point) [1] for strategy tensor, [out, 1] channel, [out, ceil(in / group_size)] group and
//   tensor_group, [ceil(out / b0), ceil(in / b1)] block; a tensor_group argument adds <base>_global_scale
//   F32 [1]; dynamic true registers nothing, dynamic "local" only the global scale. The scale dtype is the
//   weight's (bf16, f16 or f32; else f16), zero points quant_args.zp_dtype (the quantized dtype: I8 for
//   int, F8_E4M3 for float 8- and 4-bit). actorder "group" adds weight_g_idx I32 [in].
// - compressors: naive-/int-/float-quantized (naive_quantized/base.py) store weight at the quantized
//   dtype (F8_E4M3 or I8, its shape); pack-quantized (pack_quantized/base.py, helpers.py) stores
//   weight_packed I32 [out, ceil(in * bits / 32)] and weight_shape I64 [2], an asymmetric group/channel
//   zero point packed along dim 0, I32 [ceil(out * bits / 32), groups]; nvfp4-pack-quantized
//   (nvfp4/base.py) stores weight_packed U8 [out, in / 2] and weight_scale at scale_dtype (default
//   F8_E4M3); mxfp4-pack-quantized the same with one E8M0 scale byte per 32 values, weight_scale U8
//   [out, in / 32] and no global scale (Kimi-K3's published listing, 2026-12-07). Every compressor drops the zero points of a symmetric argument (_remove_symmetric_zp).
// - kv_cache_scheme (apply.py _apply_kv_cache_scheme): k_scale and v_scale on each attention module,
//   [1] for strategy tensor (force_zero_point false: zero points only when asymmetric).
#include "stored_compressed_tensors.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "../error.hpp"
#include "expert_parts.hpp"
#include "name_pattern.hpp"

namespace cardfit {

namespace {
using nlohmann::json;

// One QuantizationArgs, with the defaults validate_model_after infers.
struct Args {
  bool present = false;
  int64_t bits = 8;
  bool is_float = false;
  bool symmetric = true;
  std::string strategy;  // tensor, channel, group, tensor_group, block, token
  int64_t group = 0;
  int64_t b0 = 0, b1 = 0;
  std::string dynamic = "false";  // "true", "false", "local"
  bool actorder_group = false;
  StoredDtype scale_dtype = StoredDtype::unset, zp_dtype = StoredDtype::unset;  // unset: the default
};

StoredDtype st_dtype(const Config& c, const std::string& key) {
  std::string v = c.string_or(key, "");
  if (v.empty()) return StoredDtype::unset;
  if (v.rfind("torch.", 0) == 0) v = v.substr(6);
  static const std::map<std::string, StoredDtype> names = {
      {"bfloat16", StoredDtype::bf16}, {"float16", StoredDtype::f16},         {"half", StoredDtype::f16},
      {"float32", StoredDtype::f32},   {"float", StoredDtype::f32},           {"float8_e4m3fn", StoredDtype::f8_e4m3},
      {"int8", StoredDtype::i8},       {"int32", StoredDtype::i32},           {"uint8", StoredDtype::u8}};
  const auto it = names.find(v);
  require(it != names.end(), c, key, c.path_of(key) + " \"" + v + "\" is not a dtype cardfit knows.");
  return it->second;
}

Args read_args(const Config& g, const std::string& key) {
  Args a;
  if (!g.has_object(key)) return a;
  const Config c = g.child(key);
  a.present = true;
  a.bits = c.positive_or({"num_bits"}, 8);
  require(a.bits <= 8 || !c.has("num_bits"), c, "num_bits", c.path_of("num_bits") + " must be at most 8.");
  const std::string type = c.string_or("type", "int");
  require(type == "int" || type == "float", c, "type", c.path_of("type") + " must be \"int\" or \"float\".");
  a.is_float = type == "float";
  a.symmetric = c.boolean_or("symmetric", true);
  const auto group = c.optional_integer({"group_size"});
  a.strategy = c.string_or("strategy", "");
  if (a.strategy.empty()) a.strategy = !group ? "tensor" : *group == -1 ? "channel" : "group";
  if (group && *group > 0) a.group = *group;
  require((a.strategy != "group" && a.strategy != "tensor_group") || a.group > 0, c, "group_size",
          c.path_of("group_size") + " must be positive for strategy " + a.strategy + ".");
  if (a.strategy == "block") {
    const auto b = c.integer_list("block_structure");
    require(b.size() == 2 && b[0] > 0 && b[1] > 0, c, "block_structure",
            c.path_of("block_structure") + " must be two positive integers for strategy block.");
    a.b0 = b[0];
    a.b1 = b[1];
  }
  if (c.has("dynamic")) {
    const json& d = c.raw().at("dynamic");
    a.dynamic = d.is_boolean() ? (d.get<bool>() ? "true" : "false") : d.is_string() ? d.get<std::string>() : "?";
    require(a.dynamic == "true" || a.dynamic == "false" || a.dynamic == "local", c, "dynamic",
            c.path_of("dynamic") + " must be true, false or \"local\".");
  }
  if (c.has("actorder")) {
    const json& o = c.raw().at("actorder");
    a.actorder_group = o.is_string() && (o.get<std::string>() == "group" || o.get<std::string>() == "dynamic");
  }
  a.scale_dtype = st_dtype(c, "scale_dtype");
  a.zp_dtype = st_dtype(c, "zp_dtype");
  if (a.zp_dtype == StoredDtype::unset) a.zp_dtype = a.is_float ? StoredDtype::f8_e4m3 : StoredDtype::i8;
  return a;
}

struct Group {
  std::string name;
  Args weights, input, output;
  std::string format;
};

// A target or ignore entry, its regex parsed once: a DeepSeek-class model has 45,000 tensors.
struct Pattern {
  std::string text;
  bool is_regex = false;
  std::optional<NamePattern> re;
  std::string path;  // the JSON path it came from, for a pattern too costly to match
  size_t group = 0;  // the config group a target selects
  bool digit_blind = false;  // matches names alike that differ only digit for digit (NamePattern)
  // A digit-blind regex's answers by the name with its digits zeroed: the layers' modules of one
  // kind are matched once (Kimi-K3: 93 layers, 2 index lengths).
  mutable std::unordered_map<std::string, bool> answers;
};
Pattern compile(const std::string& text, const Config& where, const std::string& key) {
  Pattern p;
  p.text = text;
  p.is_regex = text.rfind("re:", 0) == 0;
  p.path = where.path_of(key);
  if (p.is_regex) {
    try {
      p.re.emplace(std::string_view(text).substr(3));
    } catch (const NamePattern::Invalid& e) {
      throw Error(ErrorCode::field_range,
                  p.path + " \"" + text + "\" is not a regular expression cardfit can read (" + e.what() + ").", p.path);
    }
  }
  // An exact name without digits equals no name that has them, whatever they are.
  p.digit_blind = p.is_regex ? p.re->digit_blind() : text.find_first_of("0123456789") == std::string::npos;
  return p;
}
// `name` with every digit written as '0', into `key` (its storage reused). By pointer: this file is
// compiled for size, and there a range-for over a std::string calls the iterator's operators out of
// line for each character (a wasm profile of Kimi-K3's plan: 2 of its 15 ms warmed).
void zero_digits_into(std::string& key, std::string_view name) {
  const char* in = name.data();
  const size_t n = name.size();
  key.resize(n);
  char* out = key.data();
  for (size_t i = 0; i < n; ++i) out[i] = in[i] >= '0' && in[i] <= '9' ? '0' : in[i];
}

bool name_matches(const Pattern& p, const std::string& name) {
  if (!p.is_regex) return p.text == name;
  try {
    if (!p.digit_blind) return p.re->matches(name);  // Python's re.match
    std::string key;
    zero_digits_into(key, name);
    const auto [it, added] = p.answers.try_emplace(std::move(key), false);
    if (added) it->second = p.re->matches(name);
    return it->second;
  } catch (const NamePattern::Invalid& e) {
    throw Error(ErrorCode::field_range, p.path + " \"" + p.text + "\": " + e.what() + ".", p.path);
  }
}
bool class_matches(const Pattern& p, const Tensor& t) {
  const std::string& target = p.text;
  if (target == "Linear") return t.linear && t.role != Role::embedding;
  if (target == "Embedding") return t.role == Role::embedding && !t.linear;
  return false;
}

// The format a group's modules are compressed with: stated, else as compress_module infers it.
std::string format_of(const Group& g, const std::string& top) {
  if (!g.format.empty()) return g.format;
  if (!top.empty() && top != "mixed-precision") return top;
  const Args& w = g.weights;
  if (w.is_float && w.bits == 4 && w.group == 16) return "nvfp4-pack-quantized";
  if (!w.is_float && w.bits < 8 && !(g.input.present && g.input.is_float)) return "pack-quantized";
  if (g.input.present) return w.is_float ? "float-quantized" : "int-quantized";
  return "naive-quantized";
}

// The qparam shape of `a` over an observed [rows, cols] (cols only for activations: rows = 0).
Shape qparam_shape(const Args& a, int64_t rows, int64_t cols) {
  if (a.strategy == "channel") return {rows, 1};
  if (a.strategy == "group" || a.strategy == "tensor_group") {
    if (rows == 0) return {ceil_div(cols, a.group)};
    return {rows, ceil_div(cols, a.group)};
  }
  if (a.strategy == "block") return {ceil_div(rows, a.b0), ceil_div(cols, a.b1)};
  return {1};
}

}  // namespace

void add_compressed_tensors_extras(const Config& q, Model& m, StoredDtype weight_dtype) {
  const std::string top = q.string_or("format", "");
  std::vector<Group> groups;
  if (q.has_object("config_groups")) {
    const Config cg = q.child("config_groups");
    for (const auto& [name, _] : cg.raw().items()) {
      if (!cg.has_object(name)) continue;
      const Config g = cg.child(name);
      Group gr;
      gr.name = name;
      gr.weights = read_args(g, "weights");
      gr.input = read_args(g, "input_activations");
      gr.output = read_args(g, "output_activations");
      gr.format = g.string_or("format", "");
      groups.push_back(std::move(gr));
    }
  }
  // target -> group (a later group stating the same target replaces it), ranked as match_targets does.
  std::map<std::string, size_t> target_group;
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (const auto& t : q.child("config_groups").child(groups[gi].name).string_list("targets")) target_group[t] = gi;
  std::vector<Pattern> targets;
  for (const auto& [t, gi] : target_group) {
    targets.push_back(compile(t, q.child("config_groups").child(groups[gi].name), "targets"));
    targets.back().group = gi;
  }
  std::stable_sort(targets.begin(), targets.end(), [](const Pattern& a, const Pattern& b) {
    return a.is_regex != b.is_regex ? !a.is_regex : a.text < b.text;
  });
  std::vector<Pattern> ignore;
  for (const auto& t : q.string_list("ignore")) ignore.push_back(compile(t, q, "ignore"));
  // Digit-blind rules answer alike for experts whose indices have as many digits: a stack is asked
  // once per index length (Kimi-K3: 3 of 896 experts, 0.24 s -> ms).
  bool digit_blind = true;
  for (const auto* rules : {&targets, &ignore})
    for (const Pattern& p : *rules) digit_blind = digit_blind && p.digit_blind;

  const StoredDtype scale16 = weight_dtype == StoredDtype::unset ? StoredDtype::bf16 : weight_dtype;
  std::vector<std::string> unsupported;
  const size_t first_extra = m.stored_extras.size();
  auto add = [&](Tensor t, ExtraRole role, StoredDtype dtype, int32_t index) -> StoredExtra& {
    StoredExtra x;
    x.tensor = std::move(t);
    x.role = role;
    x.dtype = dtype;
    x.of_tensor = index;
    m.stored_extras.push_back(std::move(x));
    return m.stored_extras.back();
  };
  // The group converting a weight (targets ranked: names before classes), or none; whether it is ignored.
  auto group_of = [&](const Tensor& t, const std::string& weight) -> const Group* {
    const std::string mod = weight.substr(0, weight.size() - 7);
    for (const auto& tg : targets)
      if (name_matches(tg, mod)) return &groups[tg.group];
    for (const auto& tg : targets)
      if (class_matches(tg, t)) return &groups[tg.group];
    return nullptr;
  };
  auto ignored = [&](const Tensor& t, const std::string& weight) {
    const std::string mod = weight.substr(0, weight.size() - 7);
    for (const auto& ig : ignore)
      if (name_matches(ig, mod) || class_matches(ig, t)) return true;
    return false;
  };
  // What the rules say of one weight: its group, then (asked only of a converted weight) whether it
  // is ignored. With every rule digit-blind that is what they say of its name with the digits zeroed
  // (and of its class), so a module of the 93 layers is asked once, not once per rule per layer
  // (Kimi-K3).
  struct Fate {
    const Group* group = nullptr;
    int ignored = -1;  // -1: not asked yet
  };
  std::unordered_map<std::string, Fate> fates;
  std::string key;  // reused: a lookup allocates nothing
  Fate unremembered;
  auto fate = [&](const Tensor& t, const std::string& weight) -> Fate& {
    if (!digit_blind) return unremembered = Fate{group_of(t, weight)};
    zero_digits_into(key, weight);
    key += t.linear ? 'L' : '-';  // what class_matches reads
    key += t.role == Role::embedding ? 'E' : '-';
    const auto it = fates.find(key);
    return it != fates.end() ? it->second : fates.emplace(key, Fate{group_of(t, weight)}).first->second;
  };
  auto fate_ignored = [&](Fate& f, const Tensor& t, const std::string& weight) {
    if (f.ignored < 0) f.ignored = ignored(t, weight);
    return f.ignored == 1;
  };
  auto is_ignored = [&](const Tensor& t, const std::string& weight) {
    return digit_blind ? fate_ignored(fate(t, weight), t, weight) : ignored(t, weight);
  };
  // The stored tensors of weight `t`, in place of m.tensors[index] or (part) of its share of that fused
  // stack; false when no group converts it.
  auto convert = [&](const Tensor& t, int32_t index, bool part) -> bool {
    // One lookup for an unstacked weight, not three (Kimi-K3's first plan spent a quarter of its time on
    // these rule checks).
    Fate& own = fate(t, t.name);
    const Group* g = own.group;
    // A stack's experts are quantized alike: a target or ignore rule that splits them is refused.
    if (t.copies > 1)
      for_every_copy(t, [&](const std::string& weight) { return fate(t, weight).group == g; },
                     "quantization_config.config_groups", digit_blind);
    if (!g || !g->weights.present) return false;
    const bool skipped = t.copies > 1 ? for_every_copy(t, [&](const std::string& weight) { return is_ignored(t, weight); },
                                                       "quantization_config.ignore", digit_blind)
                                      : fate_ignored(own, t, t.name);
    if (skipped) return false;
    const std::string module = t.name.substr(0, t.name.size() - 7);
    const size_t first = m.stored_extras.size();

    const Args& w = g->weights;
    const std::string format = format_of(*g, top);
    const int64_t out = t.shape[0], in = t.shape[1];
    const std::string stem = module + ".";
    const Role role = t.role;
    const Shape qs = qparam_shape(w, out, in);
    StoredDtype scale_dtype = w.scale_dtype == StoredDtype::unset ? scale16 : w.scale_dtype;
    if (format == "naive-quantized" || format == "float-quantized" || format == "int-quantized") {
      const StoredDtype stored = w.is_float ? StoredDtype::f8_e4m3 : StoredDtype::i8;
      if (part) {  // the weight under its per-expert name, at the quantized dtype
        StoredExtra& x = add(t, ExtraRole::quant_blocks, stored, index);
        x.replaces = m.tensors[size_t(index)].name;
        x.replaces_elements = t.each();
      }
      add(make_tensor(stem + "weight_scale", qs, role), ExtraRole::quant_scale, scale_dtype, index).of_tensor_dtype =
          part ? StoredDtype::unset : stored;
      if (!w.symmetric) add(make_tensor(stem + "weight_zero_point", qs, role), ExtraRole::quant_scale, w.zp_dtype, index);
    } else if (format == "pack-quantized") {
      if (w.is_float) { unsupported.push_back(module + " (pack-quantized float weights)"); return true; }
      StoredExtra& p = add(make_tensor(stem + "weight_packed", {out, ceil_div(checked_mul(in, w.bits), 32)}, role),
                           ExtraRole::quant_blocks, StoredDtype::i32, index);
      p.replaces = m.tensors[size_t(index)].name;
      if (part) p.replaces_elements = t.each();
      p.values_per_element = 32 % w.bits == 0 ? 32 / w.bits : 1;  // 3, 5, 6, 7 bits straddle words
      add(make_tensor(stem + "weight_shape", {2}, role), ExtraRole::quant_state, StoredDtype::i64, index);
      add(make_tensor(stem + "weight_scale", qs, role), ExtraRole::quant_scale, scale_dtype, index);
      if (!w.symmetric) {
        const bool packed_zp = w.strategy == "group" || w.strategy == "channel";
        add(make_tensor(stem + "weight_zero_point", packed_zp ? Shape{ceil_div(checked_mul(out, w.bits), 32), qs[1]} : qs, role),
            ExtraRole::quant_scale, packed_zp ? StoredDtype::i32 : w.zp_dtype, index);
      }
    } else if (format == "nvfp4-pack-quantized" || format == "mxfp4-pack-quantized") {
      const bool mx = format == "mxfp4-pack-quantized";
      if (!w.is_float || w.bits != 4 || in % 2 != 0 || (mx && w.group != 32)) {
        unsupported.push_back(module + (mx ? " (mxfp4 needs float 4-bit, groups of 32, even in)" : " (nvfp4 needs float 4-bit, even in)"));
        return true;
      }
      StoredExtra& p = add(make_tensor(stem + "weight_packed", {out, in / 2}, role), ExtraRole::quant_blocks, StoredDtype::u8, index);
      p.replaces = m.tensors[size_t(index)].name;
      if (part) p.replaces_elements = t.each();
      p.values_per_element = 2;
      if (w.scale_dtype == StoredDtype::unset) scale_dtype = mx ? StoredDtype::u8 : StoredDtype::f8_e4m3;
      add(make_tensor(stem + "weight_scale", qs, role), ExtraRole::quant_scale, scale_dtype, index);
      if (!w.symmetric) add(make_tensor(stem + "weight_zero_point", qs, role), ExtraRole::quant_scale, w.zp_dtype, index);
    } else {
      unsupported.push_back(module + " (format " + format + ")");
      return true;
    }
    if (w.strategy == "tensor_group") add(make_tensor(stem + "weight_global_scale", {1}, role), ExtraRole::quant_scale, StoredDtype::f32, index);
    if (w.actorder_group) add(make_tensor(stem + "weight_g_idx", {in}, role), ExtraRole::lookup_table, StoredDtype::i32, index);
    // Static activation qparams: observed over the input features (input) or output features (output).
    for (const auto& [base, a, cols] : {std::tuple<std::string, const Args&, int64_t>{"input", g->input, in},
                                        std::tuple<std::string, const Args&, int64_t>{"output", g->output, out}}) {
      if (!a.present || a.dynamic == "true") continue;
      if (a.strategy == "tensor_group") add(make_tensor(stem + base + "_global_scale", {1}, role), ExtraRole::quant_scale, StoredDtype::f32, index);
      if (a.dynamic == "local") continue;
      if (a.strategy == "channel" || a.strategy == "block" || a.strategy == "token") {
        unsupported.push_back(module + " (static " + base + " strategy " + a.strategy + ")");
        continue;
      }
      const Shape s = qparam_shape(a, 0, cols);
      add(make_tensor(stem + base + "_scale", s, role), ExtraRole::quant_scale, a.scale_dtype == StoredDtype::unset ? scale16 : a.scale_dtype, index);
      if (!a.symmetric) add(make_tensor(stem + base + "_zero_point", s, role), ExtraRole::quant_scale, a.zp_dtype, index);
    }
    inherit_copies(m.stored_extras, first, t);
    return true;
  };
  for (size_t i = 0; i < m.tensors.size(); ++i) {
    const Tensor& t = m.tensors[i];
    if (t.tied_to.empty() && t.shape.size() == 2 && t.name.ends_with(".weight")) convert(t, int32_t(i), false);
  }
  // Fused expert stacks, as the per-expert linears the library quantizes (expert_parts.hpp).
  for (const SplitStack& s : split_stacks(m)) {
    size_t converted = 0;
    for (const Tensor& p : s.parts) converted += convert(p, s.stack, true);
    if (converted != 0 && converted != s.parts.size())
      unsupported.push_back(s.parts.front().name + " (some projections of one fused expert stack converted, others not)");
  }
  if (const Tensor* t = unnamed_stack(m)) unsupported.push_back(t->name + " (fused experts with no known per-expert names)");
  // kv_cache_scheme: k_scale / v_scale on every attention module (named by its k_proj).
  if (q.has_object("kv_cache_scheme")) {
    const Args kv = read_args(q, "kv_cache_scheme");
    if (kv.strategy != "tensor") {
      unsupported.push_back("kv_cache_scheme (strategy " + kv.strategy + ")");
    } else if (kv.dynamic != "true") {
      for (const auto& t : m.tensors) {
        if (!t.name.ends_with(".k_proj.weight")) continue;
        const std::string attn = t.name.substr(0, t.name.size() - 13);
        for (const char* base : {"k", "v"}) {
          add(make_tensor(attn + base + "_scale", {1}, t.role), ExtraRole::quant_scale, kv.scale_dtype == StoredDtype::unset ? scale16 : kv.scale_dtype, -1);
          if (!kv.symmetric) add(make_tensor(attn + base + "_zero_point", {1}, t.role), ExtraRole::quant_scale, kv.zp_dtype, -1);
        }
      }
    }
  }
  if (!unsupported.empty()) {
    // Listing some modules' storage and not others' would size neither the checkpoint nor serving.
    m.stored_extras.resize(first_extra);
    m.notes.push_back("quantization_config compressed-tensors: cardfit does not size " + unsupported.front() +
                      (unsupported.size() > 1 ? " and " + std::to_string(unsupported.size() - 1) + " more" : std::string()) +
                      "; no stored tensors are listed.");
  }
}

}  // namespace cardfit

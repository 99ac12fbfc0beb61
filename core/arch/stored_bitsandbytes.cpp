// Sources (read 2026-12-01, github.com/bitsandbytes-foundation/bitsandbytes at 95f9af3, 2026-08-19):
// - 4-bit (nn/modules.py Linear4bit._save_to_state_dict, functional.py quantize_4bit and
//   QuantState.as_dict(packed=True), utils.py pack_dict_to_tensor, backends/default/ops.py): for a
//   weight of n = out × in values, blocksize 64 (Params4bit's default; transformers passes none):
//     weight                         quant_storage [ceil(n / 2) / itemsize, 1] (uint8: two values a byte)
//     weight.absmax                  F32 [ceil(n / 64)], or U8 of the same length when double quantized
//     weight.quant_map               F32 [16] (the NF4 / FP4 code)
//     weight.nested_absmax           F32 [ceil(blocks / 256)]   (double quantization: quantize_blockwise
//     weight.nested_quant_map        F32 [256]                   blocksize 256, the 8-bit dynamic map)
//     weight.quant_state.bitsandbytes__<nf4|fp4>  U8 [bytes of json.dumps of quant_type, blocksize,
//                                    dtype, shape (+ nested_blocksize, nested_dtype, nested_offset)]
//   nested_offset is absmax.mean().item(), a Python float whose repr takes 3 ("0.5") to 22 characters
//   (17 significant digits, "0.000ddd…" or "d.ddd…e-XX"; a float32 value never needs an exponent past
//   ±45): the one data-dependent length, carried as StoredExtra::variable_max.
// - 8-bit (Linear8bitLt._save_to_state_dict): weight I8 [out, in] (as itself), SCB F32 [out] and
//   weight_format U8 [] (0, "row").
// - Which modules: transformers' bitsandbytes integration replaces every nn.Linear but the output
//   head and the llm_int8_skip_modules (a module whose dotted name contains an entry), so routers are
//   quantized; biases stay 16-bit. The dtype the JSON names is the weights' when quantized: the
//   config's torch_dtype, float16 when absent (the bnb quantizer overrides torch_dtype=None so).
// - Serving (vLLM model_loader/bitsandbytes_loader.py _dequantize_dq): double-quantized absmax is
//   dequantized to F32 on load (nested tensors dropped), the JSON is parsed, not held.
#include "stored_bitsandbytes.hpp"

#include "../error.hpp"
#include "stored_extras.hpp"

namespace cardfit {

namespace {
constexpr int64_t kBlock = 64, kNestedBlock = 256;
constexpr int64_t kOffsetMin = 3, kOffsetMax = 22;  // characters of repr(nested_offset)

}  // namespace

std::string bnb_quant_state_json(const std::string& quant_type, int64_t blocksize, const std::string& dtype,
                                 const Shape& shape, bool nested, const std::string& offset) {
  // json.dumps' default separators: ", " and ": "; a shape tuple is a list.
  std::string s = "{\"quant_type\": \"" + quant_type + "\", \"blocksize\": " + std::to_string(blocksize) +
                  ", \"dtype\": \"" + dtype + "\", \"shape\": [";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  s += "]";
  if (nested)
    s += ", \"nested_blocksize\": " + std::to_string(kNestedBlock) + ", \"nested_dtype\": \"float32\", \"nested_offset\": " + offset;
  return s + "}";
}

void add_bitsandbytes_extras(const Config& q, Model& m, const std::string& torch_dtype) {
  const bool four = q.boolean_or("load_in_4bit", q.boolean_or("_load_in_4bit", false));
  const bool eight = q.boolean_or("load_in_8bit", q.boolean_or("_load_in_8bit", false));
  require(!(four && eight), q, "load_in_4bit", "quantization_config cannot set both load_in_4bit and load_in_8bit.");
  if (!four && !eight) {
    m.notes.push_back("quantization_config bitsandbytes sets neither load_in_4bit nor load_in_8bit; no stored tensors are listed.");
    return;
  }
  const std::string type = q.string_or("bnb_4bit_quant_type", "fp4");  // BitsAndBytesConfig's default
  require(type == "nf4" || type == "fp4", q, "bnb_4bit_quant_type", q.path_of("bnb_4bit_quant_type") + " must be \"nf4\" or \"fp4\".");
  const bool nested = q.boolean_or("bnb_4bit_use_double_quant", false);
  const std::string storage = q.string_or("bnb_4bit_quant_storage", "uint8");
  StoredDtype storage_dtype = StoredDtype::unset;
  if (storage == "uint8") storage_dtype = StoredDtype::u8;
  else if (storage == "int8") storage_dtype = StoredDtype::i8;
  else if (storage == "bfloat16") storage_dtype = StoredDtype::bf16;
  else if (storage == "float16") storage_dtype = StoredDtype::f16;
  else if (storage == "float32") storage_dtype = StoredDtype::f32;
  const int64_t item = stored_dtype_bytes(storage_dtype);
  require(storage_dtype != StoredDtype::unset, q, "bnb_4bit_quant_storage",
          q.path_of("bnb_4bit_quant_storage") + " must be uint8, int8, bfloat16, float16 or float32.");
  std::string dtype = torch_dtype.empty() ? "float16" : torch_dtype;
  if (dtype.rfind("torch.", 0) == 0) dtype = dtype.substr(6);
  const std::vector<std::string> skip = q.string_list("llm_int8_skip_modules");
  m.stored_bnb = StoredBnb{eight ? StoredBnb::Kind::int8 : type == "nf4" ? StoredBnb::Kind::nf4 : StoredBnb::Kind::fp4,
                           !eight && nested};

  std::vector<std::string> odd;
  for (size_t i = 0; i < m.tensors.size(); ++i) {
    const Tensor& t = m.tensors[i];
    if (!t.linear || t.role == Role::head || t.role == Role::embedding || !t.tied_to.empty() || t.shape.size() != 2 ||
        !t.name.ends_with(".weight"))
      continue;
    const bool skipped = !skip.empty() && for_every_copy(t, [&](const std::string& name) {
      for (const auto& s : skip)
        if (not_converted(s, name)) return true;
      return false;
    }, "quantization_config.llm_int8_skip_modules");
    if (skipped) continue;
    const size_t first = m.stored_extras.size();
    const int32_t index = int32_t(i);
    const std::string stem = t.name.substr(0, t.name.size() - 6);  // "....q_proj."
    const int64_t out = t.shape[0], in = t.shape[1];
    auto add = [&](std::string name, Shape shape, ExtraRole role, StoredDtype dt) -> StoredExtra& {
      StoredExtra x;
      x.tensor = make_tensor(std::move(name), std::move(shape), t.role);
      x.role = role;
      x.dtype = dt;
      x.of_tensor = index;
      m.stored_extras.push_back(std::move(x));
      return m.stored_extras.back();
    };
    if (eight) {
      add(stem + "SCB", {out}, ExtraRole::quant_scale, StoredDtype::f32).of_tensor_dtype = StoredDtype::i8;
      add(stem + "weight_format", {}, ExtraRole::quant_state, StoredDtype::u8).served = false;
      inherit_copies(m.stored_extras, first, t);
      continue;
    }
    const int64_t n = checked_mul(out, in, "a bitsandbytes weight");
    const int64_t bytes = ceil_div(n, 2);
    if (bytes % item != 0) {
      odd.push_back(t.name);
      continue;
    }
    StoredExtra& w = add(t.name, {bytes / item, 1}, ExtraRole::quant_blocks, storage_dtype);
    w.replaces = t.name;
    w.values_per_element = 2 * item;
    const int64_t blocks = ceil_div(n, kBlock);
    StoredExtra& absmax = add(t.name + ".absmax", {blocks}, ExtraRole::quant_scale, nested ? StoredDtype::u8 : StoredDtype::f32);
    if (nested) absmax.served_dtype = StoredDtype::f32;
    add(t.name + ".quant_map", {16}, ExtraRole::lookup_table, StoredDtype::f32);
    if (nested) {
      add(t.name + ".nested_absmax", {ceil_div(blocks, kNestedBlock)}, ExtraRole::quant_scale, StoredDtype::f32).served = false;
      add(t.name + ".nested_quant_map", {256}, ExtraRole::lookup_table, StoredDtype::f32).served = false;
    }
    const std::string text = bnb_quant_state_json(type, kBlock, dtype, t.shape, nested, std::string(size_t(kOffsetMin), '0'));
    StoredExtra& js = add(t.name + ".quant_state.bitsandbytes__" + type, {int64_t(text.size())}, ExtraRole::quant_state, StoredDtype::u8);
    js.served = false;
    if (nested) js.variable_max = kOffsetMax - kOffsetMin;
    inherit_copies(m.stored_extras, first, t);
  }
  if (!odd.empty())
    m.notes.push_back("quantization_config bitsandbytes: " + odd.front() + " does not pack into whole " + storage +
                      " elements; its stored tensors are not listed.");
}

}  // namespace cardfit

// Options JSON → Options, with one error per unknown name or bad value.
#include "options.hpp"

#include <nlohmann/json.hpp>

#include "../error.hpp"
#include "../json_input.hpp"

namespace cardfit {
using nlohmann::json;

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::full: return "full";
    case Mode::lora: return "lora";
    case Mode::qlora: return "qlora";
    case Mode::serve: return "serve";
  }
  return "full";
}
const char* precision_name(Precision p) {
  switch (p) {
    case Precision::bf16_mixed: return "bf16-mixed";
    case Precision::fp16_mixed: return "fp16-mixed";
    case Precision::bf16: return "bf16";
    case Precision::fp32: return "fp32";
  }
  return "bf16-mixed";
}
const char* optimizer_name(Optimizer o) {
  switch (o) {
    case Optimizer::adamw: return "adamw";
    case Optimizer::adamw8bit: return "adamw8bit";
    case Optimizer::adafactor: return "adafactor";
    case Optimizer::sgd: return "sgd";
    case Optimizer::none: return "none";
  }
  return "adamw";
}
const char* attention_name(Attention a) {
  switch (a) {
    case Attention::sdpa: return "sdpa";
    case Attention::eager: return "eager";
    case Attention::flash: return "flash";
  }
  return "sdpa";
}
const char* weight_dtype_name(WeightDtype w) {
  switch (w) {
    case WeightDtype::bf16: return "bf16";
    case WeightDtype::fp8: return "fp8";
    case WeightDtype::int8: return "int8";
    case WeightDtype::int4: return "int4";
    case WeightDtype::fp16: return "fp16";
    case WeightDtype::fp32: return "fp32";
    case WeightDtype::nf4: return "nf4";
  }
  return "bf16";
}
const char* quant_name(QuantKind q) {
  switch (q) {
    case QuantKind::nf4: return "nf4";
    case QuantKind::fp4: return "fp4";
    case QuantKind::int8: return "int8";
    case QuantKind::gptq: return "gptq";
  }
  return "nf4";
}
const char* optimizer_impl_name(OptimizerImpl i) {
  switch (i) {
    case OptimizerImpl::foreach: return "foreach";
    case OptimizerImpl::fused: return "fused";
    case OptimizerImpl::forloop: return "forloop";
  }
  return "foreach";
}

namespace {
template <typename E, size_t N>
E pick(const json& v, const std::string& name, const E (&values)[N], const char* (*spell)(E)) {
  std::string allowed;
  for (E e : values) {
    if (v.is_string() && v.get<std::string>() == spell(e)) return e;
    allowed += (allowed.empty() ? "" : ", ") + std::string(spell(e));
  }
  throw Error(ErrorCode::option_value,
              "Option " + name + " must be one of " + allowed + ", got " + shown(v) + ".", name);
}

int64_t positive_int(const json& v, const std::string& name, int64_t max_value) {
  if (!(v.is_number_integer() || v.is_number_unsigned()) || v.get<int64_t>() < 1 || v.get<int64_t>() > max_value)
    throw Error(ErrorCode::option_value,
                "Option " + name + " must be an integer from 1 to " + std::to_string(max_value) + ", got " +
                    shown(v) + ".",
                name);
  return v.get<int64_t>();
}

bool boolean(const json& v, const std::string& name) {
  if (!v.is_boolean()) throw Error(ErrorCode::option_value, "Option " + name + " must be true or false.", name);
  return v.get<bool>();
}

double in_range(const json& v, const std::string& name, double lo, double hi, bool lo_open) {
  if (!v.is_number() || (lo_open ? v.get<double>() <= lo : v.get<double>() < lo) || v.get<double>() > hi)
    throw Error(ErrorCode::option_value, "Option " + name + " must be a number in " + (lo_open ? "(" : "[") +
                                             json(lo).dump() + ", " + json(hi).dump() + "], got " + shown(v) + ".",
                name);
  return v.get<double>();
}

std::vector<std::string> names(const json& v, const std::string& name) {
  std::vector<std::string> out;
  if (name == "lora_targets" && v.is_array() && v.empty())  // [] would silently mean "every linear"
    throw Error(ErrorCode::option_value, "Option lora_targets must name at least one module; omit it for every linear but the head.", name);
  if (!v.is_array()) throw Error(ErrorCode::option_value, "Option " + name + " must be a list of module names.", name);
  for (const auto& t : v) {
    if (!t.is_string() || t.get<std::string>().empty())
      throw Error(ErrorCode::option_value, "Option " + name + " must be a list of module names.", name);
    out.push_back(t.get<std::string>());
  }
  return out;
}

double fraction(const json& v, const std::string& name) {
  if (!v.is_number() || v.get<double>() <= 0 || v.get<double>() > 1)
    throw Error(ErrorCode::option_value, "Option " + name + " must be a number in (0, 1], got " + shown(v) + ".", name);
  return v.get<double>();
}
}  // namespace

Options parse_options(std::string_view text) {
  Options o;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return o;
  const json j = read_json_text(text, JsonText::options);  // limits, strictness: json_input.hpp
  if (!j.is_object()) throw Error(ErrorCode::option_value, "The options must be a JSON object.", "options");
  constexpr int64_t kMaxTokens = int64_t(1) << 24, kMaxCount = int64_t(1) << 20;
  for (const auto& [name, v] : j.items()) {
    if (v.is_null()) continue;
    if (name == "mode") o.mode = pick(v, name, all_modes, mode_name);
    else if (name == "batch") o.batch = positive_int(v, name, kMaxCount);
    else if (name == "seq") o.seq = positive_int(v, name, kMaxTokens);
    else if (name == "serve_seq") o.serve_seq = positive_int(v, name, kMaxTokens);
    else if (name == "lora_rank") o.lora_rank = positive_int(v, name, 65536);
    else if (name == "lora_targets") o.lora_targets = names(v, name);
    else if (name == "modules_to_save") o.modules_to_save = names(v, name);
    else if (name == "lora_dropout") o.lora_dropout = in_range(v, name, 0, 0.99, false);
    else if (name == "dropout") o.dropout = in_range(v, name, 0, 0.99, false);
    else if (name == "qlora_quant") {
      constexpr QuantKind all[] = {QuantKind::nf4, QuantKind::fp4, QuantKind::int8, QuantKind::gptq};
      o.qlora_quant = pick(v, name, all, quant_name);
    } else if (name == "double_quant") o.double_quant = boolean(v, name);
    else if (name == "kbit_upcast") o.kbit_upcast = boolean(v, name);
    else if (name == "autocast") o.autocast = boolean(v, name);
    else if (name == "deepspeed_bucket") o.deepspeed_bucket = positive_int(v, name, int64_t(1) << 36);
    else if (name == "grad_accum") o.grad_accum = positive_int(v, name, kMaxCount);
    else if (name == "optimizer_impl") {
      constexpr OptimizerImpl all[] = {OptimizerImpl::foreach, OptimizerImpl::fused, OptimizerImpl::forloop};
      o.optimizer_impl = pick(v, name, all, optimizer_impl_name);
    } else if (name == "decoder_seq") o.decoder_seq = positive_int(v, name, kMaxTokens);
    else if (name == "images") {
      if (!(v.is_number_integer() || v.is_number_unsigned()) || v.get<int64_t>() < 0 || v.get<int64_t>() > 4096)
        throw Error(ErrorCode::option_value, "Option images must be an integer from 0 to 4096, got " + shown(v) + ".", name);
      o.images = v.get<int64_t>();
    }
    else if (name == "cuda_context_bytes") {
      if (!(v.is_number_integer() || v.is_number_unsigned()) || v.get<int64_t>() < 0 || v.get<int64_t>() > (int64_t(1) << 40))
        throw Error(ErrorCode::option_value, "Option cuda_context_bytes must be an integer from 0 to 2^40, got " + shown(v) + ".", name);
      o.cuda_context_bytes = v.get<int64_t>();
    } else if (name == "allocator_reserve") o.allocator_reserve = in_range(v, name, 0, 0.5, false);
    else if (name == "borderline_factor") o.borderline_factor = in_range(v, name, 1, 4, false);
    else if (name == "optimizer") {
      constexpr Optimizer all[] = {Optimizer::adamw, Optimizer::adamw8bit, Optimizer::adafactor, Optimizer::sgd,
                                   Optimizer::none};
      o.optimizer = pick(v, name, all, optimizer_name);
    } else if (name == "precision") {
      constexpr Precision all[] = {Precision::bf16_mixed, Precision::fp16_mixed, Precision::bf16, Precision::fp32};
      o.precision = pick(v, name, all, precision_name);
    } else if (name == "grad_ckpt") {
      o.grad_ckpt = boolean(v, name);
    } else if (name == "attention") {
      constexpr Attention all[] = {Attention::sdpa, Attention::eager, Attention::flash};
      o.attention = pick(v, name, all, attention_name);
    } else if (name == "serve_dtype") {
      constexpr WeightDtype all[] = {WeightDtype::bf16, WeightDtype::fp16, WeightDtype::fp32, WeightDtype::fp8,
                                     WeightDtype::int8, WeightDtype::int4, WeightDtype::nf4};
      o.serve_dtype = pick(v, name, all, weight_dtype_name);
    } else if (name == "kv_dtype") {
      constexpr WeightDtype all[] = {WeightDtype::bf16, WeightDtype::fp16, WeightDtype::fp32, WeightDtype::fp8};
      o.kv_dtype = pick(v, name, all, weight_dtype_name);
      o.kv_dtype_set = true;
    } else if (name == "gpus") o.gpus = positive_int(v, name, 4096);
    else if (name == "card") {
      if (!v.is_string() || v.get_ref<const std::string&>().empty())
        throw Error(ErrorCode::option_value, "Option card must be a card id such as \"h100-sxm\".", name);
      o.card = v.get<std::string>();
    } else if (name == "checkpoint_total") o.checkpoint_total = positive_int(v, name, INT64_MAX);
    else if (name == "safetensors_header" || name == "safetensors_index") {
      if (!v.is_string()) throw Error(ErrorCode::option_value, "Option " + name + " must be the file's JSON text.", name);
      (name == "safetensors_header" ? o.safetensors_header : o.safetensors_index) = v.get<std::string>();
    } else if (name == "epochs") o.epochs = positive_int(v, name, 100000);
    else if (name == "samples") o.samples = positive_int(v, name, int64_t(1) << 40);
    else if (name == "cost_batch") o.cost_batch = positive_int(v, name, kMaxCount);
    else if (name == "mfu") o.mfu = fraction(v, name);
    else if (name == "prices") {
      if (!v.is_object()) throw Error(ErrorCode::option_value, "Option prices must map card ids to USD per GPU-hour.", name);
      for (const auto& [id, p] : v.items()) {
        if (!p.is_number() || p.get<double>() < 0)
          throw Error(ErrorCode::option_value, "Option prices." + id + " must be a non-negative number (USD per GPU-hour).", "prices." + id);
        o.prices[id] = p.get<double>();
      }
    } else {
      throw Error(ErrorCode::option_unknown, "Unknown option \"" + name + "\".", name);
    }
  }
  return o;
}

}  // namespace cardfit

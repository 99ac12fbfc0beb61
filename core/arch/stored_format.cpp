// What vLLM and transformers hold when they load a pre-quantized checkpoint without converting it:
// the stored tensors themselves. mxfp4 (gpt-oss): the experts' _blocks and _scales, the rest BF16
// (vLLM's Mxfp4MoEMethod keeps them packed); fp8 with block scales (DeepSeek-V3, Qwen3-FP8): the FP8
// weights (one byte) and their float32 weight_scale_inv, the rest BF16 (vLLM's Fp8LinearMethod,
// block-quantized); gptq / awq: qweight, qzeros, scales (and g_idx), the rest FP16/BF16 (two bytes);
// compressed-tensors: every stored tensor (vLLM's CompressedTensors schemes load weight / weight_packed
// and the qparams; Marlin repacking keeps their size); bitsandbytes: the packed weights, absmax (vLLM
// dequantizes a double-quantized absmax to F32 on load, dropping the nested tensors) and quant_map.
#include "stored_format.hpp"

#include <vector>

namespace cardfit {

std::optional<StoredWeights> stored_weight_bytes(const Model& m) {
  const std::string& f = m.stored_format;
  if (f != "mxfp4" && f != "fp8" && f != "gptq" && f != "awq" && f != "compressed-tensors" && f != "bitsandbytes")
    return std::nullopt;
  // Per tensor of m.tensors (StoredExtra::of_tensor): packed by an extra, or stored as itself at the
  // dtype a scale of it names (FP8, INT8).
  std::vector<char> replaced(m.tensors.size(), 0), fp4(m.tensors.size(), 0);
  std::vector<int64_t> width(m.tensors.size(), 2);
  auto valid = [&](int32_t i) { return i >= 0 && size_t(i) < m.tensors.size(); };
  int64_t extras = 0;
  bool any = false;
  for (const auto& x : m.stored_extras) {
    if (x.role == ExtraRole::mtp || x.of_mtp) continue;  // not loaded by the model class
    any = true;
    if (!x.replaces.empty() && valid(x.of_tensor)) {
      replaced[size_t(x.of_tensor)] = 1;
      if (x.values_per_element == 2 && f == "fp8") fp4[size_t(x.of_tensor)] = 1;  // DeepSeek-V4's FP4 experts
    }
    if (x.of_tensor_dtype != StoredDtype::unset && valid(x.of_tensor)) width[size_t(x.of_tensor)] = stored_dtype_bytes(x.of_tensor_dtype);
    if (!x.served) continue;  // parsed or folded on load, not held
    const StoredDtype held = x.served_dtype == StoredDtype::unset ? x.dtype : x.served_dtype;
    extras = checked_add(extras, checked_mul(x.tensor.count(), stored_dtype_bytes(held)), "the stored weights");
  }
  if (!any) return std::nullopt;
  // Their UE8M0 scales (a second pass: whatever order the extras come in).
  int64_t fp4_scales = 0;
  for (const auto& x : m.stored_extras)
    if (x.role == ExtraRole::quant_scale && x.served && !x.of_mtp && valid(x.of_tensor) && fp4[size_t(x.of_tensor)] &&
        x.dtype == StoredDtype::f8_e8m0)
      fp4_scales = checked_add(fp4_scales, x.tensor.count(), "the stored weights");
  int64_t bytes = extras;
  for (size_t i = 0; i < m.tensors.size(); ++i) {
    const Tensor& t = m.tensors[i];
    if (!t.tied_to.empty() || replaced[i]) continue;
    bytes = checked_add(bytes, checked_mul(t.count(), width[i]), "the stored weights");
  }
  std::string label = f + " packed linears, 16-bit rest";
  if (f == "mxfp4") label = "mxfp4 experts, bf16 rest";
  else if (f == "fp8") label = "fp8 block-scaled linears, bf16 rest";
  else if (f == "compressed-tensors") label = "compressed-tensors linears as stored, 16-bit rest";
  else if (f == "bitsandbytes") label = "bitsandbytes linears (absmax as float32), 16-bit rest";
  return StoredWeights{bytes, label, fp4_scales};
}

}  // namespace cardfit

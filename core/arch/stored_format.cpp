// What vLLM and transformers hold when they load a pre-quantized checkpoint without converting it:
// the stored tensors themselves. mxfp4 (gpt-oss): the experts' _blocks and _scales, the rest BF16
// (vLLM's Mxfp4MoEMethod keeps them packed); fp8 with block scales (DeepSeek-V3, Qwen3-FP8): the FP8
// weights (one byte) and their float32 weight_scale_inv, the rest BF16 (vLLM's Fp8LinearMethod,
// block-quantized); gptq / awq: qweight, qzeros, scales (and g_idx), the rest FP16/BF16 (two bytes).
#include "stored_format.hpp"

#include <vector>

namespace cardfit {

int64_t safetensors_dtype_bytes(const std::string& dtype) {
  if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
  if (dtype == "F64" || dtype == "I64" || dtype == "U64") return 8;
  if (dtype == "U8" || dtype == "I8" || dtype == "F8_E4M3" || dtype == "F8_E5M2" || dtype == "F8_E8M0" || dtype == "BOOL") return 1;
  return 2;
}

std::optional<StoredWeights> stored_weight_bytes(const Model& m) {
  const std::string& f = m.stored_format;
  if (f != "mxfp4" && f != "fp8" && f != "gptq" && f != "awq") return std::nullopt;
  // Per tensor of m.tensors (StoredExtra::of_tensor): packed by an extra, or an FP8 weight.
  std::vector<char> replaced(m.tensors.size(), 0), fp8(m.tensors.size(), 0);
  auto mark = [&](std::vector<char>& flags, int32_t i) { if (i >= 0 && size_t(i) < flags.size()) flags[size_t(i)] = 1; };
  int64_t extras = 0;
  bool any = false;
  for (const auto& x : m.stored_extras) {
    if (x.role == ExtraRole::mtp || x.of_mtp) continue;  // not loaded by the model class
    any = true;
    if (!x.replaces.empty()) mark(replaced, x.of_tensor);
    extras = checked_add(extras, checked_mul(x.tensor.count(), safetensors_dtype_bytes(x.dtype)), "the stored weights");
    // An FP8 weight is stored as itself (one byte); its block scale is linked to it.
    if (f == "fp8" && x.role == ExtraRole::quant_scale) mark(fp8, x.of_tensor);
  }
  if (!any) return std::nullopt;
  int64_t bytes = extras;
  for (size_t i = 0; i < m.tensors.size(); ++i) {
    const Tensor& t = m.tensors[i];
    if (!t.tied_to.empty() || replaced[i]) continue;
    bytes = checked_add(bytes, checked_mul(t.count(), fp8[i] ? 1 : 2), "the stored weights");
  }
  const std::string label = f == "mxfp4" ? "mxfp4 experts, bf16 rest"
                            : f == "fp8" ? "fp8 block-scaled linears, bf16 rest"
                                         : f + " packed linears, 16-bit rest";
  return StoredWeights{bytes, label};
}

}  // namespace cardfit

// Sources (read 2026-12-01):
// - nextn layers: DeepSeek-V3's model.safetensors.index.json lists model.layers.61.{embed_tokens,
//   enorm, hnorm, eh_proj, shared_head.norm, shared_head.head}.weight beside a full decoder layer 61
//   (public loaders and converters quote those names and eh_proj [7168, 14336]); transformers'
//   DeepseekV3ForCausalLM ignores them (_keys_to_ignore_on_load_unexpected model\.layers\.61). GLM-4.5's
//   nextn layer (model.layers.{num_hidden_layers}) has the same names (vLLM's glm4_moe_mtp.py loads
//   enorm, hnorm, eh_proj and shared_head from it).
// - Qwen MTP: mtp.fc [H, 2H], mtp.pre_fc_norm_{embedding,hidden}, mtp.layers.0.* (a full-attention
//   decoder layer), mtp.norm, as Qwen3.5 / Qwen3-Next checkpoints ship them (public MTP loaders list
//   these 15 names for a dense Qwen3.5; the MoE checkpoints store the MTP experts one by one).
// - Nemotron-H MTP: vLLM's nemotron_h_mtp.py (NemotronHMultiTokenPredictor: one decoder block per
//   mtp_hybrid_override_pattern character, '*' attention or 'E' MoE, the first with enorm / hnorm /
//   eh_proj [H, 2H], the last with final_layernorm; it loads mtp.layers.{i}.* and shares the model's
//   embeddings and lm_head) and a public runtime's test of a released Nemotron-H index
//   (mtp.layers.0.{enorm, hnorm, eh_proj, norm, mixer.q/k/v/o_proj}, mtp.layers.1.{norm, mixer.*,
//   final_layernorm}; eh_proj [hidden, 2 * hidden]).
// - FP8: DeepSeek-V3's inference/fp8_cast_bf16.py and transformers' finegrained_fp8 read
//   <weight>_scale_inv, float32 [ceil(out / b0), ceil(in / b1)] for weight_block_size [b0, b1].
//   DeepSeek-V3's published total (684,531,386,000) confirms the split: every decoder-layer linear is
//   FP8; embeddings, heads, norms, the router and the nextn eh_proj stay BF16.
// - GPTQ / AWQ: see int_packed below (AutoGPTQ qlinear_cuda_old.py, AutoAWQ gemm.py).
// - MXFP4: transformers integrations/mxfp4.py (gpt-oss): W [E, in, out] is stored as W_blocks uint8
//   [E, out, in / 32, 16] (two FP4 values a byte) and W_scales uint8 [E, out, in / 32] (one E8M0
//   exponent per 32 values).
#include "stored_extras.hpp"

#include <nlohmann/json.hpp>

#include "../error.hpp"
#include "../function_ref.hpp"
#include "expert_parts.hpp"
#include "stored_bitsandbytes.hpp"
#include "stored_compressed_tensors.hpp"

namespace cardfit {

namespace {
void add(Model& m, Tensor t, ExtraRole role, StoredDtype dtype, std::string replaces = "", int64_t vpe = 1) {
  m.stored_extras.push_back({std::move(t), role, dtype, std::move(replaces), vpe});
}

// The parameters and stored buffers of one decoder layer, renamed from `from` to `to`. Routed experts
// the model fuses are split per expert (expert_parts.hpp) when `split_experts`, as the Qwen MTP
// layers store them.
void copy_layer(Model& m, const std::string& from, const std::string& to, bool split_experts) {
  std::vector<Tensor> out;
  auto take = [&](const Tensor& t) {
    if (t.name.rfind(from, 0) != 0) return;
    std::vector<Tensor> parts = split_experts ? expert_parts(t) : std::vector<Tensor>{};
    if (parts.empty()) parts.push_back(t);
    for (Tensor& c : parts) {
      c.name = to + c.name.substr(from.size());
      c.tied_to.clear();
      c.expert_axes = ExpertAxes::none;  // a copy, not a stack the quantizers split again
      out.push_back(std::move(c));
    }
  };
  for (const auto& t : m.tensors) take(t);
  for (const auto& t : m.buffers) take(t);
  for (auto& t : out) add(m, std::move(t), ExtraRole::mtp, StoredDtype::bf16);
}

// One expert's projection of a fused stack stored as itself under its per-expert name at `dtype`
// (FP8, INT8), in place of its share of the stack. The caller adds its scales after it (one copy run).
void add_part_weight(Model& m, const Tensor& part, int32_t stack, StoredDtype dtype) {
  add(m, part, ExtraRole::quant_blocks, dtype, m.tensors[size_t(stack)].name);
  m.stored_extras.back().of_tensor = stack;
  m.stored_extras.back().replaces_elements = part.each();
}

// A fused stack whose parts a format converts: all of them, or none (a rule that quantizes an
// expert's gate and not its up, both one parameter here, is refused rather than sized as either).
bool converts_stack(const SplitStack& s, FunctionRef<bool(const Tensor&)> converts, const char* path) {
  const bool first = converts(s.parts.front());
  for (size_t i = 1; i < s.parts.size(); ++i)
    if (converts(s.parts[i]) != first)
      throw Error(ErrorCode::field_inconsistent,
                  std::string(path) + " converts some projections of the fused experts " + s.parts.front().name +
                      " and not others; cardfit cannot size such a checkpoint.", path);
  return first;
}

// The note for fused experts no per-expert rule covers (their checkpoint names are not known):
// counted as stored unquantized, so the serving weights are at most over, never under.
void note_unnamed_stacks(Model& m, const std::string& format) {
  if (const Tensor* t = unnamed_stack(m))
    m.notes.push_back("quantization_config " + format + ": cardfit does not know how the checkpoint stores the fused experts " +
                      t->name + " and counts them at 16 bits; the serving weights may be overstated.");
}

bool excluded(const std::vector<std::string>& patterns, const Tensor& t) {
  if (patterns.empty()) return false;
  return for_every_copy(t, [&](const std::string& name) {
    for (const auto& p : patterns)
      if (not_converted(p, name)) return true;
    return false;
  }, "quantization_config.modules_to_not_convert");
}

// The safetensors dtype of the unquantized weights (torch_dtype / dtype), which scales default to.
StoredDtype weight_dtype(const Config& cfg) {
  const std::string d = cfg.string_or("torch_dtype", cfg.string_or("dtype", "bfloat16"));
  if (d == "float16" || d == "torch.float16") return StoredDtype::f16;
  if (d == "float32" || d == "torch.float32") return StoredDtype::f32;
  return StoredDtype::bf16;
}

bool glob(const char* p, const char* s) {
  if (*p == '\0') return *s == '\0';
  if (*p == '*') return glob(p + 1, s) || (*s != '\0' && glob(p, s + 1));
  return *s != '\0' && *p == *s && glob(p + 1, s + 1);
}

// The dtype a checkpoint stores weight_scale_inv in: float32 in DeepSeek's (DeepSeek-V3 README_WEIGHTS.md,
// "Storage Format: float32 Tensor"), bfloat16 in Qwen's FP8 releases (a header read of Qwen3-1.7B-FP8,
// "196 scale tensors, all BF16", modular/modular#7142; Qwen3-32B-FP8, HabanaAI/vllm-fork#2141; the
// Qwen3.5 family, lablup/mlxcel#1361; read 2026-12-05). vLLM holds either as float32 (Fp8LinearMethod's
// BlockQuantScaleParameter), so only the checkpoint's bytes differ. A header, when given, has the last word.
StoredDtype fp8_scale_dtype(const Model& m) {
  return m.model_type.rfind("qwen", 0) == 0 ? StoredDtype::bf16 : StoredDtype::f32;
}

void add_fp8_scale(Model& m, const Tensor& weight, const Fp8Block& block) {
  const Shape scale{ceil_div(weight.shape[0], block.rows), ceil_div(weight.shape[1], block.cols)};
  add(m, make_tensor(weight.name + "_scale_inv", scale, weight.role), ExtraRole::quant_scale, fp8_scale_dtype(m));
  m.stored_extras.back().served_dtype = StoredDtype::f32;
}

void fp8_scales(const Config& q, Model& m, const std::vector<std::string>& skip) {
  const Fp8Block block = fp8_weight_block(q);
  std::vector<std::pair<Tensor, int32_t>> weights;  // and its index in m.tensors (-1: an MTP layer's)
  auto consider = [&](const Tensor& t, int32_t index) {
    const bool fp8 = t.linear && t.role != Role::head && t.role != Role::embedding && t.role != Role::router &&
                     t.tied_to.empty() && t.shape.size() == 2 && t.name.ends_with(".weight") && !excluded(skip, t);
    if (fp8) weights.emplace_back(t, index);
  };
  for (size_t i = 0; i < m.tensors.size(); ++i) consider(m.tensors[i], int32_t(i));
  for (const auto& x : m.stored_extras)
    if (x.role == ExtraRole::mtp) consider(x.tensor, -1);
  for (const auto& [t, index] : weights) {
    add_fp8_scale(m, t, block);
    inherit_copies(m.stored_extras, m.stored_extras.size() - 1, t);
    m.stored_extras.back().of_tensor_dtype = StoredDtype::f8_e4m3;  // the weight is stored as itself, one byte
    m.stored_extras.back().of_mtp = index < 0;
    m.stored_extras.back().of_tensor = index;
  }
  for (const SplitStack& s : split_stacks(m)) {
    if (!converts_stack(s, [&](const Tensor& p) { return !excluded(skip, p); }, "quantization_config.modules_to_not_convert"))
      continue;
    for (const Tensor& p : s.parts) {
      const size_t first = m.stored_extras.size();
      add_part_weight(m, p, s.stack, StoredDtype::f8_e4m3);
      add_fp8_scale(m, p, block);
      m.stored_extras.back().of_tensor = s.stack;
      inherit_copies(m.stored_extras, first, p);
    }
  }
  note_unnamed_stacks(m, "fp8");
}

void mxfp4(Model& m, const std::vector<std::string>& skip) {
  std::vector<std::pair<Tensor, int32_t>> weights;
  for (size_t i = 0; i < m.tensors.size(); ++i) {
    const Tensor& t = m.tensors[i];
    if (t.role == Role::expert && !t.linear && t.shape.size() == 3 && !excluded(skip, t))
      weights.emplace_back(t, int32_t(i));
  }
  for (const auto& [t, index] : weights) {
    const int64_t e = t.shape[0], in = t.shape[1], out = t.shape[2];
    if (in % 32 != 0) {
      m.notes.push_back("quantization_config mxfp4: " + t.name + " has " + std::to_string(in) +
                        " input features, not a multiple of 32; its blocks are not listed.");
      continue;
    }
    add(m, make_tensor(t.name + "_blocks", {e, out, in / 32, 16}, t.role), ExtraRole::quant_blocks, StoredDtype::u8, t.name, 2);
    m.stored_extras.back().of_tensor = index;
    add(m, make_tensor(t.name + "_scales", {e, out, in / 32}, t.role), ExtraRole::quant_scale, StoredDtype::u8);
    m.stored_extras.back().of_tensor = index;
    inherit_copies(m.stored_extras, m.stored_extras.size() - 2, t);
  }
}
// GPTQ (AutoGPTQ / GPTQModel QuantLinear) and AWQ (AutoAWQ WQLinear_GEMM) store each quantized
// nn.Linear weight [out, in] as int32 words of 32 / bits values plus per-group scales and zeros:
//   gptq: qweight [in * bits / 32, out], qzeros [groups, out * bits / 32], scales F16 [groups, out],
//         g_idx int32 [in] (each input row's group: a lookup table);
//   awq:  qweight [in, out * bits / 32], qzeros [groups, out * bits / 32], scales F16 [groups, out];
// groups = ceil(in / group_size), group_size -1 = one group. Every linear of the decoder but the head
// (and the routers, which stay 16-bit) unless modules_to_not_convert names it.
void int_packed(const Config& q, Model& m, const std::vector<std::string>& skip, bool gptq) {
  const int64_t bits = q.positive_or({"bits", "w_bit"}, 4);
  require(bits == 2 || bits == 3 || bits == 4 || bits == 8, q, "bits", "quantization_config.bits must be 2, 3, 4 or 8.");
  const auto group_key = q.first_key({"group_size", "q_group_size"});
  const int64_t group = group_key && q.raw().at(*group_key).is_number_integer() && q.raw().at(*group_key).get<int64_t>() < 0
                            ? -1
                            : q.positive_or({"group_size", "q_group_size"}, 128);
  std::vector<std::pair<Tensor, int32_t>> weights;
  for (size_t i = 0; i < m.tensors.size(); ++i) {
    const Tensor& t = m.tensors[i];
    if (t.linear && t.role != Role::head && t.role != Role::embedding && t.role != Role::router && t.tied_to.empty() &&
        t.shape.size() == 2 && t.name.ends_with(".weight") && !excluded(skip, t))
      weights.emplace_back(t, int32_t(i));
  }
  const int64_t per_word = 32 / bits;
  // `t` packed (qweight, qzeros, scales, g_idx) in place of m.tensors[index], or of its share of that
  // fused stack when `part`.
  auto pack = [&](const Tensor& t, int32_t index, bool part) {
    const size_t first = m.stored_extras.size();
    const int64_t out = t.shape[0], in = t.shape[1];
    const int64_t groups = group < 0 ? 1 : ceil_div(in, group);
    const std::string stem = t.name.substr(0, t.name.size() - 6);  // without "weight"
    if ((gptq ? in * bits : out * bits) % 32 != 0) {
      m.notes.push_back("quantization_config " + std::string(gptq ? "gptq" : "awq") + ": " + t.name +
                        " does not pack into whole int32 words; its quantized tensors are not listed.");
      return;
    }
    const std::string& replaced = m.tensors[size_t(index)].name;
    if (gptq) add(m, make_tensor(stem + "qweight", {in * bits / 32, out}, t.role), ExtraRole::quant_blocks, StoredDtype::i32, replaced, per_word);
    else add(m, make_tensor(stem + "qweight", {in, out * bits / 32}, t.role), ExtraRole::quant_blocks, StoredDtype::i32, replaced, per_word);
    if (part) m.stored_extras.back().replaces_elements = t.each();
    add(m, make_tensor(stem + "qzeros", {groups, ceil_div(out * bits, 32)}, t.role), ExtraRole::quant_scale, StoredDtype::i32);
    add(m, make_tensor(stem + "scales", {groups, out}, t.role), ExtraRole::quant_scale, StoredDtype::f16);
    if (gptq) add(m, make_tensor(stem + "g_idx", {in}, t.role), ExtraRole::lookup_table, StoredDtype::i32);
    for (size_t k = first; k < m.stored_extras.size(); ++k) m.stored_extras[k].of_tensor = index;
    inherit_copies(m.stored_extras, first, t);
  };
  for (const auto& [t, index] : weights) pack(t, index, false);
  for (const SplitStack& s : split_stacks(m)) {
    if (!converts_stack(s, [&](const Tensor& p) { return !excluded(skip, p); }, "quantization_config.modules_to_not_convert"))
      continue;
    for (const Tensor& p : s.parts) pack(p, s.stack, true);
  }
  note_unnamed_stacks(m, gptq ? "gptq" : "awq");
}
}  // namespace

Fp8Block fp8_weight_block(const Config& q) {
  const auto block = q.integer_list("weight_block_size");
  if (block.empty()) return {};
  require(block.size() == 2 && block[0] > 0 && block[1] > 0, q, "weight_block_size",
          "quantization_config.weight_block_size must be two positive integers.");
  return {block[0], block[1]};
}

const char* extra_role_name(ExtraRole role) {
  switch (role) {
    case ExtraRole::mtp: return "mtp";
    case ExtraRole::quant_blocks: return "quant_blocks";
    case ExtraRole::quant_scale: return "quant_scale";
    case ExtraRole::lookup_table: return "lookup_table";
    case ExtraRole::position_table: return "position_table";
    case ExtraRole::quant_state: return "quant_state";
  }
  return "mtp";
}

bool not_converted(const std::string& pattern, const std::string& name) {
  if (pattern.find('*') == std::string::npos) return name.find(pattern) != std::string::npos;
  // A glob covers a module path: the name itself or any of its dotted prefixes.
  for (size_t dot = name.find('.'); ; dot = name.find('.', dot + 1)) {
    const std::string prefix = dot == std::string::npos ? name : name.substr(0, dot);
    if (glob(pattern.c_str(), prefix.c_str())) return true;
    if (dot == std::string::npos) return false;
  }
}

void add_nextn_layers(Model& m, int64_t count, int64_t layers, int64_t source_layer, int64_t hidden, int64_t vocab,
                      const std::string& layer_prefix) {
  const std::string from = layer_prefix + std::to_string(source_layer) + ".";
  for (int64_t j = 0; j < count; ++j) {
    const std::string p = layer_prefix + std::to_string(layers + j) + ".";
    add(m, make_tensor(p + "embed_tokens.weight", {vocab, hidden}, Role::embedding), ExtraRole::mtp, StoredDtype::bf16);
    add(m, make_tensor(p + "enorm.weight", {hidden}, Role::norm), ExtraRole::mtp, StoredDtype::bf16);
    add(m, make_tensor(p + "hnorm.weight", {hidden}, Role::norm), ExtraRole::mtp, StoredDtype::bf16);
    // Not FP8 in DeepSeek-V3's checkpoint (its published total has no scales for it): linear = false.
    add(m, make_tensor(p + "eh_proj.weight", {hidden, checked_mul(2, hidden)}, Role::other), ExtraRole::mtp, StoredDtype::bf16);
    copy_layer(m, from, p, false);
    add(m, make_tensor(p + "shared_head.norm.weight", {hidden}, Role::norm), ExtraRole::mtp, StoredDtype::bf16);
    add(m, make_tensor(p + "shared_head.head.weight", {vocab, hidden}, Role::head), ExtraRole::mtp, StoredDtype::bf16);
  }
}

void add_qwen_mtp_layers(Model& m, int64_t count, int64_t source_layer, int64_t hidden) {
  // Not FP8 in Qwen3.6-35B-A3B-FP8: its 1,560 MTP tensors are the 785 of the bf16 layout plus the
  // scales of the layer's linears alone (public loaders' counts, 2026-12-04): linear = false.
  add(m, make_tensor("mtp.fc.weight", {hidden, checked_mul(2, hidden)}, Role::other), ExtraRole::mtp, StoredDtype::bf16);
  add(m, make_tensor("mtp.pre_fc_norm_embedding.weight", {hidden}, Role::norm), ExtraRole::mtp, StoredDtype::bf16);
  add(m, make_tensor("mtp.pre_fc_norm_hidden.weight", {hidden}, Role::norm), ExtraRole::mtp, StoredDtype::bf16);
  const std::string from = "model.layers." + std::to_string(source_layer) + ".";
  for (int64_t j = 0; j < count; ++j) copy_layer(m, from, "mtp.layers." + std::to_string(j) + ".", true);
  add(m, make_tensor("mtp.norm.weight", {hidden}, Role::norm), ExtraRole::mtp, StoredDtype::bf16);
}

void add_nemotron_h_mtp_layers(Model& m, const std::vector<std::string>& sources, int64_t hidden) {
  for (size_t j = 0; j < sources.size(); ++j) {
    const std::string p = "mtp.layers." + std::to_string(j) + ".";
    if (j == 0) {  // the fusion of the token embedding and the model's last hidden state
      add(m, make_tensor(p + "enorm.weight", {hidden}, Role::norm), ExtraRole::mtp, StoredDtype::bf16);
      add(m, make_tensor(p + "hnorm.weight", {hidden}, Role::norm), ExtraRole::mtp, StoredDtype::bf16);
      add(m, make_tensor(p + "eh_proj.weight", {hidden, checked_mul(2, hidden)}, Role::other, true), ExtraRole::mtp, StoredDtype::bf16);
    }
    copy_layer(m, sources[j] + ".", p, false);
    if (j + 1 == sources.size()) add(m, make_tensor(p + "final_layernorm.weight", {hidden}, Role::norm), ExtraRole::mtp, StoredDtype::bf16);
  }
}

void add_quantization_extras(const Config& cfg, Model& m) {
  // Kimi-K3's config.json nests it in text_config only; its config class hoists it to the top, where
  // the loaders read it, and its module patterns name the whole checkpoint ("re:.*vision_tower.*").
  const bool nested = !cfg.has_object("quantization_config") && cfg.has_object("text_config") &&
                      cfg.child("text_config").has_object("quantization_config");
  if (!cfg.has_object("quantization_config") && !nested) return;
  if (!m.stored_format.empty()) return;  // the family declared its stored format itself (deepseek_v4)
  const Config q = nested ? cfg.child("text_config").child("quantization_config") : cfg.child("quantization_config");
  m.stored_format = q.string_or("quant_method", "");
  const std::vector<std::string> skip = q.string_list("modules_to_not_convert");
  if (m.stored_format == "fp8") fp8_scales(q, m, skip);
  else if (m.stored_format == "mxfp4") mxfp4(m, skip);
  else if (m.stored_format == "gptq" || m.stored_format == "awq") int_packed(q, m, skip, m.stored_format == "gptq");
  else if (m.stored_format == "compressed-tensors") add_compressed_tensors_extras(q, m, weight_dtype(cfg));
  else if (m.stored_format == "bitsandbytes") add_bitsandbytes_extras(q, m, cfg.string_or("torch_dtype", cfg.string_or("dtype", "")));
}

}  // namespace cardfit

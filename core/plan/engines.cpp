// See engines.hpp. Sources (read 2026-12-01), per engine:
//  vLLM: vllm/v1/worker/gpu_worker.py determine_available_memory (commit 0012cf69): available KV =
//    total_memory × gpu_memory_utilization − (torch peak of profile_run, weights included) −
//    non-torch allocations; vllm/v1/kv_cache_interface.py: a full-attention page is 2 × block_size ×
//    kv_heads × head_size × dtype bytes per layer, a sliding-window layer needs
//    cdiv(min(window − 1 + max_num_batched_tokens, max_model_len), block_size) + 1 blocks;
//    vllm/engine/arg_utils.py get_batch_defaults: `vllm serve` takes max_num_batched_tokens 8192 and
//    max_num_seqs 1024 on cards of 70+ GiB that are not an A100, else 2048 and 256 (V0: 256 seqs);
//    vllm/config/cache.py: block_size 16, gpu_memory_utilization 0.9 (0.92 in the newest snapshot,
//    commit 002f10e0); vllm/envs.py VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS defaults to 0: CUDA
//    graphs are captured after the KV cache is sized, out of the 1 − utilization headroom.
//  SGLang: python/sglang/srt/server_args.py _handle_gpu_memory_settings (mem_fraction_static from the
//    card's MiB, chunked_prefill_size and cuda_graph_max_bs); model_runner.py profile_max_num_token
//    (token pool = available after weights − total × (1 − mem_fraction_static), cell = kv_heads/tp ×
//    head_dim × layers × 2 × dtype bytes) and init_memory_pool (max requests).
//  TGI: server/text_generation_server/models/flash_causal_lm.py warmup, utils/import_utils.py
//    get_cuda_free_memory, models/globals.py (TGI_WIGGLE_ROOM 0.90, BLOCK_SIZE 1 under flashinfer,
//    16 under paged), launcher/src/main.rs (flashinfer by default, paged before compute capability
//    8.0; max_concurrent_requests 128) — huggingface/text-generation-inference db931fcf (2026-01-08).
//  llama.cpp: ggml/src/ggml-common.h block structs; src/llama-quant.cpp llama_tensor_get_type_impl,
//    tensor_type_fallback and llama_ftype_get_default_type (commit 007dbbf3; the IQ3_M / IQ3_S rules
//    read 2026-12-02, without an imatrix, which neither needs); the input embedding always stays in host memory
//    (llama-model.cpp: "there is very little benefit to offloading the input layer"); a tied model's
//    output is token_embd created again with TENSOR_DUPLICATED (llama-model.cpp load_tensors, read
//    2026-12-02): a copy on the output's device. The compute buffer's attention part:
//    src/llama-graph.cpp build_attn_inp_kq_mask (a mask of n_kv × n_tokens per stream, f16 under
//    flash attention, f32 without) and build_attn_mha (without flash attention kq = mul_mat(k, q),
//    f32 [n_kv, n_tokens, n_head], then soft_max_ext, which ggml-alloc.c ggml_op_can_inplace runs
//    in place; a layer's kq is freed before the next layer's is allocated); the graph is reserved
//    for n_ubatch tokens over the whole cache (n_kv = -c); a sliding layer's cache holds
//    n_swa + n_ubatch cells (llama-kv-cache-iswa.cpp). -fa defaults to auto (common/common.h
//    LLAMA_FLASH_ATTN_TYPE_AUTO), which enables it on CUDA; builds before 2025 defaulted to off.
//    Read 2026-12-03.
#include "engines.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "recurrent_state.hpp"

namespace cardfit {

namespace {
int64_t mul(int64_t a, int64_t b) { return checked_mul(a, b, "a serving term"); }
int64_t add(int64_t a, int64_t b) { return checked_add(a, b, "a serving term"); }
constexpr int64_t kMiB = int64_t(1) << 20, kGiB = int64_t(1) << 30;

// ggml-common.h: block_q4_0 {ggml_half d; uint8_t qs[16]} = 18 B / 32; block_q4_1 {d, m; qs[16]} =
// 20 / 32; block_q5_0 {d; qh[4]; qs[16]} = 22 / 32; block_q5_1 {d, m; qh[4]; qs[16]} = 24 / 32;
// block_q8_0 {d; int8 qs[32]} = 34 / 32; block_q4_K {d, dmin; scales[12]; qs[128]} = 144 / 256;
// block_q5_K {d, dmin; scales[12]; qh[32]; qs[128]} = 176 / 256; block_q6_K {ql[128]; qh[64];
// int8 scales[16]; d} = 210 / 256 (QK_K = 256, K_SCALE_SIZE = 12); block_iq3_s {d; qs[64]; qh[8];
// signs[32]; scales[4]} = 110 / 256 (3.4375 bpw; the IQ3_M file type's base too); block_iq4_nl
// {d; qs[16]} = 18 / 32 (IQ3_S's fallback).
constexpr GgufBlock kBlocks[] = {
    {GgufType::f32, 1, 4},     {GgufType::f16, 1, 2},     {GgufType::bf16, 1, 2},   {GgufType::q8_0, 32, 34},
    {GgufType::q6_k, 256, 210}, {GgufType::q5_k_m, 256, 176}, {GgufType::q5_k_s, 256, 176},
    {GgufType::q5_1, 32, 24},  {GgufType::q5_0, 32, 22},  {GgufType::q4_k_m, 256, 144},
    {GgufType::q4_k_s, 256, 144}, {GgufType::q4_1, 32, 20}, {GgufType::q4_0, 32, 18},
    {GgufType::iq3_m, 256, 110}, {GgufType::iq3_s, 256, 110},
};
static_assert(std::size(kBlocks) == std::size(gguf_type_names), "a block for every GGUF type");

// The tensor types the mixes use, by name (the _M/_S file types map to their base).
enum class TT { f32, f16, q8_0, q6_k, q5_k, q5_1, q5_0, q4_k, q4_1, q4_0, iq4_nl, iq3_s };
constexpr GgufBlock kIq4Nl{GgufType::f16, 32, 18};  // a tensor type only (no file type offered)
GgufBlock block_of(TT t) {
  switch (t) {
    case TT::f32: return gguf_block(GgufType::f32);
    case TT::f16: return gguf_block(GgufType::f16);
    case TT::q8_0: return gguf_block(GgufType::q8_0);
    case TT::q6_k: return gguf_block(GgufType::q6_k);
    case TT::q5_k: return gguf_block(GgufType::q5_k_s);
    case TT::q5_1: return gguf_block(GgufType::q5_1);
    case TT::q5_0: return gguf_block(GgufType::q5_0);
    case TT::q4_k: return gguf_block(GgufType::q4_k_s);
    case TT::q4_1: return gguf_block(GgufType::q4_1);
    case TT::q4_0: return gguf_block(GgufType::q4_0);
    case TT::iq4_nl: return kIq4Nl;
    case TT::iq3_s: return gguf_block(GgufType::iq3_s);
  }
  return gguf_block(GgufType::f16);
}
TT base_type(GgufType t) {
  switch (t) {
    case GgufType::f32: return TT::f32;
    case GgufType::f16:
    case GgufType::bf16: return TT::f16;
    case GgufType::q8_0: return TT::q8_0;
    case GgufType::q6_k: return TT::q6_k;
    case GgufType::q5_k_m:
    case GgufType::q5_k_s: return TT::q5_k;
    case GgufType::q5_1: return TT::q5_1;
    case GgufType::q5_0: return TT::q5_0;
    case GgufType::q4_k_m:
    case GgufType::q4_k_s: return TT::q4_k;
    case GgufType::q4_1: return TT::q4_1;
    case GgufType::q4_0: return TT::q4_0;
    case GgufType::iq3_m:
    case GgufType::iq3_s: return TT::iq3_s;
  }
  return TT::f16;
}

// tensor_type_fallback: a row not divisible by the block takes the next type with 32-element blocks.
TT fallback(TT t, int64_t ncols) {
  if (ncols % block_of(t).block_elements == 0) return t;
  switch (t) {
    case TT::q4_k: t = TT::q5_0; break;
    case TT::q5_k: t = TT::q5_1; break;
    case TT::q6_k: t = TT::q8_0; break;
    case TT::iq3_s: t = TT::iq4_nl; break;
    default: break;
  }
  return ncols % block_of(t).block_elements == 0 ? t : TT::f16;
}

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// llama.cpp's categories (tensor_get_category) from checkpoint names: attn_v-like (V, fused QKV,
// MLA kv_b), attn_k, attn_output, ffn_down.
enum class Cat { embedding, output, attn_v, attn_k, attn_output, ffn_down, other };
Cat category(const Tensor& t) {
  const std::string& n = t.name;
  if (t.role == Role::head) return Cat::output;
  if (t.role == Role::embedding) return Cat::embedding;
  if (t.role == Role::attention) {
    if (contains(n, "v_proj") || contains(n, ".value.") || contains(n, "qkv") || contains(n, "query_key_value") ||
        contains(n, "c_attn") || contains(n, "W_pack") || contains(n, "kv_b_proj"))
      return Cat::attn_v;
    if (contains(n, "k_proj") || contains(n, ".key.")) return Cat::attn_k;
    if (contains(n, "o_proj") || contains(n, "out_proj") || contains(n, "c_proj") || contains(n, "dense.")) return Cat::attn_output;
  }
  if ((t.role == Role::mlp || t.role == Role::expert) &&
      (contains(n, "down_proj") || contains(n, "fc2") || contains(n, ".w2") || contains(n, "dense_4h_to_h") ||
       contains(n, "c_proj") || contains(n, "fc_out") || contains(n, ".wo.")))
    return Cat::ffn_down;
  return Cat::other;
}

bool use_more_bits(int64_t i, int64_t n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

// The per-token K+V elements of one attention node on one rank of tp.
double rank_cache_dim(const AttentionGeom& g, int64_t tp, bool* replicated) {
  const int64_t kv = g.kv_heads > 0 ? g.kv_heads : g.heads;
  const bool mha_like = kv > 0 && g.cache_dim == kv * (g.head_dim + (g.v_head_dim > 0 ? g.v_head_dim : g.head_dim));
  if (!mha_like || tp <= 1) return double(g.cache_dim);  // MLA's latent: every rank keeps it whole
  if (kv < tp && replicated) *replicated = true;
  return double(g.cache_dim) / double(kv) * double(std::max<int64_t>(1, kv / tp));
}

// One rank's cache per token over every cached layer, ignoring windows (a page holds every layer).
double cache_elements_per_token(const Model& m, int64_t tp, bool* replicated) {
  double e = 0;
  for (const auto& b : m.blocks)
    for (const auto& n : b.nodes)
      if (caches_kv(b, n)) e += rank_cache_dim(n.attn, tp, replicated);
  return e;
}

int64_t serve_weights(const MemoryModel& serve) {
  return serve.events().empty() ? 0 : serve.events().front().fixed[MemoryModel::kWeightsC];
}
// SGLang's Fp8MoEMethod.create_weights creates DeepSeek-V4's FP4 expert scale parameters as float32
// on CUDA (python/sglang/srt/layers/quantization/fp8.py: fp4_scale_dtype is float8_e8m0fnu only under
// aiter, on ROCm) and loads the stored UE8M0 bytes into them: 4 bytes a scale where the file has 1.
int64_t sglang_fp4_scale_widening(const Model& m, const Options& opt, const Card& card) {
  if (opt.serve_dtype_set || !m.stored_weights || card.rocm) return 0;
  return mul(m.stored_weights->fp4_expert_scales, 3);
}
int64_t serve_state(const MemoryModel& serve) {
  return serve.events().empty() ? 0 : serve.events().front().per_sample[MemoryModel::kSsmC];
}
}  // namespace

GgufBlock gguf_block(GgufType type) {
  for (const auto& b : kBlocks)
    if (b.type == type) return b;
  return kBlocks[1];
}

double gguf_bits_per_weight(GgufType type) {
  const GgufBlock b = gguf_block(type);
  return double(b.block_bytes) * 8.0 / double(b.block_elements);
}

GgufWeights gguf_weights(const Model& m, GgufType ftype, int64_t gpu_layers, bool output_on_gpu) {
  GgufWeights w;
  const TT base = base_type(ftype);
  const bool quantized = base != TT::f32 && base != TT::f16;
  const bool m_mix = ftype == GgufType::q4_k_m || ftype == GgufType::q5_k_m;
  const bool iq3 = ftype == GgufType::iq3_m || ftype == GgufType::iq3_s;
  const bool eight_experts = m.dims.experts == 8;
  const bool falcon = m.family == "falcon";  // LLM_ARCH_FALCON: its output Q8_0, its attn_output kept
  // hparams.n_gqa(): query heads over KV heads.
  const bool gqa4 = m.dims.kv_heads > 0 && m.dims.heads / m.dims.kv_heads >= 4;
  bool tied = false;
  std::string tied_name;  // the embedding the head is tied to
  for (const auto& t : m.tensors)
    if (t.role == Role::head && !t.tied_to.empty()) tied = true, tied_name = t.tied_to;
  // use_more_bits counts attn_v tensors and ffn_down tensors (llama.cpp's n_attention_wv,
  // n_ffn_down): one per layer that has them (a layer's stacked experts are one GGUF tensor).
  int64_t n_v = 0, n_down = 0;
  int last_v = -2, last_down = -2;
  for (const auto& t : m.tensors) {
    if (!t.tied_to.empty() || t.shape.size() < 2) continue;
    const Cat c = category(t);
    if (c == Cat::attn_v && t.layer != last_v) ++n_v, last_v = t.layer;
    if (c == Cat::ffn_down && t.layer != last_down) ++n_down, last_down = t.layer;
  }
  for (const auto& t : m.tensors) {
    if (!t.tied_to.empty() || t.role == Role::vision || t.role == Role::projector) continue;  // mmproj: its own file
    const Cat c = category(t);
    TT type = base;
    const int64_t ncols = t.shape.empty() ? 1 : t.shape.back();
    if (t.shape.size() < 2) {
      type = TT::f32;  // norms and biases: convert_hf_to_gguf keeps 1-D tensors in F32
    } else if (t.role == Role::position_embedding || t.role == Role::norm) {
      type = TT::f16;  // never quantized (tensor_allows_quantization)
    } else if (quantized) {
      if (c == Cat::output || (tied && c == Cat::embedding)) {
        type = base == TT::q8_0 ? TT::q8_0 : TT::q6_k;
        if (ncols % 256 != 0 || falcon) type = TT::q8_0;
      } else if (c == Cat::attn_v) {
        const int64_t i = std::max(0, t.layer);
        if (m_mix && use_more_bits(i, n_v)) type = TT::q6_k;
        else if (ftype == GgufType::q4_k_s && i < 4) type = TT::q5_k;
        else if (ftype == GgufType::iq3_m || (ftype == GgufType::iq3_s && gqa4)) type = TT::q4_k;
        if (eight_experts) type = TT::q8_0;
      } else if (c == Cat::attn_k && eight_experts) {
        type = TT::q8_0;
      } else if (c == Cat::attn_output && !falcon) {
        if (eight_experts && (ftype == GgufType::q4_k_m || ftype == GgufType::q4_k_s || iq3)) type = TT::q5_k;
        else if (!eight_experts && ftype == GgufType::iq3_m) type = TT::q4_k;
      } else if (c == Cat::ffn_down) {
        const int64_t i = std::max(0, t.layer);
        if (m_mix && use_more_bits(i, n_down)) type = TT::q6_k;
        else if (ftype == GgufType::q4_k_s && i < n_down / 8) type = TT::q5_k;
        else if (ftype == GgufType::iq3_m && (i < n_down / 8 || (eight_experts && use_more_bits(i, n_down))))
          type = TT::q4_k;
      }
      type = fallback(type, ncols);
    }
    const GgufBlock b = block_of(type);
    const int64_t bytes = mul(mul(ceil_div(t.each(), b.block_elements), b.block_bytes), t.copies);
    w.total = add(w.total, bytes);
    // A tied file has no output.weight: the loader creates the output from token_embd again
    // (TENSOR_DUPLICATED, "duplicated to allow offloading"), so the card holds a copy of it.
    const bool on_gpu = t.layer >= 0 ? t.layer < gpu_layers : ((c != Cat::embedding || t.name == tied_name) && output_on_gpu);
    if (on_gpu) w.gpu = add(w.gpu, bytes);
  }
  return w;
}

double kv_sequence_bytes(const Model& m, int64_t context, double element_bytes, int64_t tp, int64_t block_tokens,
                         int64_t window_extra) {
  double bytes = 0;
  const int64_t bt = std::max<int64_t>(1, block_tokens);
  for (const auto& b : m.blocks)
    for (const auto& n : b.nodes) {
      if (!caches_kv(b, n)) continue;
      int64_t tokens = n.attn.cross ? (n.attn.context > 0 ? n.attn.context : context) : context;
      int64_t blocks = ceil_div(tokens, bt);
      if (!n.attn.cross && n.attn.window > 0) {
        // A sliding layer keeps its window; a paged engine also the tokens of one scheduler step and
        // one more block (the window need not start at a block boundary).
        tokens = std::min(n.attn.window + window_extra, context);
        blocks = ceil_div(tokens, bt) + (bt > 1 ? 1 : 0);
      }
      bytes += double(blocks * bt) * rank_cache_dim(n.attn, tp, nullptr) * element_bytes;
      // DeepSeek-V4 CSA / HCA: the compressed entries beside the window, replicated on every rank.
      if (n.attn.compress_ratio > 0)
        bytes += double(context / n.attn.compress_ratio) * double(n.attn.compressed_dim) * element_bytes;
    }
  return bytes;
}

int64_t llamacpp_attention_buffer(const Model& m, int64_t context, int64_t ubatch, bool flash) {
  const int64_t mask_bytes = flash ? 2 : 4;
  int64_t full_mask = 0, sliding_mask = 0, scores = 0;
  for (const auto& b : m.blocks)
    for (const auto& n : b.nodes) {
      if (!caches_kv(b, n) || n.attn.cross) continue;
      const bool sliding = n.attn.window > 0;
      const int64_t n_kv = sliding ? std::min(context, add(n.attn.window, ubatch)) : context;
      const int64_t cells = mul(n_kv, ubatch);
      int64_t& mask = sliding ? sliding_mask : full_mask;  // one input per kind, shared by its layers
      mask = std::max(mask, mul(cells, mask_bytes));
      if (!flash) scores = std::max(scores, mul(mul(cells, n.attn.heads), 4));
    }
  return add(add(full_mask, sliding_mask), scores);
}

EngineBudget engine_budget(const Model& m, const Options& opt, const MemoryModel& serve, const Card& card,
                           const Overheads& ov, int64_t max_model_len, int64_t hf_batch,
                           FunctionRef<int64_t(int64_t)> working_set) {
  EngineBudget e;
  EngineKnobs& k = e.knobs;
  const int64_t tp = std::max<int64_t>(1, opt.tp);
  const int64_t cap = card.capacity_bytes;
  const int64_t workload = add(opt.prompt_tokens, opt.output_tokens);
  const int64_t kvb = kv_bytes_per_element(opt);
  const int64_t state = ceil_div(serve_state(serve), tp);  // recurrent state per sequence, heads split
  const int64_t vocab_row = serve.logits_per_sample();  // one row of 16-bit logits and its fp32 copy
  e.capacity_bytes = cap;
  e.non_torch_bytes = ov.cuda_context_bytes;
  // vLLM's custom all-reduce: an 8 MiB IPC buffer per rank outside torch (custom_all_reduce.py max_size).
  if (tp > 1 && opt.engine != Engine::hf && opt.engine != Engine::llamacpp) e.non_torch_bytes = add(e.non_torch_bytes, 8 * kMiB);
  const double per_token = cache_elements_per_token(m, tp, &e.kv_replicated) * double(kvb);

  auto finish_paged = [&](int64_t block_tokens, int64_t window_extra) {
    e.block_tokens = block_tokens;
    e.block_bytes = int64_t(std::ceil(per_token * double(block_tokens)));
    e.kv_bytes = std::max<int64_t>(0, e.kv_bytes);
    e.blocks = e.block_bytes > 0 ? e.kv_bytes / e.block_bytes : 0;
    e.kv_tokens = mul(e.blocks, block_tokens);
    e.sequence_bytes = add(int64_t(std::ceil(kv_sequence_bytes(m, max_model_len, double(kvb), tp, block_tokens, window_extra))), state);
    const int64_t work_seq = add(int64_t(std::ceil(kv_sequence_bytes(m, workload, double(kvb), tp, block_tokens, window_extra))), state);
    const int64_t cap_seqs = k.max_seqs > 0 ? k.max_seqs : std::numeric_limits<int64_t>::max();
    // A model that caches nothing per sequence (an encoder) runs as many as the scheduler allows,
    // once its weights and the profile run fit.
    const int64_t uncached = e.budget_bytes - e.weights_bytes - e.activation_bytes - e.non_torch_bytes - e.cuda_graph_bytes >= 0
                                 ? std::max<int64_t>(1, k.max_seqs) : 0;
    e.concurrency = e.sequence_bytes > 0 ? std::min(cap_seqs, e.kv_bytes / e.sequence_bytes) : uncached;
    e.workload_batch = work_seq > 0 ? std::min(cap_seqs, e.kv_bytes / work_seq) : uncached;
    e.fits = e.concurrency > 0;
  };

  switch (opt.engine) {
    case Engine::hf: {
      // generate(): the serve mode's memory model and the card solver's largest batch.
      k.memory_fraction = 1;
      e.budget_bytes = cap;
      e.weights_bytes = serve_weights(serve);
      const auto& ev = serve.events().front();
      e.activation_bytes = add(ev.per_sample[MemoryModel::kWorkC], ev.per_sample[MemoryModel::kLogitsC]);
      e.sequence_bytes = add(serve.kv_per_sample(), serve_state(serve));
      e.block_tokens = 1;
      e.block_bytes = int64_t(std::ceil(per_token));
      e.concurrency = e.workload_batch = hf_batch;
      e.kv_bytes = mul(hf_batch, e.sequence_bytes);
      e.kv_tokens = mul(hf_batch, max_model_len);
      e.blocks = e.kv_tokens;
      e.fits = hf_batch > 0;
      return e;
    }
    case Engine::vllm: {
      const bool big = cap >= 70 * kGiB && card.id.find("a100") == std::string::npos;
      k.memory_fraction = opt.gpu_memory_utilization;
      k.max_seqs = opt.max_num_seqs.value_or(big ? 1024 : 256);
      k.profile_tokens = opt.max_num_batched_tokens.value_or(big ? 8192 : 2048);
      e.budget_bytes = int64_t(std::floor(double(cap) * k.memory_fraction));
      e.weights_bytes = ceil_div(serve_weights(serve), tp);
      // profile_run: the forward over max_num_batched_tokens, then the sampler over
      // min(max_num_seqs, max_num_batched_tokens) rows of logits.
      e.activation_bytes = std::max(working_set(k.profile_tokens), mul(std::min(k.max_seqs, k.profile_tokens), vocab_row));
      e.cuda_graph_bytes = opt.cuda_graph_bytes;
      e.kv_bytes = e.budget_bytes - e.weights_bytes - e.activation_bytes - e.non_torch_bytes - e.cuda_graph_bytes;
      finish_paged(std::max<int64_t>(1, opt.block_size), k.profile_tokens - 1);
      return e;
    }
    case Engine::sglang: {
      // server_args.py: buckets by the card's MiB (tp < 4), then reserved MiB for activations and graphs.
      const double mib = double(cap) / double(kMiB);
      int64_t chunked = 16384, graph_bs = 512;
      if (mib < 20 * 1024) chunked = 2048, graph_bs = 8;
      else if (mib < 35 * 1024) chunked = 2048, graph_bs = tp < 4 ? 24 : 80;
      else if (mib < 60 * 1024) chunked = 4096, graph_bs = tp < 4 ? 32 : 160;
      else if (mib < 160 * 1024) chunked = 8192, graph_bs = tp < 4 ? 256 : 512;
      double reserved = 512 + double(std::max<int64_t>(chunked, 2048)) * 1.5 + double(graph_bs) * 2 + double(tp) / 8 * 1024;
      if (mib > 60 * 1024) reserved = std::max(reserved, 10.0 * 1024);
      k.profile_tokens = chunked;
      k.cuda_graph_max_bs = graph_bs;
      k.memory_fraction = opt.mem_fraction_static.value_or(std::round((mib - reserved) / mib * 1000) / 1000);
      e.budget_bytes = int64_t(std::floor(double(cap) * k.memory_fraction));
      e.weights_bytes = ceil_div(add(serve_weights(serve), sglang_fp4_scale_widening(m, opt, card)), tp);
      // Activations and CUDA graphs live in the 1 − mem_fraction_static the pool leaves.
      e.activation_bytes = cap - e.budget_bytes;
      e.kv_bytes = e.budget_bytes - e.weights_bytes - e.non_torch_bytes;
      const int64_t cell = int64_t(std::ceil(per_token));
      const int64_t tokens = cell > 0 ? std::max<int64_t>(0, e.kv_bytes) / cell : 0;
      // init_memory_pool: max_num_reqs = min(max(tokens / context_len × 512, 2048), 4096).
      k.max_seqs = std::min<int64_t>(std::max<int64_t>(int64_t(double(tokens) / double(max_model_len) * 512), 2048), 4096);
      finish_paged(1, 0);
      // SGLang's default pool sizes every layer for every token (hybrid SWA memory aside).
      const int64_t seq = add(mul(max_model_len, cell), state), work = add(mul(workload, cell), state);
      e.sequence_bytes = seq;
      e.concurrency = seq > 0 ? std::min(k.max_seqs, e.kv_bytes / seq) : 0;
      e.workload_batch = work > 0 ? std::min(k.max_seqs, e.kv_bytes / work) : 0;
      e.fits = e.concurrency > 0;
      return e;
    }
    case Engine::tgi: {
      // warmup: free = max(0, free − (1 − fraction × TGI_WIGGLE_ROOM) × total) after a prefill of
      // max_batch_prefill_tokens; blocks of BLOCK_SIZE tokens (flashinfer: 1; paged, before Ampere: 16).
      k.memory_fraction = opt.cuda_memory_fraction.value_or(1.0) * 0.90;
      k.max_seqs = 128;
      k.profile_tokens = opt.max_batch_prefill_tokens;
      e.budget_bytes = int64_t(std::floor(double(cap) * k.memory_fraction));
      e.weights_bytes = ceil_div(serve_weights(serve), tp);
      e.activation_bytes = add(working_set(k.profile_tokens), vocab_row);
      e.kv_bytes = e.budget_bytes - e.weights_bytes - e.activation_bytes - e.non_torch_bytes;
      finish_paged(card.bf16_tflops > 0 ? 1 : 16, 0);
      return e;
    }
    case Engine::llamacpp: {
      // Layers [0, -ngl) and, past the last layer, the output on the card; the K and V caches of
      // the offloaded layers for -c = slots × max_model_len tokens; a compute buffer for n_ubatch
      // (512) tokens, whose attention inputs (and scores without -fa) span all of -c. tp is not
      // applied (llama.cpp splits by layer, -sm layer).
      const int64_t layers = std::max<int64_t>(1, m.dims.layers);
      k.memory_fraction = 1;
      k.profile_tokens = 512;
      k.flash_attention = llamacpp_flash_attention(opt);
      k.gpu_layers = std::min(opt.n_gpu_layers.value_or(layers + 1), layers);
      k.output_on_gpu = opt.n_gpu_layers.value_or(layers + 1) > layers;
      e.budget_bytes = cap;
      e.weights_bytes = gguf_weights(m, opt.gguf, k.gpu_layers, k.output_on_gpu).gpu;
      e.activation_bytes = working_set(k.profile_tokens);
      e.kv_bytes = cap - e.weights_bytes - e.activation_bytes - e.non_torch_bytes;
      const GgufBlock kb = gguf_block(opt.cache_type_k), vb = gguf_block(opt.cache_type_v);
      const double element = (double(kb.block_bytes) / double(kb.block_elements) +
                              double(vb.block_bytes) / double(vb.block_elements)) / 2;
      const double share = double(k.gpu_layers) / double(layers);
      e.block_tokens = 1;
      e.block_bytes = int64_t(std::ceil(cache_elements_per_token(m, 1, nullptr) * element * share));
      e.kv_bytes = std::max<int64_t>(0, e.kv_bytes);
      e.blocks = e.block_bytes > 0 ? e.kv_bytes / e.block_bytes : 0;
      e.kv_tokens = e.blocks;
      // The slot's share of the compute buffer (on the card once any layer is: offload_kqv).
      auto attention_buffer = [&](int64_t context) {
        return k.gpu_layers > 0 ? llamacpp_attention_buffer(m, context, std::min(k.profile_tokens, context), k.flash_attention) : 0;
      };
      e.compute_bytes_per_sequence = attention_buffer(max_model_len);
      e.sequence_bytes = add(add(int64_t(std::ceil(kv_sequence_bytes(m, max_model_len, element, 1) * share)), serve_state(serve)),
                             e.compute_bytes_per_sequence);
      const int64_t work = add(add(int64_t(std::ceil(kv_sequence_bytes(m, workload, element, 1) * share)), serve_state(serve)),
                               attention_buffer(workload));
      e.concurrency = e.sequence_bytes > 0 ? e.kv_bytes / e.sequence_bytes : 0;
      e.workload_batch = work > 0 ? e.kv_bytes / work : 0;
      e.fits = e.concurrency > 0;
      return e;
    }
  }
  return e;
}

}  // namespace cardfit

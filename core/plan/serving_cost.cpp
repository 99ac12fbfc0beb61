// See serving_cost.hpp.
#include "serving_cost.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "cost.hpp"
#include "serve_parallel.hpp"

namespace cardfit {

Serving plan_serving(const Model& m, const Options& opt, const Catalog& cat, const MemoryModel& serve,
                     const Overheads& ov, int64_t max_model_len, const std::vector<int64_t>& hf_batch) {
  Serving s;
  s.engine = opt.engine;
  s.tp = opt.engine == Engine::hf || opt.engine == Engine::llamacpp ? 1 : std::max<int64_t>(1, opt.tp);
  s.max_model_len = max_model_len;
  s.prompt_tokens = opt.prompt_tokens;
  s.output_tokens = opt.output_tokens;
  s.decode_context = opt.prompt_tokens + opt.output_tokens / 2;
  s.mfu = opt.mfu.value_or(cat.mfu);
  s.bandwidth_efficiency = opt.bandwidth_efficiency;
  // Per token of a prompt: the forward at the prompt's length. A decode token at context c attends
  // over c tokens: the per-token FLOPs of a causal sequence of 2c (whose mean context is c).
  s.prefill_flops_per_token = forward_flops_per_token(m, opt.prompt_tokens, opt.decoder_seq);
  s.decode_flops_per_token = forward_flops_per_token(m, 2 * s.decode_context, opt.decoder_seq);

  // The profile / warmup forward's transient bytes, by its token count (the serve mode's prefill
  // working set of one sequence of that length; the engines run flash-attention kernels).
  Options flash = opt;
  flash.attention = Attention::flash;
  std::map<int64_t, int64_t> working;
  auto working_set = [&](int64_t tokens) {
    auto it = working.find(tokens);
    if (it != working.end()) return it->second;
    const MemoryModel mm(m, flash, Mode::serve, tokens, ov);
    const int64_t bytes = mm.events().empty() ? 0 : mm.events().front().per_sample[MemoryModel::kWorkC];
    working.emplace(tokens, bytes);
    return bytes;
  };

  const std::string priced_id = opt.card.empty() ? cat.priced_card : opt.card;
  const int64_t kvb = opt.kv_dtype_set ? (opt.kv_dtype == WeightDtype::fp8 ? 1 : opt.kv_dtype == WeightDtype::fp32 ? 4 : 2)
                                       : (opt.serve_dtype == WeightDtype::fp32 ? 4 : 2);
  for (size_t i = 0; i < cat.cards.size(); ++i) {
    const Card& card = cat.cards[i];
    ServingRow r;
    r.card = &card;
    r.budget = engine_budget(m, opt, serve, card, ov, max_model_len, i < hf_batch.size() ? hf_batch[i] : 0, working_set);
    if (card.id == priced_id) s.priced = i;
    const int64_t batch = r.budget.workload_batch;
    const double tflops = card.dense_tflops(opt.serve_dtype == WeightDtype::fp32 ? Precision::fp32 : Precision::bf16);
    const auto price = card.price(opt);
    const bool partial = opt.engine == Engine::llamacpp && (r.budget.knobs.gpu_layers < m.dims.layers || !r.budget.knobs.output_on_gpu);
    if (!r.budget.fits || batch <= 0 || tflops <= 0 || card.mem_bw_gbps <= 0 || partial) {
      s.rows.push_back(r);
      continue;
    }
    const double tp = double(s.tp), peak = tflops * 1e12 * s.mfu;
    r.prefill_seconds_per_token = s.prefill_flops_per_token / (tp * peak);
    // One decode step on one rank: its weights once, each sequence's cache once (plain token
    // count: the blocks' padding is allocated, not read).
    double seq_bytes = 0;
    if (opt.engine == Engine::hf) {
      seq_bytes = kv_sequence_bytes(m, s.decode_context, double(kvb), 1);
    } else if (opt.engine == Engine::llamacpp) {
      const GgufBlock kb = gguf_block(opt.cache_type_k), vb = gguf_block(opt.cache_type_v);
      seq_bytes = kv_sequence_bytes(m, s.decode_context,
                                    (double(kb.block_bytes) / double(kb.block_elements) +
                                     double(vb.block_bytes) / double(vb.block_elements)) / 2, 1);
    } else {
      seq_bytes = kv_sequence_bytes(m, s.decode_context, double(kvb), s.tp);
    }
    const double state = double(serve.events().front().per_sample[MemoryModel::kSsmC]) / tp;
    r.decode_bytes_per_step = double(r.budget.weights_bytes) + double(batch) * (seq_bytes + state);
    const double memory_s = r.decode_bytes_per_step / (card.mem_bw_gbps * 1e9 * s.bandwidth_efficiency);
    const double compute_s = double(batch) * s.decode_flops_per_token / (tp * peak);
    r.memory_bound = memory_s >= compute_s;
    r.decode_step_seconds = std::max(memory_s, compute_s);
    // One round: the batch's prompts prefilled, then output_tokens decode steps.
    const double round = double(batch) * double(opt.prompt_tokens) * r.prefill_seconds_per_token +
                         double(opt.output_tokens) * r.decode_step_seconds;
    const double outputs = double(batch) * double(opt.output_tokens);
    r.output_tokens_per_second = outputs / round / tp;
    r.input_tokens_per_second = double(batch) * double(opt.prompt_tokens) / round / tp;
    if (price) {
      const double usd_per_second = *price * tp / 3600.0;
      r.usd_per_m_output = usd_per_second * round / outputs * 1e6;
      r.usd_per_m_input = usd_per_second * r.prefill_seconds_per_token * 1e6;
      r.priced = true;
    }
    s.rows.push_back(r);
  }

  // Per device of the generation layout (LitGPT's scripts), at the plan's batch.
  const GenerateLayout layout = generate_layout(m, opt, max_model_len);
  if (layout.applies && !serve.events().empty()) {
    const auto& prefill = serve.events().front();
    for (const auto& d : layout.per_device)
      s.devices.push_back({d.first_layer, d.end_layer, d.root, d.weights, d.kv, d.transient,
                           generate_device_peak(d, opt.batch, prefill.per_sample[MemoryModel::kWorkC],
                                                serve.logits_per_sample(), prefill.fixed[MemoryModel::kWorkspaceC])});
    if (layout.parallel != ServeParallel::none) s.parallel = std::string(enum_name(serve_parallel_names, layout.parallel));
  }

  switch (opt.engine) {
    case Engine::hf:
      if (layout.parallel == ServeParallel::layer_split)
        s.notes.push_back("Generation over " + std::to_string(layout.devices) + " devices, an equal share of the layers on each in order (LitGPT generate/sequentially.py); device 0 also holds the embedding, final norm and head, and its peak is the plan's.");
      else if (layout.parallel == ServeParallel::tp)
        s.notes.push_back("Tensor-parallel generation over " + std::to_string(layout.devices) + " devices (LitGPT generate/tp.py): attention and MLP linears sharded, KV heads divided, embedding, norms and head replicated; the plan is one device's.");
      else
        s.notes.push_back("Hugging Face generate: a static batch, the KV cache grown to serve_seq tokens per sequence; tp is not applied.");
      break;
    case Engine::vllm:
      s.notes.push_back("CUDA graphs: captured after the KV cache is sized (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0, the default), from the 1 - gpu_memory_utilization headroom; set cuda_graph_bytes to take them from the budget.");
      s.notes.push_back("Non-torch memory: the CUDA context of the catalog (and, with tp > 1, the 8 MiB custom all-reduce buffer); NCCL's own buffers are not counted.");
      break;
    case Engine::sglang:
      s.notes.push_back("Activations and CUDA graphs live in the 1 - mem_fraction_static share outside the static pool; the token pool sizes every layer for every token (hybrid SWA memory aside).");
      if (!opt.serve_dtype_set && m.stored_weights && m.stored_weights->fp4_expert_scales > 0)
        s.notes.push_back("The FP4 experts' " + std::to_string(m.stored_weights->fp4_expert_scales) +
                          " UE8M0 scales are held as float32 on NVIDIA cards, 3 bytes more each than stored, split over the tp "
                          "ranks (sglang/srt/layers/quantization/fp8.py Fp8MoEMethod.create_weights: float8_e8m0fnu only "
                          "under aiter, on AMD cards). Not modelled: builds whose Marlin repack keeps a second copy of the "
                          "scales, or a DeepGEMM repack to UE8M0 on Blackwell.");
      break;
    case Engine::tgi:
      s.notes.push_back("TGI_WIGGLE_ROOM 0.90 multiplies cuda_memory_fraction; max_concurrent_requests 128 caps the running requests.");
      break;
    case Engine::llamacpp:
      s.notes.push_back("The input embedding stays in host memory; with fewer GPU layers than the model has, decode runs partly on the CPU and is not priced. Flash attention is assumed for a quantized V cache.");
      s.notes.push_back(std::string("Compute buffer: the activations of one n_ubatch (512-token) forward, and per slot the KQ mask over "
                        "its cache cells (f16 with flash attention, f32 without)") +
                        (!llamacpp_flash_attention(opt)
                             ? " and, with -fa off (attention eager), one layer's f32 scores of the ubatch over those cells per head"
                             : "; flash attention on (-fa auto, llama.cpp's default, enables it on CUDA; attention eager plans -fa off)") +
                        ". -c is one unified cache of slots × max_model_len cells (exact for one slot). Sources: src/llama-graph.cpp "
                        "build_attn_mha, build_attn_inp_kq_mask; ggml/src/ggml-alloc.c (softmax in place).");
      break;
  }
  return s;
}

}  // namespace cardfit

// Serving engines (plan/engines.hpp, plan/serving_cost.hpp): each engine's own block arithmetic
// written out here from its source, GGUF sizes from ggml's block structs, tensor parallelism, the
// decode roofline, and the hf engine leaving every existing number alone.
#include <catch2/catch.hpp>

#include <cmath>

#include "plan/plan.hpp"
#include "test_util.hpp"

namespace engines_test {

using namespace cardfit;

namespace {
// One catalog for the whole file: a plan's rows point into it.
const Catalog& catalog() {
  static const Catalog cat = load_catalog();
  return cat;
}
Plan plan_for(const Model& m, const std::string& options) { return make_plan(m, parse_options(options), catalog()); }

const ServingRow& row(const Plan& p, const std::string& card) {
  for (const auto& r : p.serving().rows)
    if (r.card->id == card) return r;
  FAIL("no card " << card);
  return p.serving().rows.front();
}

const Card& card_of(const std::string& id) { return *find_card(catalog(), id); }

// meta-llama/Llama-3.2-1B-Instruct's dimensions (tests/accuracy/configs/llama-3.2-1b-instruct.json).
constexpr const char* kLlama32_1B = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
    "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 32,
    "num_key_value_heads": 8, "head_dim": 64, "vocab_size": 128256, "max_position_embeddings": 131072,
    "tie_word_embeddings": true, "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "torch_dtype": "bfloat16"})";
Model llama_3_2_1b() { return trace_json(nlohmann::json::parse(kLlama32_1B)); }
}  // namespace

TEST_CASE("vLLM concurrency of Llama-3-8B on an 80 GB A100 follows vLLM's block arithmetic", "[engines]") {
  const Model m = trace_golden("meta-llama-3-8b.json");
  const Plan p = plan_for(m, R"({"engine": "vllm", "gpu_memory_utilization": 0.9, "serve_seq": 8192})");
  const ServingRow& r = row(p, "a100-80gb");
  const EngineBudget& b = r.budget;
  const int64_t cap = card_of("a100-80gb").capacity_bytes;
  // determine_available_memory: total × gpu_memory_utilization − (weights + profile peak) − non-torch.
  const int64_t budget = int64_t(std::floor(double(cap) * 0.9));
  CHECK(b.budget_bytes == budget);
  CHECK(b.weights_bytes == m.parameter_count() * 2);  // bf16, untied head
  CHECK(b.non_torch_bytes == p.overheads.cuda_context_bytes);
  CHECK(b.activation_bytes > 0);
  const int64_t available = budget - b.weights_bytes - b.activation_bytes - b.non_torch_bytes;
  CHECK(b.kv_bytes == available);
  // FullAttentionSpec page: 2 × block_size × kv_heads × head_size × dtype bytes, per layer.
  const int64_t layers = 32, kv_heads = 8, head_dim = 128, block_size = 16;
  const int64_t block_bytes = 2 * layers * kv_heads * head_dim * block_size * 2;
  CHECK(b.block_bytes == block_bytes);
  const int64_t num_gpu_blocks = available / block_bytes;
  CHECK(b.blocks == num_gpu_blocks);
  CHECK(b.kv_tokens == num_gpu_blocks * block_size);
  // An A100 takes `vllm serve`'s smaller defaults (get_batch_defaults): 256 sequences, 2048 tokens.
  CHECK(b.knobs.max_seqs == 256);
  CHECK(b.knobs.profile_tokens == 2048);
  const int64_t blocks_per_seq = (8192 + block_size - 1) / block_size;
  CHECK(b.concurrency == std::min<int64_t>(256, num_gpu_blocks / blocks_per_seq));
  CHECK(b.concurrency > 0);
  CHECK(b.fits);

  // max_num_seqs caps the scheduler.
  const Plan capped = plan_for(m, R"({"engine": "vllm", "serve_seq": 8192, "max_num_seqs": 3})");
  CHECK(row(capped, "a100-80gb").budget.concurrency == 3);
  // fp8 KV: one byte per element, twice the blocks.
  const Plan fp8 = plan_for(m, R"({"engine": "vllm", "serve_seq": 8192, "kv_dtype": "fp8"})");
  CHECK(row(fp8, "a100-80gb").budget.block_bytes == block_bytes / 2);
  CHECK(row(fp8, "a100-80gb").budget.blocks == available / (block_bytes / 2));
  // An H100 (80 GiB, not an A100) takes the larger defaults.
  CHECK(row(p, "h100-sxm").budget.knobs.max_seqs == 1024);
  CHECK(row(p, "h100-sxm").budget.knobs.profile_tokens == 8192);
  // CUDA graphs taken from the budget (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1) shrink the cache.
  const Plan graphs = plan_for(m, R"({"engine": "vllm", "serve_seq": 8192, "cuda_graph_bytes": 1073741824})");
  CHECK(row(graphs, "a100-80gb").budget.kv_bytes == available - (int64_t(1) << 30));
}

TEST_CASE("vLLM sizes a sliding-window layer by its window plus one scheduler step", "[engines]") {
  const Model m = trace_golden("mistral-7b-v0.1.json");  // sliding_window 4096 on every layer
  const Plan p = plan_for(m, R"({"engine": "vllm", "serve_seq": 32768})");
  const EngineBudget& b = row(p, "a100-80gb").budget;
  // SlidingWindowSpec.max_memory_usage_bytes: cdiv(min(window − 1 + max_num_batched_tokens,
  // max_model_len), block_size) + 1 blocks per layer.
  const int64_t blocks = (4096 - 1 + 2048 + 15) / 16 + 1;
  CHECK(b.sequence_bytes == blocks * b.block_bytes);
  CHECK(b.concurrency == std::min<int64_t>(256, b.kv_bytes / b.sequence_bytes));
}

TEST_CASE("SGLang's mem_fraction_static and token pool follow server_args.py and model_runner.py", "[engines]") {
  const Model m = trace_golden("meta-llama-3-8b.json");
  const Plan p = plan_for(m, R"({"engine": "sglang", "serve_seq": 8192})");
  const EngineBudget& b = row(p, "h100-sxm").budget;
  const double mib = double(card_of("h100-sxm").capacity_bytes) / double(1 << 20);
  // 60-90 GiB: chunked_prefill_size 8192, cuda_graph_max_bs 256; reserved MiB, at least 10 GiB.
  const double reserved = std::max(512 + 8192 * 1.5 + 256 * 2 + 1.0 / 8 * 1024, 10.0 * 1024);
  CHECK(b.knobs.memory_fraction == Approx(std::round((mib - reserved) / mib * 1000) / 1000));
  const int64_t cell = 8 * 128 * 32 * 2 * 2;
  CHECK(b.block_bytes == cell);
  CHECK(b.kv_tokens == (b.budget_bytes - b.weights_bytes - b.non_torch_bytes) / cell);
  CHECK(b.concurrency == std::min(b.knobs.max_seqs, b.kv_tokens / 8192));
}

TEST_CASE("SGLang holds DeepSeek-V4's FP4 expert scales as float32 on NVIDIA cards, as stored on AMD ones", "[engines]") {
  const Model m = trace_golden("deepseek-v4-pro.json");
  // 61 layers x 384 experts x (gate, up: [3072, 7168 / 32]; down: [7168, 3072 / 32]) UE8M0 scales;
  // the MTP layer's are not loaded.
  constexpr int64_t scales = int64_t(61) * 384 * 3 * (3072 * 7168 / 32);
  static_assert(scales == 48356130816);
  REQUIRE(m.stored_weights);
  CHECK(m.stored_weights->fp4_expert_scales == scales);
  const Plan sglang = plan_for(m, R"({"engine": "sglang", "tp": 8, "serve_seq": 9216})");
  const Plan vllm = plan_for(m, R"({"engine": "vllm", "tp": 8, "serve_seq": 9216})");
  const int64_t stored = m.stored_weights->bytes;
  // Fp8MoEMethod.create_weights: float32 containers (4 bytes a scale where the file has 1) on CUDA.
  CHECK(row(sglang, "h200").budget.weights_bytes == (stored + 3 * scales + 7) / 8);
  CHECK(row(sglang, "b200").budget.weights_bytes == (stored + 3 * scales + 7) / 8);
  // ROCm (aiter): float8_e8m0fnu, the stored byte; vLLM is left as stored.
  CHECK(row(sglang, "mi300x").budget.weights_bytes == (stored + 7) / 8);
  CHECK(row(vllm, "h200").budget.weights_bytes == (stored + 7) / 8);
  bool noted = false;
  for (const auto& n : sglang.serving().notes) noted = noted || n.find("48356130816 UE8M0 scales") != std::string::npos;
  CHECK(noted);
  // A serve_dtype replaces the stored format, scales and all; a checkpoint without FP4 experts has none.
  const Plan fp8 = plan_for(m, R"({"engine": "sglang", "tp": 8, "serve_dtype": "fp8"})");
  const Plan vllm_fp8 = plan_for(m, R"({"engine": "vllm", "tp": 8, "serve_dtype": "fp8"})");
  CHECK(row(fp8, "h200").budget.weights_bytes == row(vllm_fp8, "h200").budget.weights_bytes);
  CHECK(trace_golden("deepseek-v3.json").stored_weights->fp4_expert_scales == 0);
}

TEST_CASE("GGUF bits per weight come from ggml's block structs", "[engines]") {
  // ggml-common.h: ggml_half is 2 bytes; QK4_0 = QK5_0 = QK8_0 = 32; QK_K = 256, K_SCALE_SIZE = 12.
  const double half = 2;
  CHECK(gguf_bits_per_weight(GgufType::q4_0) == (half + 32 / 2) * 8 / 32);            // 4.5
  CHECK(gguf_bits_per_weight(GgufType::q4_1) == (2 * half + 32 / 2) * 8 / 32);        // 5.0
  CHECK(gguf_bits_per_weight(GgufType::q5_0) == (half + 4 + 32 / 2) * 8 / 32);        // 5.5
  CHECK(gguf_bits_per_weight(GgufType::q5_1) == (2 * half + 4 + 32 / 2) * 8 / 32);    // 6.0
  CHECK(gguf_bits_per_weight(GgufType::q8_0) == (half + 32) * 8 / 32);                // 8.5
  CHECK(gguf_bits_per_weight(GgufType::q4_k_m) == (2 * half + 12 + 256 / 2) * 8 / 256);        // 4.5
  CHECK(gguf_bits_per_weight(GgufType::q5_k_m) == (2 * half + 12 + 256 / 8 + 256 / 2) * 8 / 256);  // 5.5
  CHECK(gguf_bits_per_weight(GgufType::q6_k) == (256 / 2 + 256 / 4 + 256 / 16 + half) * 8 / 256);  // 6.5625
  CHECK(gguf_bits_per_weight(GgufType::q6_k) == 6.5625);
  CHECK(gguf_bits_per_weight(GgufType::f16) == 16);
}

TEST_CASE("A Q4_K_M file of Llama-3-8B mixes Q4_K, Q6_K and F32 as llama-quantize does", "[engines]") {
  const Model m = trace_golden("meta-llama-3-8b.json");
  // llama_tensor_get_type_impl for Q4_K_M: output.weight Q6_K; attn_v and ffn_down Q6_K on the
  // layers use_more_bits picks; every other matrix Q4_K (4096 and 14336 divide by 256); norms F32.
  auto more = [](int64_t i, int64_t n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; };
  const double q4k = 144.0 / 256, q6k = 210.0 / 256;
  const int64_t h = 4096, kv = 1024, ff = 14336, vocab = 128256, L = 32;
  double bytes = double(vocab * h) * q4k + double(vocab * h) * q6k + double(h) * 4;  // embedding, output, final norm
  for (int64_t i = 0; i < L; ++i) {
    const double v = more(i, L) ? q6k : q4k;
    bytes += double(h * h + kv * h + h * h + 2 * ff * h) * q4k;  // q, k, o, gate, up
    bytes += double(kv * h) * v + double(ff * h) * v;          // v, down
    bytes += double(2 * h) * 4;                                 // two norms
  }
  const GgufWeights w = gguf_weights(m, GgufType::q4_k_m, L, true);
  CHECK(double(w.total) == Approx(bytes).epsilon(1e-12));
  // On the card: everything but the input embedding (llama.cpp keeps it in host memory).
  CHECK(double(w.gpu) == Approx(bytes - double(vocab * h) * q4k).epsilon(1e-12));
  // -ngl 16: half the layers, no output.
  const GgufWeights half = gguf_weights(m, GgufType::q4_k_m, 16, false);
  CHECK(half.gpu < w.gpu / 2);
  CHECK(half.total == w.total);
}

TEST_CASE("An IQ3_M file of Llama-3.2-1B: IQ3_S, with Q4_K attn_v, attn_output and first ffn_down, Q6_K tied output", "[engines]") {
  const Model m = llama_3_2_1b();
  // llama_tensor_get_type_impl, LLAMA_FTYPE_MOSTLY_IQ3_M (base IQ3_S, 110 B per 256): the tied
  // token_embd takes the output's type, Q6_K (2048 divides by 256); attn_v Q4_K; attn_output Q4_K
  // (not 8 experts); ffn_down Q4_K on the first n_layer / 8 = 2 layers; q, k, gate, up IQ3_S.
  const double iq3s = 110.0 / 256, q4k = 144.0 / 256, q6k = 210.0 / 256;
  const int64_t h = 2048, kv = 512, ff = 8192, vocab = 128256, L = 16;
  const double embd = double(vocab * h) * q6k;
  double bytes = embd + double(h) * 4;  // token_embd, final norm
  for (int64_t i = 0; i < L; ++i) {
    bytes += double(h * h + kv * h + 2 * ff * h) * iq3s;  // q, k, gate, up
    bytes += double(kv * h + h * h) * q4k;              // v, o
    bytes += double(ff * h) * (i < L / 8 ? q4k : iq3s);  // down
    bytes += double(2 * h) * 4;                          // two norms
  }
  const GgufWeights w = gguf_weights(m, GgufType::iq3_m, L, true);
  CHECK(double(w.total) == Approx(bytes).epsilon(1e-12));
  // The card holds everything plus the output: token_embd again (TENSOR_DUPLICATED).
  CHECK(double(w.gpu) == Approx(bytes).epsilon(1e-12));
  CHECK(double(gguf_weights(m, GgufType::iq3_m, L, false).gpu) == Approx(bytes - embd - double(h) * 4).epsilon(1e-12));
  // IQ3_S: a GQA of 32 / 8 = 4 takes attn_v to Q4_K; attn_output and ffn_down stay IQ3_S.
  double s = embd + double(h) * 4;
  for (int64_t i = 0; i < L; ++i) s += double(h * h + kv * h + h * h + 3 * ff * h) * iq3s + double(kv * h) * q4k + double(2 * h) * 4;
  CHECK(double(gguf_weights(m, GgufType::iq3_s, L, true).total) == Approx(s).epsilon(1e-12));
  CHECK(gguf_bits_per_weight(GgufType::iq3_m) == 3.4375);
}

TEST_CASE("IQ3_S falls back to IQ4_NL on rows that 256 does not divide", "[engines]") {
  // A small llama-shaped config, 288 wide (tensor_type_fallback reads ncols, ne[0]: the input width).
  const Model m = trace_json(nlohmann::json::parse(R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
    "hidden_size": 288, "intermediate_size": 768, "num_hidden_layers": 8, "num_attention_heads": 6,
    "num_key_value_heads": 6, "vocab_size": 32000, "max_position_embeddings": 2048, "tie_word_embeddings": false,
    "torch_dtype": "float32"})"));
  // 288 % 256 != 0: IQ3_S -> IQ4_NL (18 B per 32); the output (ncols 288) Q8_0; ffn_down (ncols 768) IQ3_S,
  // but Q4_K on the first 8 / 8 = 1 layer; attn_v / attn_output Q4_K -> Q5_0 (22 B per 32) at 288 columns.
  const double nl = 18.0 / 32, q8 = 34.0 / 32, q50 = 22.0 / 32, iq3s = 110.0 / 256, q4k = 144.0 / 256;
  const int64_t h = 288, ff = 768, vocab = 32000, L = 8;
  double bytes = double(vocab * h) * nl + double(vocab * h) * q8 + double(h) * 4;
  for (int64_t i = 0; i < L; ++i) {
    bytes += double(2 * h * h + 2 * ff * h) * nl;      // q, k, gate, up
    bytes += double(2 * h * h) * q50;                  // v, o
    bytes += double(h * ff) * (i < L / 8 ? q4k : iq3s);  // down: 768 columns
    bytes += double(2 * h) * 4;
  }
  CHECK(double(gguf_weights(m, GgufType::iq3_m, L, true).total) == Approx(bytes).epsilon(1e-12));
}

TEST_CASE("llama.cpp: -ctk/-ctv q8_0 store the KV cache at 8.5 bits", "[engines]") {
  const Model m = trace_golden("meta-llama-3-8b.json");
  const Plan f16 = plan_for(m, R"({"engine": "llamacpp", "serve_seq": 8192})");
  const Plan q8 = plan_for(m, R"({"engine": "llamacpp", "serve_seq": 8192, "cache_type_k": "q8_0", "cache_type_v": "q8_0"})");
  const int64_t per_token_f16 = 2 * 32 * 8 * 128 * 2;
  CHECK(row(f16, "h100-sxm").budget.block_bytes == per_token_f16);
  CHECK(row(q8, "h100-sxm").budget.block_bytes == int64_t(std::ceil(double(2 * 32 * 8 * 128) * 34.0 / 32)));
  CHECK(row(q8, "h100-sxm").budget.concurrency > row(f16, "h100-sxm").budget.concurrency);
}

TEST_CASE("llama.cpp without flash attention holds one layer's f32 scores over all of -c (s0170)", "[engines]") {
  // llama-graph.cpp: the KQ mask, n_kv x n_ubatch, f16 under -fa and f32 without; without -fa one
  // layer's kq = mul_mat(k, q), f32 n_kv x n_ubatch x n_head (softmax in place). Llama-3.2-1B at its
  // 131072-token default context, n_ubatch 512, 32 query heads.
  const Model m = llama_3_2_1b();
  constexpr int64_t MiB = int64_t(1) << 20, ctx = 131072, ub = 512;
  CHECK(llamacpp_attention_buffer(m, ctx, ub, false) == ctx * ub * 4 + ctx * ub * 32 * 4);  // 256 + 8192 MiB
  CHECK(llamacpp_attention_buffer(m, ctx, ub, false) == 8448 * MiB);
  CHECK(llamacpp_attention_buffer(m, ctx, ub, true) == 128 * MiB);
  // The reported OOM (llama.cpp #10052): the IQ3_M file on an 8 GiB card with -fa off; with -fa
  // (the default) one slot fits. Per slot: f16 K and V of 16 layers x 8 heads x 64, and the buffer.
  const nlohmann::json base = {{"mode", "serve"}, {"engine", "llamacpp"}, {"gguf", "iq3_m"}, {"serve_seq", ctx},
                                {"card", "custom"}, {"custom_memory_bytes", int64_t(8) << 30}};
  auto custom_row = [&](nlohmann::json options) {  // the custom card exists through the Planner only
    const nlohmann::json r = plan(kLlama32_1B, options);
    for (const auto& x : r.at("serving").at("rows"))
      if (x.at("card") == "custom") return x;
    FAIL("no custom card row");
    return nlohmann::json();
  };
  nlohmann::json eager = base;
  eager["attention"] = "eager";
  const nlohmann::json off = custom_row(eager), on = custom_row(base);
  const int64_t kv = ctx * 16 * 2 * 8 * 64 * 2;  // 4 GiB
  CHECK(off.at("compute_bytes_per_sequence") == 8448 * MiB);
  CHECK(off.at("sequence_bytes") == kv + 8448 * MiB);
  CHECK(off.at("knobs").at("flash_attention") == false);
  CHECK(off.at("fits") == false);
  CHECK(on.at("knobs").at("flash_attention") == true);
  CHECK(on.at("sequence_bytes") == kv + 128 * MiB);
  CHECK(on.at("concurrency") == 1);
  // llama.cpp refuses a quantized V cache without flash attention; so does cardfit.
  nlohmann::json q8v = eager;
  q8v["cache_type_v"] = "q8_0";
  const nlohmann::json refused = plan(kLlama32_1B, q8v);
  CHECK(refused.at("ok") == false);
  CHECK(refused.at("error").at("code") == "options.value");
  CHECK(refused.at("error").at("path") == "cache_type_v");
  // A sliding layer's cells are its window cache, n_swa + n_ubatch (llama-kv-cache-iswa.cpp):
  // Gemma 2 9B alternates 4096-token windows with full layers, 16 query heads.
  const Model g = trace_golden("gemma-2-9b-it.json");
  CHECK(llamacpp_attention_buffer(g, 8192, ub, false) == 8192 * ub * 4 + (4096 + ub) * ub * 4 + 8192 * ub * 16 * 4);
  CHECK(llamacpp_attention_buffer(g, 2048, ub, true) == 2 * (2048 * ub * 2));  // both caches hold all 2048
}

TEST_CASE("Tensor parallelism halves weights and KV heads per rank, and replicates heads past their count", "[engines]") {
  const Model m = trace_golden("meta-llama-3-8b.json");
  const Plan one = plan_for(m, R"({"engine": "vllm", "serve_seq": 8192})");
  const Plan two = plan_for(m, R"({"engine": "vllm", "serve_seq": 8192, "tp": 2})");
  const Plan sixteen = plan_for(m, R"({"engine": "vllm", "serve_seq": 8192, "tp": 16})");
  const EngineBudget& b1 = row(one, "h100-sxm").budget;
  const EngineBudget& b2 = row(two, "h100-sxm").budget;
  CHECK(b2.weights_bytes == (b1.weights_bytes + 1) / 2);
  CHECK(b2.block_bytes == b1.block_bytes / 2);
  CHECK_FALSE(b2.kv_replicated);
  CHECK(b2.non_torch_bytes == b1.non_torch_bytes + (8 << 20));  // the custom all-reduce buffer
  // 8 KV heads over 16 ranks: each rank keeps one whole head (vLLM: max(1, kv_heads / tp)).
  const EngineBudget& b16 = row(sixteen, "h100-sxm").budget;
  CHECK(b16.kv_replicated);
  CHECK(b16.block_bytes == b1.block_bytes / 8);
  CHECK(sixteen.serving().tp == 16);
}

TEST_CASE("The decode roofline reads the weights and the batch's KV cache at the card's bandwidth", "[engines]") {
  const Model m = trace_golden("meta-llama-3-8b.json");
  const Plan p = plan_for(m, R"({"engine": "vllm", "serve_seq": 8192, "prompt_tokens": 1000, "output_tokens": 200})");
  const ServingRow& r = row(p, "h100-sxm");
  const Card& card = card_of("h100-sxm");
  REQUIRE(r.priced);
  const int64_t batch = r.budget.workload_batch;
  const int64_t context = 1000 + 200 / 2;
  const double kv = double(context) * 2 * 32 * 8 * 128 * 2;  // K and V of every layer, bf16
  const double bytes = double(r.budget.weights_bytes) + double(batch) * kv;
  CHECK(r.decode_bytes_per_step == Approx(bytes).epsilon(1e-12));
  REQUIRE(r.memory_bound);
  CHECK(r.decode_step_seconds == Approx(bytes / (card.mem_bw_gbps * 1e9 * 0.8)).epsilon(1e-12));
  // Output tokens per card: the batch's outputs over one round of prefill and decode.
  const double prefill = double(batch) * 1000 * r.prefill_seconds_per_token;
  const double round = prefill + 200 * r.decode_step_seconds;
  CHECK(r.output_tokens_per_second == Approx(double(batch) * 200 / round).epsilon(1e-12));
  CHECK(r.usd_per_m_output == Approx(*card.price(p.options) / 3600 * round / (double(batch) * 200) * 1e6).epsilon(1e-12));
  // A larger bandwidth efficiency makes the memory-bound step faster in proportion.
  const Plan fast = plan_for(m, R"({"engine": "vllm", "serve_seq": 8192, "prompt_tokens": 1000, "output_tokens": 200, "bandwidth_efficiency": 0.4})");
  CHECK(row(fast, "h100-sxm").decode_step_seconds == Approx(2 * r.decode_step_seconds).epsilon(1e-12));
}

TEST_CASE("The hf engine is the serve mode: its concurrency is the card solver's serve batch", "[engines]") {
  const Model m = trace_golden("meta-llama-3-8b.json");
  const Plan p = plan_for(m, "{}");
  REQUIRE(p.serving().engine == Engine::hf);
  for (size_t i = 0; i < p.cards.size(); ++i) {
    CHECK(p.serving().rows[i].budget.concurrency == p.cards[i].max_batch[int(Mode::serve)]);
    CHECK(p.serving().rows[i].budget.weights_bytes == p.modes[int(Mode::serve)].components.front().bytes);
  }
}

TEST_CASE("Choosing an engine changes the serving section only", "[engines]") {
  const std::string config = golden_file("meta-llama-3-8b.json").at("config").dump();
  auto strip = [](nlohmann::json r) {  // the Markdown twin carries the serving section too
    r.erase("serving");
    r.erase("markdown");
    return r;
  };
  const nlohmann::json base = plan(config, nlohmann::json::object());
  REQUIRE(base.value("ok", false));
  CHECK(base["serving"]["engine"] == "hf");
  CHECK(plan(config, {{"engine", "hf"}}) == base);
  for (const char* e : {"vllm", "sglang", "tgi", "llamacpp"}) {
    const nlohmann::json r = plan(config, {{"engine", e}, {"tp", 2}, {"prompt_tokens", 512}});
    REQUIRE(r.value("ok", false));
    CHECK(r["serving"]["engine"] == e);
    CHECK(strip(r) == strip(base));
  }
}

TEST_CASE("Serving options are refused out of range with the option as path", "[engines]") {
  const std::string config = golden_file("meta-llama-3-8b.json").at("config").dump();
  for (const auto& bad : {nlohmann::json{{"engine", "ollama"}}, nlohmann::json{{"tp", 0}},
                          nlohmann::json{{"gpu_memory_utilization", 1.5}}, nlohmann::json{{"gguf", "q3_k"}},
                          nlohmann::json{{"cache_type_k", "q6_k"}}}) {
    const nlohmann::json r = plan(config, bad);
    CHECK_FALSE(r.value("ok", true));
    CHECK(r["error"]["code"] == "options.value");
    CHECK(r["error"]["path"] == bad.begin().key());
  }
}
}  // namespace engines_test

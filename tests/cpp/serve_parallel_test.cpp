// LitGPT's generation over several devices (core/plan/serve_parallel.cpp) against numbers written
// out by hand from the scripts' code for Llama-2-70B (8192 hidden, 80 layers, 64 heads, 8 query
// groups of 128, 28672 MLP, 32000 vocabulary) at max_returned_tokens 265:
//   litgpt@51d5328 generate/sequentially.py: layers_per_rank = n_layer / devices, block i on device
//     i // layers_per_rank, everything else (wte, ln_f, lm_head) on cuda:0; each block's KVCache
//     built by build_kv_cache(1, max_seq_length, ...) with no dtype: fp32 zeros of
//     (1, n_head, 265, 128) for k and v (heads = n_head since n_query_groups != 1);
//   generate/tp.py: attn.attn / attn.proj / mlp.fc_1 / fc_2 / proj split by the world size, the
//     rest replicated; n_head and n_query_groups divided by it before set_kv_cache under
//     fabric.init_tensor() (bf16), so at 8 devices one query group is left and the cache has 1 head;
//   bnb.nf4-dq: 0.5 byte per weight, an 8-bit absmax per 64 and an fp32 scale per 256 absmax, the
//     head quantized too; the prefill dequantizes the widest linear (the head) to fp16 and casts it
//     to bf16: 4 bytes per element.
#include <catch2/catch.hpp>

#include <string>

#include "arch/registry.hpp"
#include "config.hpp"
#include "error.hpp"
#include "plan/option_schema.hpp"
#include "plan/serve_parallel.hpp"
#include "test_util.hpp"

namespace serve_parallel_test {

using namespace cardfit;

namespace {
constexpr int64_t H = 8192, L = 80, NH = 64, KV = 8, HD = 128, I = 28672, V = 32000, S = 265;
const char* kLlama2_70b = R"({"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":8192,
  "intermediate_size":28672,"num_attention_heads":64,"num_hidden_layers":80,"num_key_value_heads":8,
  "max_position_embeddings":4096,"rms_norm_eps":1e-05,"vocab_size":32000,"tie_word_embeddings":false,
  "torch_dtype":"float16","hidden_act":"silu"})";

const Model& llama2_70b() {
  static const Model m = trace_model(Config::parse(kLlama2_70b));
  return m;
}
GenerateLayout layout(const std::string& extra) {
  return generate_layout(llama2_70b(), parse_options(R"({"stack":"litgpt","mode":"serve")" + extra + "}"), S);
}
// One layer's linear elements (q, k, v, o; gate, up, down) and its two norms.
constexpr int64_t kLinears = 2 * H * H + 2 * H * KV * HD + 3 * H * I;
constexpr int64_t kNorms = 2 * H;
constexpr int64_t kRoot = 2 * V * H + H;  // wte, lm_head, ln_f
int64_t nf4_dq(int64_t n) { return n / 2 + n / 64 + n / 64 / 256 * 4; }
}  // namespace

TEST_CASE("layer_split: device 0 holds its share of the layers and the root, fp32 caches first", "[serve_parallel]") {
  for (int64_t n : {2, 4, 5, 8}) {
    const auto g = layout(R"(,"serve_dtype":"bf16","serve_parallel":"layer_split","serve_devices":)" + std::to_string(n));
    REQUIRE(g.per_device.size() == size_t(n));
    const int64_t per = L / n;
    for (int64_t i = 0; i < n; ++i) {
      const auto& d = g.per_device[size_t(i)];
      CHECK(d.first_layer == i * per);
      CHECK(d.end_layer == (i + 1) * per);
      CHECK(d.root == (i == 0));
      CHECK(d.weights == 2 * (per * (kLinears + kNorms) + (i == 0 ? kRoot : 0)));
      // k and v of (1, n_head, 265, 128) per layer: fp32 as built, bf16 after the first forward
      CHECK(d.kv_build == per * 2 * NH * S * HD * 4);
      CHECK(d.kv == per * 2 * NH * S * HD * 2);
      CHECK(d.transient == 0);
    }
  }
}

TEST_CASE("layer_split nf4-dq: quantized head, the head's dequantized copies at prefill on device 0", "[serve_parallel]") {
  const auto g = layout(R"(,"serve_dtype":"nf4","double_quant":true,"serve_parallel":"layer_split","serve_devices":4)");
  const auto& d0 = g.per_device[0];
  const int64_t per = L / 4;
  const int64_t linears = nf4_dq(H * H) * 2 + nf4_dq(H * KV * HD) * 2 + nf4_dq(H * I) * 3;
  CHECK(d0.weights == per * (linears + 2 * kNorms) + 2 * V * H + nf4_dq(V * H) + 2 * H);
  CHECK(d0.transient == 4 * V * H);  // the head is the widest linear: 32000 x 8192 > 28672 x 8192
  CHECK_FALSE(d0.load_transient);
  CHECK(g.per_device[1].transient == 4 * H * I);  // no head there: an MLP projection
}

TEST_CASE("tp: linears sharded, the rest replicated, KV heads divided (one head left at 8)", "[serve_parallel]") {
  for (int64_t n : {2, 4, 8}) {
    const auto g = layout(R"(,"serve_dtype":"bf16","serve_parallel":"tp","serve_devices":)" + std::to_string(n));
    REQUIRE(g.per_device.size() == size_t(n));
    const int64_t heads = (KV / n == 1) ? 1 : NH / n;
    for (const auto& d : g.per_device) {
      CHECK(d.root);
      CHECK(d.first_layer == 0);
      CHECK(d.end_layer == L);
      CHECK(d.weights == 2 * (L * (kLinears / n + kNorms) + kRoot));
      CHECK(d.kv == L * 2 * heads * S * HD * 2);
      CHECK(d.kv_build == d.kv);  // built under fabric.init_tensor(): bf16 from the start
    }
  }
}

TEST_CASE("the plan's serve peak is device 0's, and serving.devices lists every device", "[serve_parallel]") {
  const auto r = plan(kLlama2_70b, {{"stack", "litgpt"}, {"mode", "serve"}, {"batch", 1}, {"serve_seq", S},
                                    {"serve_dtype", "bf16"}, {"serve_parallel", "layer_split"}, {"serve_devices", 4}});
  REQUIRE(r["serving"]["devices"].size() == 4);
  const int64_t peak0 = r["serving"]["devices"][0]["peak_bytes"].get<int64_t>();
  CHECK(r["plan"]["peak_bytes"].get<int64_t>() == peak0);
  for (const auto& d : r["serving"]["devices"]) CHECK(d["peak_bytes"].get<int64_t>() <= peak0);
  // device 0: its weights and fp32 caches (the prefill's working set is below the fp32 - bf16 gap)
  const int64_t w0 = 2 * (20 * (kLinears + kNorms) + kRoot), kv32 = 20 * 2 * NH * S * HD * 4;
  CHECK(peak0 - w0 - kv32 >= 0);
  CHECK(peak0 - w0 - kv32 <= int64_t(64) << 20);  // only the cuBLAS workspace besides
  CHECK(r["plan"]["peak_event"] == "KV cache allocated (fp32, before the first forward)");
  CHECK(r["serving"]["parallel"] == "layer_split");
}

TEST_CASE("serve_parallel refuses splits the scripts refuse, naming serve_devices", "[serve_parallel]") {
  auto code_path = [](const nlohmann::json& o) {
    nlohmann::json opts = {{"mode", "serve"}, {"stack", "litgpt"}};
    opts.update(o);
    const auto r = plan(kLlama2_70b, opts);
    return r.contains("error") ? r["error"]["code"].get<std::string>() + " " + r["error"]["path"].get<std::string>()
                               : std::string("ok");
  };
  CHECK(code_path({{"serve_parallel", "layer_split"}, {"serve_devices", 3}}) == "options.value serve_devices");
  CHECK(code_path({{"serve_parallel", "tp"}, {"serve_devices", 5}}) == "options.value serve_devices");
  CHECK(code_path({{"serve_parallel", "tp"}, {"serve_devices", 1}}) == "ok");  // the whole model on one device
  CHECK(code_path({{"serve_parallel", "tp"}, {"serve_devices", 4}, {"engine", "vllm"}}) == "options.value serve_parallel");
  CHECK(code_path({{"serve_parallel", "layer_split"}, {"serve_devices", 5}}) == "ok");
}
}  // namespace serve_parallel_test

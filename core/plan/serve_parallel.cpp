// See serve_parallel.hpp.
#include "serve_parallel.hpp"

#include <algorithm>
#include <string>

#include "../error.hpp"
#include "memory.hpp"

namespace cardfit {

namespace {
int64_t mul(int64_t a, int64_t b) { return checked_mul(a, b, "a memory term"); }
int64_t add(int64_t a, int64_t b) { return checked_add(a, b, "a memory term"); }

// generate/tp.py tensor_parallel: the attention's fused qkv and every MLP linear (each expert's
// too: "expert slicing across ranks") are split column- or row-wise; the embedding, the norms,
// a router and the head are replicated.
bool sharded(const Tensor& t) {
  return t.linear && t.layer >= 0 && (t.role == Role::attention || t.role == Role::mlp || t.role == Role::expert);
}
bool bnb_4bit(WeightDtype d) { return d == WeightDtype::nf4; }
bool holds(const GenerateDevice& d, int layer) {
  return layer < 0 ? d.root : (layer >= d.first_layer && layer < d.end_layer);
}
}  // namespace

bool uses_generate_layout(const Options& o) {
  return o.engine == Engine::hf && (o.stack == Stack::litgpt || o.serve_parallel != ServeParallel::none);
}

GenerateLayout generate_layout(const Model& m, const Options& opt, int64_t seq) {
  GenerateLayout g;
  g.applies = uses_generate_layout(opt);
  if (!g.applies) return g;
  g.litgpt = opt.stack == Stack::litgpt;
  g.parallel = opt.serve_parallel;
  const bool tp = g.parallel == ServeParallel::tp;
  const int64_t n = g.parallel == ServeParallel::none ? 1 : std::max<int64_t>(1, opt.serve_devices);
  g.devices = n;
  const int64_t layers = m.dims.layers;
  // sequentially.py layer_to_device: block i on device i // (n_layer / devices); everything that
  // is not a block (wte, ln_f, lm_head, the rope and mask caches) on the root device, cuda:0.
  const int64_t share = tp || n == 1 ? layers : layers / n;
  for (int64_t i = 0; i < n; ++i) {
    GenerateDevice d;
    d.root = tp || i == 0;
    d.first_layer = tp || n == 1 ? 0 : i * share;
    d.end_layer = tp || n == 1 ? layers : (i + 1) * share;
    g.per_device.push_back(d);
  }

  // Weights. A quantized checkpoint served as stored: its bytes shared out by parameter count.
  const std::optional<StoredWeights> stored = opt.serve_dtype_set ? std::nullopt : m.stored_weights;
  const double total_params = double(std::max<int64_t>(1, m.parameter_count()));
  // LitGPT quantizes every nn.Linear, the head included (lit_gpt/utils.py quantization() swaps
  // torch.nn.Linear while the GPT is built; Lightning's BitsandbytesPrecision converts every
  // Linear when ignore_modules is empty, as sequentially.py and tp.py leave it).
  const bool quantize_head = g.litgpt;
  const bool quantized = !stored && (bnb_4bit(opt.serve_dtype) || opt.serve_dtype == WeightDtype::int8);
  std::vector<int64_t> widest(size_t(n), 0);
  for (const auto& tensor : m.tensors) {
    // LitGPT's GPT builds lm_head and wte as two parameters and never ties them (lit_gpt/model.py
    // GPT.__init__ at both commits): a head the checkpoint ties is loaded as a second copy, an
    // nn.Linear like the others.
    const bool own_head = g.litgpt && tensor.role == Role::head;
    if (!tensor.tied_to.empty() && !own_head) continue;
    Tensor t = tensor;
    if (own_head && t.shape.size() == 2) t.linear = true;
    const int64_t elements = tp && sharded(t) ? t.each() / n : t.each();  // one copy's
    const int64_t bytes = stored ? mul(int64_t(double(stored->bytes) * double(elements) / total_params), t.copies)
                                 : mul(served_weight_bytes(t, elements, opt, quantize_head), t.copies);
    for (int64_t i = 0; i < n; ++i) {
      GenerateDevice& d = g.per_device[size_t(i)];
      if (!holds(d, t.layer)) continue;
      d.weights = add(d.weights, bytes);
      if (quantized && t.linear && (quantize_head || t.role != Role::head))
        widest[size_t(i)] = std::max(widest[size_t(i)], elements);
    }
  }

  // KV cache per sequence. LitGPT: build_kv_cache gives k and v (1, heads, max_seq_length,
  // head_size) with heads = 1 if n_query_groups == 1 else n_head (the keys are expanded to every
  // query head before the cache: GQA caches n_head heads); tp.py divides n_head and
  // n_query_groups by the devices first. Other stacks: the model's own cache per layer
  // (cache_dim), split over tp ranks.
  const int64_t kvb = kv_bytes_per_element(opt);
  const int64_t heads = tp ? m.dims.heads / n : m.dims.heads;
  const int64_t groups = tp ? m.dims.kv_heads / n : m.dims.kv_heads;
  const int64_t litgpt_elems = mul(groups == 1 ? 1 : heads, mul(m.dims.head_dim, 2));
  // sequentially.py builds each block's cache with build_kv_cache(1, max_seq_length, ...) and no
  // dtype, outside Fabric's precision context: torch's default fp32; KVCache.forward casts it to
  // the activation dtype on the first forward (self.k = self.k.to(k.dtype)). base.py (2023-07,
  // inside the forward) and tp.py (under fabric.init_tensor()) allocate it in the activation dtype.
  const int64_t build_bytes = g.litgpt && g.parallel == ServeParallel::layer_split ? 4 : kvb;
  for (const auto& b : m.blocks) {
    if (b.layer < 0) continue;
    for (const auto& node : b.nodes) {
      if (node.op != Op::attention || !node.attn.causal || node.attn.cross) continue;
      const int64_t held = g.litgpt ? seq : (node.attn.window > 0 ? std::min(node.attn.window, seq) : seq);
      const int64_t elems = g.litgpt ? litgpt_elems : (tp ? node.attn.cache_dim / n : node.attn.cache_dim);
      for (auto& d : g.per_device)
        if (holds(d, b.layer)) {
          d.kv = add(d.kv, mul(held, mul(elems, kvb)));
          d.kv_build = add(d.kv_build, mul(held, mul(elems, build_bytes)));
        }
    }
  }

  // bitsandbytes transients of the widest quantized linear a device holds (LitGPT only: the
  // Hugging Face path keeps the head unquantized and is planned as before).
  if (g.litgpt)
    for (int64_t i = 0; i < n; ++i) {
      GenerateDevice& d = g.per_device[size_t(i)];
      if (bnb_4bit(opt.serve_dtype)) {
        // A prompt of more than one token runs MatMul4Bit.forward (bitsandbytes 0.40.0-0.42.0
        // autograd/_functions.py: F.dequantize_4bit(B, state).to(A.dtype)): the weight dequantized
        // in its quant_state dtype, fp16 (Params4bit.cuda and Lightning's _Linear4bit.quantize
        // quantize a .half() copy), then cast to the bf16 activations: 2 + 2 bytes per element.
        d.transient = mul(widest[size_t(i)], 4);
      } else if (opt.serve_dtype == WeightDtype::int8) {
        // lit-gpt quantize/bnb.py InferenceLinear8bitLt._quantize_weight, on load: a CUDA fp16
        // copy of the weight and double_quant's row- and column-major int8 results (CB, CBt), while
        // the layer's previous CB is still held: 2 + 1 + 1 bytes per element.
        d.transient = mul(widest[size_t(i)], 4);
        d.load_transient = true;
      }
    }
  return g;
}

int64_t generate_device_peak(const GenerateDevice& d, int64_t batch, int64_t work_per_sample, int64_t logits_per_sample,
                             int64_t workspace) {
  const int64_t held = add(d.weights, workspace);
  const int64_t built = add(held, mul(batch, d.kv_build));
  int64_t prefill = add(held, mul(batch, add(d.kv, add(work_per_sample, d.root ? logits_per_sample : 0))));
  int64_t load = 0;
  if (d.load_transient) load = add(d.weights, d.transient);
  else prefill = add(prefill, d.transient);
  return std::max({built, prefill, load, add(held, mul(batch, d.kv))});
}

void check_serve_parallel(const Model& m, const Options& o) {
  if (o.serve_parallel == ServeParallel::none) return;
  if (o.engine != Engine::hf)
    throw Error(ErrorCode::option_value,
                "Option serve_parallel applies to the hf engine (generation scripts); the other engines split by tp.",
                "serve_parallel");
  // One device is a valid run of either script (the whole model on cuda:0).
  const int64_t n = o.serve_devices;
  if (o.serve_parallel == ServeParallel::layer_split) {
    // sequentially.py: "Only balanced partitioning is implemented: n_layer=..., devices ..."
    if (m.dims.layers % n != 0)
      throw Error(ErrorCode::option_value,
                  "Option serve_devices: layer_split needs the " + std::to_string(m.dims.layers) +
                      " layers to divide evenly by the devices (LitGPT's balanced partitioning), got " + std::to_string(n) + ".",
                  "serve_devices");
    return;
  }
  // tp.py tensor_parallel_linear: "This linear's out_features/in_features value ... is not evenly
  // divisible by the world size"; the heads and query groups are divided by it too.
  std::string bad;
  if (m.dims.heads % n != 0) bad = "the " + std::to_string(m.dims.heads) + " attention heads";
  else if (m.dims.kv_heads % n != 0) bad = "the " + std::to_string(m.dims.kv_heads) + " key/value heads";
  else
    for (const auto& t : m.tensors)
      if (sharded(t) && t.shape.size() == 2 && (t.shape[0] % n != 0 || t.shape[1] % n != 0)) {
        bad = t.name + " " + std::to_string(t.shape[0]) + " x " + std::to_string(t.shape[1]);
        break;
      }
  if (!bad.empty())
    throw Error(ErrorCode::option_value,
                "Option serve_devices: tp needs " + bad + " to divide evenly by the devices, got " + std::to_string(n) + ".",
                "serve_devices");
}

}  // namespace cardfit

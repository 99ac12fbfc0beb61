// FLOPs and saved activations per op, from what PyTorch actually does: which tensors each op's
// backward formula keeps (tools/autograd/derivatives.yaml; codegen saves an input only when the
// other input of the formula needs a gradient), which dtypes torch.autocast produces (its fp32
// list: softmax, log_softmax, layer_norm, pow, cross_entropy...; its cache of weight casts), and
// the module code of Hugging Face transformers (RMSNorm upcast, eager softmax in fp32, repeat_kv
// before SDPA), PEFT (LoRA dropout per adapter) and bitsandbytes (Linear4bit casts back to the
// input dtype). The rules, one by one with their sources: docs/memory-model.md.
#include "graph_costs.hpp"

#include <algorithm>
#include <cctype>

namespace cardfit {

int64_t compute_bytes(Precision p) { return p == Precision::fp32 ? 4 : 2; }

namespace {
int64_t mul(int64_t a, int64_t b) { return checked_mul(a, b, "saved activations"); }
int64_t add(int64_t a, int64_t b) { return checked_add(a, b, "saved activations"); }

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// PEFT matches target_modules by module-name suffix at a dot boundary.
bool name_matches(const std::string& name, const std::vector<std::string>& targets) {
  for (const auto& t : targets)
    if (name == t || ends_with(name, "." + t)) return true;
  return false;
}
}  // namespace

Dropouts model_dropouts(const Model& m, const Options& opt) {
  Dropouts d;
  if (opt.dropout) {
    d.hidden = d.attention = d.embedding = *opt.dropout;
    d.activation = m.model_type == "t5" || m.model_type == "mt5" ? *opt.dropout : 0;
    return d;
  }
  // Published defaults of the configuration classes (and of the checkpoints that override none).
  const std::string& t = m.model_type;
  if (t == "gpt2" || t == "gpt_bigcode" || t == "bert" || t == "roberta" || t == "xlm-roberta" ||
      t == "electra" || t == "distilbert" || t == "camembert") {
    d.hidden = d.attention = d.embedding = 0.1;
  } else if (t == "t5" || t == "mt5") {
    d.hidden = d.attention = d.embedding = d.activation = 0.1;
  } else if (t == "bart" || t == "mbart" || t == "marian" || t == "opt") {
    d.hidden = d.embedding = 0.1;  // attention_dropout and activation_dropout default to 0
  }
  return d;
}

StepSetup make_setup(const Model& m, const Options& opt, Mode mode) {
  StepSetup s;
  s.mode = mode;
  s.options = &opt;
  s.images = images_per_sample(m, opt);
  s.attention = opt.attention;
  s.dropout = model_dropouts(m, opt);
  if (mode == Mode::serve) {
    s.train = false;
    s.autocast = false;
    const int w = opt.serve_dtype == WeightDtype::fp32 ? 4 : 2;
    s.compute = s.master = s.base = s.stream = s.norm_param = w;
    s.train_base = false;
    s.dropout = Dropouts{};
    return s;
  }
  const Precision p = opt.precision;
  s.autocast = p != Precision::fp32 && opt.autocast;
  s.compute = int(compute_bytes(p));
  // Without autocast a mixed-precision engine casts the model itself (DeepSpeed: 16-bit weights,
  // fp32 master copies inside the optimizer, counted with its states).
  s.master = p == Precision::bf16 || (!s.autocast && p != Precision::fp32) ? 2 : 4;
  s.grad_ckpt = opt.grad_ckpt;
  s.train_base = mode == Mode::full;
  s.lora = mode == Mode::lora || mode == Mode::qlora;
  s.lora_rank = opt.lora_rank;
  s.lora_dropout = opt.lora_dropout;
  if (mode == Mode::full) {
    s.base = s.stream = s.norm_param = s.master;
  } else if (mode == Mode::lora) {
    s.base = s.stream = s.norm_param = p == Precision::fp32 ? 4 : 2;
  } else {
    s.quantized = true;
    s.quant = opt.qlora_quant;
    // prepare_model_for_kbit_training casts every non-quantized fp16/bf16 parameter (embeddings,
    // norms, the head) to fp32; PEFT skips that for GPTQ models.
    s.base = s.stream = s.norm_param = opt.kbit_upcast && opt.qlora_quant != QuantKind::gptq ? 4 : 2;
  }
  return s;
}

bool is_lora_target(const Node& n, const Options& opt) {
  if (n.op != Op::linear) return false;
  if (n.experts > 1 && !n.lora) return false;  // fused expert parameters are not nn.Linear
  if (opt.lora_targets.empty()) return n.lora;
  return name_matches(n.name, opt.lora_targets);
}

bool is_saved_module(const Node& n, const Options& opt) {
  return !opt.modules_to_save.empty() && name_matches(n.name, opt.modules_to_save);
}

// bitsandbytes replaces nn.Linear modules only: not fused expert parameters, a vision tower's
// patch Conv2d, or a bare parameter used in a matmul (Gemma 3's projector, MHA's in_proj).
bool is_quantized_linear(const Node& n) {
  return n.op == Op::linear && !(n.experts > 1 && !n.lora) && n.detail != "patch_conv2d" &&
         n.detail != "parameter_matmul" && n.detail != "conv1d";
}

bool has_vision(const Model& m) {
  for (const auto& b : m.blocks)
    if (b.domain == Domain::vision) return true;
  return false;
}

int64_t images_per_sample(const Model& m, const Options& opt) {
  if (opt.images) return *opt.images;
  return has_vision(m) ? 1 : 0;
}

int64_t block_tokens(const Model& m, size_t block, int64_t seq, int64_t decoder_seq, int64_t images) {
  const Block& b = m.blocks[block];
  if (b.domain == Domain::vision) return checked_mul(images, b.tokens_per_image, "image tokens");
  if (b.domain == Domain::audio) return b.tokens_per_image;  // one fixed window per sample
  if (!m.dims.encoder_decoder || decoder_seq <= 0) return seq;
  return b.name.find("decoder") != std::string::npos ? decoder_seq : seq;
}

int64_t node_tokens(const Model& m, size_t block, size_t node, int64_t seq, int64_t decoder_seq, int64_t images) {
  const Block& b = m.blocks[block];
  const Node& n = b.nodes[node];
  if (b.domain == Domain::vision && n.tokens_per_image > 0) return checked_mul(images, n.tokens_per_image, "image tokens");
  if (b.domain == Domain::audio && n.tokens_per_image > 0) return n.tokens_per_image;
  return checked_mul(block_tokens(m, block, seq, decoder_seq, images), std::max<int64_t>(1, n.tokens_scale), "tokens");
}

int64_t attention_context(const Model& m, size_t block, const Node& n, int64_t seq, int64_t decoder_seq) {
  if (n.attn.cross) return n.attn.context > 0 ? n.attn.context : seq;
  const Block& b = m.blocks[block];
  if (b.domain != Domain::text) return b.tokens_per_image;
  return block_tokens(m, block, seq, decoder_seq, 0);
}

bool checkpointable(const Block& b) { return b.layer >= 0 || b.kind == "vision_layer"; }

std::vector<char> recorded_blocks(const Model& m, const Options& opt, Mode mode, int64_t images) {
  std::vector<char> out(m.blocks.size(), 0);
  if (mode == Mode::serve) return out;
  const bool lora = mode == Mode::lora || mode == Mode::qlora;
  bool vision_grad = false;  // a vision block at or before this one holds a trainable parameter
  for (size_t bi = 0; bi < m.blocks.size(); ++bi) {
    const Block& b = m.blocks[bi];
    if (b.domain == Domain::text) {
      out[bi] = 1;
      continue;
    }
    for (const auto& n : b.nodes)
      if ((mode == Mode::full && n.params > 0) || (lora && is_lora_target(n, opt)) || is_saved_module(n, opt))
        vision_grad = true;
    out[bi] = vision_grad && (images > 0 || b.domain == Domain::audio) && b.tokens_per_image > 0;
  }
  return out;
}

namespace {
// Average number of keys a query attends to over a sequence of `seq` tokens.
double attended_span(const AttentionGeom& g, int64_t seq) {
  const double s = double(seq);
  if (g.cross) return s;
  // A bidirectional window (ModernBERT's local layers, Qwen2.5-VL's windowed vision blocks): each
  // token attends to at most `window` tokens.
  if (!g.causal) return g.window > 0 ? std::min(s, double(g.window)) : s;
  if (g.window > 0 && g.window < seq) {
    const double w = double(g.window);
    return (w * (w + 1) / 2 + (s - w) * w) / s;  // ramp up to the window, then constant
  }
  return (s + 1) / 2;
}
}  // namespace

double forward_flops_per_token(const Node& n, int64_t seq) {
  switch (n.op) {
    case Op::linear:
    case Op::head:
    case Op::router:
      return 2.0 * double(n.in) * double(n.out) * double(n.active);
    case Op::attention: {
      const AttentionGeom& g = n.attn;
      // QK^T and PV: 2 FLOPs per multiply-add each.
      return 2.0 * double(g.heads) * double(g.head_dim + g.v_head_dim) * attended_span(g, seq);
    }
    default:
      return 0;
  }
}

namespace {
// A tensor of the forward: per-token width (elements), bytes per element, identity, and the
// tokens per sample it spans (0: the block's).
struct Ten {
  int id = 0;
  int64_t width = 0;
  int bytes = 2;
  int64_t tokens = 0;
};

class Walk {
 public:
  Walk(int64_t tokens, BlockCost& out) : tokens_(tokens), node_tokens_(tokens), out_(out) {}
  // A new tensor, made by the current node (over its tokens).
  Ten fresh(int64_t width, int bytes) { return Ten{++next_, width, bytes, node_tokens_}; }
  // Keeps `t` for backward (once, however many ops save it).
  void save(const Ten& t) {
    const int64_t key = int64_t(t.id) * 16 + t.bytes;
    if (std::find(keys_.begin(), keys_.end(), key) != keys_.end()) return;
    keys_.push_back(key);
    raw(mul(mul(t.width, t.tokens > 0 ? t.tokens : tokens_), t.bytes));
  }
  // Bytes per sample kept for backward that no other op shares.
  void raw(int64_t bytes) {
    out_.saved = add(out_.saved, bytes);
    if (node_ < out_.node_saved.size()) out_.node_saved[node_] = add(out_.node_saved[node_], bytes);
  }
  void raw_per_token(int64_t bytes_per_token) { raw(mul(bytes_per_token, node_tokens_)); }
  // The node now running, and the tokens per sample of its output.
  void at(size_t node, int64_t tokens) {
    node_ = node;
    node_tokens_ = tokens;
  }

 private:
  int64_t tokens_;
  int64_t node_tokens_;
  BlockCost& out_;
  std::vector<int64_t> keys_;
  int next_ = 0;
  size_t node_ = 0;
};

std::string lower(std::string s) {
  for (auto& ch : s) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

bool is_qk_norm(const Node& n) {
  const std::string leaf = n.name.substr(n.name.rfind('.') + 1);
  return leaf == "q_norm" || leaf == "k_norm" || leaf == "q_layernorm" || leaf == "k_layernorm" ||
         contains(n.name, ".q_norm.") || contains(n.name, ".k_norm.");
}

// What an activation function keeps for its backward; returns the output tensor.
Ten activation(Walk& w, const Ten& x, int64_t width, const std::string& kind_in, const StepSetup& s) {
  const std::string kind = lower(kind_in);
  Ten src = x;
  src.width = std::max(src.width, width);
  if (kind == "relu" || kind == "tanh" || kind == "sigmoid" || kind == "relu2") {
    Ten out = w.fresh(width, x.bytes);
    if (s.train) w.save(out);  // their backward reads the output
    return out;
  }
  if (kind == "gelu_new" || kind == "gelu_fast" || kind == "gelu_python") {
    // transformers' NewGELUActivation: 0.5*x*(1+tanh(c*(x+0.044715*x^3))) in Python ops. pow is on
    // autocast's fp32 list, so under autocast x^3, tanh and the sum run in fp32. Saved: x (pow),
    // tanh's output, 0.5*x and 1+tanh (the final product).
    const int hi = s.autocast ? 4 : x.bytes;
    if (s.train) {
      w.save(s.autocast && x.bytes != 4 ? w.fresh(width, 4) : src);
      w.save(w.fresh(width, hi));
      w.save(w.fresh(width, x.bytes));
      w.save(w.fresh(width, hi));
    }
    return w.fresh(width, hi);
  }
  if (kind == "quick_gelu") {
    if (s.train) {
      w.save(src);
      w.save(w.fresh(width, x.bytes));  // sigmoid(1.702 x)
    }
    return w.fresh(width, x.bytes);
  }
  // gelu, gelu_pytorch_tanh, silu/swish, mish...: one fused op that keeps its input.
  if (s.train) w.save(src);
  return w.fresh(width, x.bytes);
}

// The dequantized copy of one quantized weight of `elements` while its linear runs (transient).
struct Dequant {
  int64_t forward = 0, backward = 0;
};
Dequant dequantized_bytes(QuantKind q, int64_t elements, int input_bytes) {
  switch (q) {
    case QuantKind::nf4:
    case QuantKind::fp4:
      // MatMul4Bit: dequantize_4bit(B) to 16 bit, in forward and again for grad_input.
      return {mul(elements, 2), mul(elements, 2)};
    case QuantKind::int8:
      // MatMul8bitLt multiplies the int8 weight directly; its backward dequantizes it to the
      // input's dtype (state.CB.to(ctx.dtype_A)).
      return {0, mul(elements, input_bytes)};
    case QuantKind::gptq:
      // AutoGPTQ's dequantize path also gathers fp16 scales and int zeros per weight.
      return {mul(elements, 8), mul(elements, 8)};
  }
  return {};
}

}  // namespace

BlockCost block_cost(const Model& m, size_t bi, const StepSetup& s, int64_t seq, int64_t decoder_seq) {
  const Block& b = m.blocks[bi];
  const auto& nodes = b.nodes;
  BlockCost out;
  out.node_saved.assign(nodes.size(), 0);
  const int64_t T = block_tokens(m, bi, seq, decoder_seq, s.images);
  const int64_t hidden = b.width > 0 ? b.width : m.dims.hidden > 0 ? m.dims.hidden : (nodes.empty() ? 0 : nodes.front().in);
  const int c = s.compute;
  const Options& opt = *s.options;
  Walk w(T, out);

  // The block's input: a vision block after another reads that block's tokens (Gemma 3's
  // projector pools the tower's 4096 patches into 256 tokens).
  const bool after_vision = b.domain == Domain::vision && bi > 0 && m.blocks[bi - 1].domain == Domain::vision;
  w.at(0, after_vision ? block_tokens(m, bi - 1, seq, decoder_seq, s.images) : T);
  Ten stream = w.fresh(hidden, s.stream);
  out.input = mul(mul(hidden, T), s.stream);
  Ten last = stream;
  std::vector<Ten> produced(nodes.size());
  const bool post_norm = !nodes.empty() && nodes.back().op == Op::norm && b.layer >= 0 && nodes.front().op != Op::norm;
  int64_t widest = hidden;  // most elements per token live at once inside one op (working set)
  int64_t eager_scores = 0; // heads × q × k of an eager attention (per sample)
  int64_t flash_accum = 0;  // per token: fp32 dq accumulator of a flash/SDPA backward
  bool embedded = false;

  auto find_source = [&](size_t i, int64_t width) -> Ten {
    if (i > 0) {
      const Node& prev = nodes[i - 1];
      if ((prev.op == Op::linear || prev.op == Op::head) && prev.in == nodes[i].in &&
          prev.experts == nodes[i].experts)
        return Ten{-1, 0, 0};  // shares the previous linear's input (resolved by the caller)
      if (prev.op != Op::residual_add && prev.op != Op::router && produced[i - 1].width == width)
        return produced[i - 1];
    }
    for (size_t j = i; j-- > 0;) {
      const Op op = nodes[j].op;
      if (op == Op::linear || op == Op::head || op == Op::router || op == Op::residual_add) continue;
      if (produced[j].width == width) return produced[j];
    }
    if (stream.width == width) return stream;
    return w.fresh(width, c);
  };

  std::vector<Ten> linear_input(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    const int64_t Tn = node_tokens(m, bi, i, seq, decoder_seq, s.images);
    w.at(i, Tn);
    switch (n.op) {
      case Op::embedding:
      case Op::position_embedding: {
        const bool trainable = s.train_base || is_saved_module(n, opt);
        if (s.train && trainable) w.raw_per_token(8);  // the int64 indices (embedding backward)
        const int eb = s.train_base ? s.master : s.base;
        last = embedded ? w.fresh(n.out, std::max(last.bytes, eb)) : w.fresh(n.out, eb);
        embedded = true;
        stream = last;
        produced[i] = last;
        break;
      }
      case Op::norm: {
        const bool next_residual = i + 1 < nodes.size() && nodes[i + 1].op == Op::residual_add;
        const bool after_stream = i == 0 || nodes[i - 1].op == Op::residual_add ||
                                  nodes[i - 1].op == Op::embedding || nodes[i - 1].op == Op::position_embedding;
        Ten in;
        bool qk = false;
        if (is_qk_norm(n)) {
          qk = true;
          // q/k norms act on the projection output: find the attention geometry that follows.
          int64_t width = n.in;
          // One module per head (StableLM's LayerNormPerHead) normalises one head's slice.
          for (size_t j = i + 1; j < nodes.size() && !contains(n.name, ".norms."); ++j)
            if (nodes[j].op == Op::attention) {
              const bool is_k = contains(n.name, "k_norm") || contains(n.name, "k_layernorm");
              width = (is_k ? nodes[j].attn.kv_heads : nodes[j].attn.heads) * nodes[j].attn.head_dim;
              break;
            }
          in = w.fresh(width, s.autocast ? c : s.base);
          if (s.quantized && s.autocast) in.bytes = s.stream;
        } else if (after_stream && !next_residual) {
          in = stream;
        } else {
          in = last;
        }
        const bool trainable = s.train_base || is_saved_module(n, opt);
        const bool rms = n.detail == "rmsnorm";
        Ten res;
        if (rms) {
          // HF RMSNorm: x.to(fp32); x * rsqrt(mean(x^2)); weight * that.to(input dtype).
          if (s.train) {
            w.save(in.bytes == 4 ? in : w.fresh(in.width, 4));
            if (trainable) w.save(w.fresh(in.width, in.bytes));
          }
          res = w.fresh(in.width, std::max(s.norm_param, in.bytes));
        } else {
          // F.layer_norm (autocast fp32 list): keeps its fp32 input, returns fp32.
          if (s.train) w.save(s.autocast && in.bytes != 4 ? w.fresh(in.width, 4) : in);
          res = w.fresh(in.width, s.autocast ? 4 : in.bytes);
        }
        produced[i] = res;
        if (qk) break;
        if (post_norm && after_stream) stream = res;
        last = res;
        break;
      }
      case Op::residual_add: {
        if (s.train && s.dropout.hidden > 0) w.raw_per_token(hidden);  // dropout mask, 1 byte each
        stream = w.fresh(hidden, std::max(stream.bytes, last.bytes));
        last = stream;
        produced[i] = stream;
        break;
      }
      case Op::linear:
      case Op::head:
      case Op::router: {
        const int64_t width_in = mul(n.in, n.active), width_out = mul(n.out, n.active);
        Ten src = find_source(i, n.in);
        if (src.id == -1) src = linear_input[i - 1];
        else if (n.experts > 1 && n.op == Op::linear) src = w.fresh(width_in, src.bytes);  // gathered tokens
        linear_input[i] = src;
        const bool vocab_head = n.op == Op::head && n.out >= 1000;
        const bool quantized = s.quantized && is_quantized_linear(n);
        const bool trainable = s.train_base || is_saved_module(n, opt);
        const bool lora = s.lora && is_lora_target(n, opt);
        const bool cast = s.autocast && src.bytes != c;
        const int out_bytes = quantized ? src.bytes : (s.autocast ? c : (trainable ? s.master : s.base));
        if (s.train) {
          if (trainable) {
            w.save(cast ? w.fresh(width_in, c) : src);
          } else if (quantized && s.quant == QuantKind::int8) {
            // bitsandbytes MatMul8bitLt, a custom autograd Function that autocast leaves alone,
            // keeps its input A itself (in A's dtype); its int8 transpose only when the weight
            // trains (bitsandbytes >= 0.45; earlier versions kept that transpose too).
            w.save(src);
          } else if (quantized && s.quant == QuantKind::gptq) {
            // AutoGPTQ's dequantize-then-matmul path: the fp16 weight is kept for grad_input.
            out.fixed = add(out.fixed, mul(mul(n.in, n.out), mul(n.experts, 2)));
          } else if (s.autocast && !quantized && s.base == 4 && c == 2) {
            // A frozen fp32 weight under autocast: its 16-bit cast (not cached: it needs no grad)
            // is kept for grad_input.
            out.fixed = add(out.fixed, mul(mul(n.in, n.out), mul(n.experts, 2)));
          }
          if (n.op == Op::router) w.raw_per_token(mul(n.out, 4));  // fp32 routing probabilities
          if (lora) {
            if (s.lora_dropout > 0) {
              w.raw_per_token(width_in);           // each adapter's own dropout mask
              w.save(w.fresh(width_in, c));        // and its output, lora_A's input
            } else {
              w.save(cast ? w.fresh(width_in, c) : src);
            }
            w.save(w.fresh(mul(s.lora_rank, n.active), c));  // lora_A's output, lora_B's input
          }
        }
        produced[i] = w.fresh(width_out, out_bytes);
        if (n.op == Op::router) {
          produced[i].width = 0;  // router logits are not a stream tensor
        } else if (!vocab_head) {
          widest = std::max(widest, add(width_in, width_out));
          last = produced[i];
        }
        if (quantized) {
          const Dequant d = dequantized_bytes(s.quant, mul(n.in, n.out), src.bytes);  // one expert at a time
          out.dequant_forward = std::max(out.dequant_forward, d.forward);
          if (s.train) out.dequant_backward = std::max(out.dequant_backward, d.backward);
        }
        // MoE: the expert output is scaled by its routing weight (kept for that weight's grad).
        if (s.train && n.experts > 1 && n.op == Op::linear &&
            (i + 1 == nodes.size() || nodes[i + 1].op == Op::residual_add || nodes[i + 1].experts == 1))
          w.save(produced[i]);
        break;
      }
      case Op::attention: {
        const AttentionGeom& g = n.attn;
        // Queries: this node's tokens; keys and values: the block's (the source for cross
        // attention); each query sees one sequence's keys (one image's in a vision tower).
        const int64_t tq = Tn, tk = g.cross ? seq : T;
        const int64_t span = attention_context(m, bi, n, seq, decoder_seq);
        const bool repeat = s.attention != Attention::flash && g.kv_heads < g.heads;
        const int64_t kvh = repeat ? g.heads : g.kv_heads;
        Ten o = w.fresh(g.heads * g.v_head_dim, c);
        if (s.train) {
          // q (after RoPE), k and v as the kernel reads them (HF's sdpa path repeats K/V to all
          // heads for GQA first; flash_attention_2 does not).
          w.raw(mul(mul(g.heads * g.head_dim, tq), c));
          w.raw(mul(mul(kvh * (g.head_dim + g.v_head_dim), tk), c));
          if (s.attention == Attention::eager) {
            // softmax(dtype=fp32) keeps its fp32 output; the probabilities cast back to the
            // compute dtype (and dropped out, keeping a 1-byte mask) are kept by P·V.
            const double p = s.dropout.attention;
            const int64_t per = 4 + (p > 0 ? 1 + c : (c == 4 ? 0 : c));
            w.raw(mul(mul(mul(g.heads, tq), span), per));
          } else {
            w.save(o);                              // the kernel's output
            w.raw(mul(mul(g.heads, tq), 4));       // and its fp32 logsumexp
          }
        }
        if (s.attention == Attention::eager) eager_scores = std::max(eager_scores, mul(mul(g.heads, tq), span));
        else flash_accum = std::max(flash_accum, mul(g.heads * g.head_dim, 4));
        widest = std::max(widest, g.heads * (g.head_dim + g.v_head_dim) + kvh * (g.head_dim + g.v_head_dim));
        produced[i] = o;
        last = o;
        break;
      }
      case Op::activation: {
        const int64_t width = mul(n.out, n.active);
        Ten x = last.width == width ? last : w.fresh(width, c);
        Ten y = activation(w, x, width, n.detail, s);
        widest = std::max(widest, mul(2, width));
        if (s.train && s.dropout.activation > 0) {
          w.raw_per_token(width);
          y = w.fresh(width, y.bytes);
        }
        produced[i] = y;
        last = y;
        break;
      }
      case Op::gated_activation: {
        const int64_t width = mul(n.out, n.active);
        Ten gate, up;
        if (i >= 2 && nodes[i - 1].op == Op::linear && nodes[i - 2].op == Op::linear &&
            produced[i - 1].width == width && produced[i - 2].width == width) {
          gate = produced[i - 2];
          up = produced[i - 1];
        } else if (i >= 1 && produced[i - 1].width == 2 * width) {
          gate = up = produced[i - 1];  // fused gate_up: both halves are views of one tensor
        } else {
          gate = w.fresh(width, c);
          up = last.width == width ? last : w.fresh(width, c);
        }
        Ten a = activation(w, gate, width, n.detail, s);
        if (s.train) {
          w.save(a);   // act(gate) · up keeps both factors
          w.save(up);
        }
        produced[i] = w.fresh(width, std::max(a.bytes, up.bytes));
        if (s.train && s.dropout.activation > 0) {
          w.raw_per_token(width);
          produced[i] = w.fresh(width, produced[i].bytes);
        }
        last = produced[i];
        // act(gate), up and their product; a fused gate_up output stays whole until the product.
        widest = std::max(widest, mul(gate.id == up.id ? 4 : 3, width));
        break;
      }
      case Op::ssm: {
        // mamba_ssm's selective scan keeps u, delta, z and the B/C projections (chunk states are
        // small): about four inner-width tensors per token.
        if (s.train) w.raw_per_token(mul(4 * n.in, c));
        produced[i] = w.fresh(n.out, c);
        last = produced[i];
        break;
      }
      case Op::conv1d: {
        if (s.train) w.save(last.width == n.in ? last : w.fresh(n.in, c));
        produced[i] = w.fresh(n.out, c);
        last = produced[i];
        break;
      }
      default: {
        if (s.train && n.in > 0) w.save(last.width == n.in ? last : w.fresh(n.in, c));
        produced[i] = w.fresh(n.out, c);
        if (n.out > 0) last = produced[i];
        break;
      }
    }
  }
  if (s.train && b.kind == "embedding" && s.dropout.embedding > 0) w.raw_per_token(hidden);

  // Working sets: the residual stream in and out plus what one op holds at once (an MLP holds
  // act(gate), up and their product; its backward holds their gradients).
  const int64_t stream_tok = mul(2 * hidden, s.stream);
  const int64_t inner_tok = mul(widest, c);
  out.forward = mul(T, add(stream_tok, inner_tok));
  out.backward = mul(T, add(add(stream_tok, inner_tok), flash_accum));
  if (eager_scores > 0) {
    const int64_t scores = mul(eager_scores, 4 + c);  // fp32 scores and the 16-bit probabilities
    out.forward = add(out.forward, scores);
    out.backward = add(out.backward, scores);
  }
  return out;
}

}  // namespace cardfit

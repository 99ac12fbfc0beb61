// FLOPs and saved activations per op, from what PyTorch actually does: which tensors each op's
// backward formula keeps (tools/autograd/derivatives.yaml; codegen saves an input only when the
// other input of the formula needs a gradient), which dtypes torch.autocast produces (its fp32
// list: softmax, log_softmax, layer_norm, pow, cross_entropy...; its cache of weight casts), and
// the module code of Hugging Face transformers (RMSNorm upcast, eager softmax in fp32, repeat_kv
// before SDPA), PEFT (LoRA dropout per adapter) and bitsandbytes (Linear4bit casts back to the
// input dtype). The rules, one by one with their sources: docs/memory-model.md.
#include "graph_costs.hpp"

#include <algorithm>
#include <unordered_map>

namespace cardfit {

int64_t compute_bytes(Precision p) { return p == Precision::fp32 ? 4 : 2; }

namespace {
int64_t mul(int64_t a, int64_t b) { return checked_mul(a, b, "saved activations"); }
int64_t add(int64_t a, int64_t b) { return checked_add(a, b, "saved activations"); }

// PEFT matches target_modules by module-name suffix at a dot boundary.
bool name_matches(const std::string& name, const std::vector<std::string>& targets) {
  for (const auto& t : targets)
    if (name == t || name.ends_with("." + t)) return true;
  return false;
}
}  // namespace

Dropouts model_dropouts(const Model& m, const Options& opt) {
  const ModelFacts& f = m.facts;
  Dropouts d{f.hidden_dropout, f.attention_dropout, f.activation_dropout, f.embedding_dropout};
  if (opt.dropout) {
    d.hidden = d.attention = d.embedding = *opt.dropout;
    d.activation = f.dropout_option_sets_activation ? *opt.dropout : 0;
  }
  return d;
}

StepSetup make_setup(const Model& m, const Options& opt, Mode mode) {
  StepSetup s;
  s.mode = mode;
  s.options = &opt;
  s.images = images_per_sample(m, opt);
  s.attention = attention_of(m, opt, mode);
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
  s.grad_ckpt = grad_ckpt_of(opt, mode);
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
    s.base = s.stream = s.norm_param = opt.kbit_upcast.value_or(true) && opt.qlora_quant != QuantKind::gptq ? 4 : 2;
  }
  return s;
}

bool grad_ckpt_of(const Options& opt, Mode mode) { return opt.grad_ckpt.value_or(mode == Mode::qlora); }

bool grad_ckpt_defaulted_on(const Options& opt, Mode mode) { return !opt.grad_ckpt && mode == Mode::qlora; }

AttentionWhy attention_why(const Model& m, const Options& opt, Mode mode) {
  if (opt.attention) return AttentionWhy::option;
  if (!m.facts.sdpa) return AttentionWhy::no_sdpa;
  return mode != Mode::serve && m.facts.attn_logit_softcap > 0 ? AttentionWhy::soft_cap : AttentionWhy::sdpa;
}

Attention attention_of(const Model& m, const Options& opt, Mode mode) {
  switch (attention_why(m, opt, mode)) {
    case AttentionWhy::option: return *opt.attention;
    case AttentionWhy::sdpa: return Attention::sdpa;
    default: return Attention::eager;
  }
}

bool is_lora_target(const Node& n, const Options& opt) {
  const bool embedding = n.op == Op::embedding || n.op == Op::position_embedding;
  if (n.op == Op::head || embedding) {
    // Only when named: lora.Linear wraps the head, lora.Embedding an embedding table.
    if (opt.lora_targets.empty() || n.out <= 0 || (embedding && n.params <= 0)) return false;
    return name_matches(n.name, opt.lora_targets);
  }
  if (n.op != Op::linear) return false;
  if (n.linear == LinearKind::parameter) return false;  // a bare parameter is not an nn.Linear
  if (opt.lora_targets.empty()) return n.lora;
  return name_matches(n.name, opt.lora_targets);
}

LoraDims lora_dims(const Node& n) {
  if (n.op == Op::embedding || n.op == Op::position_embedding) return {n.params / std::max<int64_t>(1, n.out), n.out};
  return {n.in, n.out};
}

bool is_quantized(const Node& n, const Options& opt) {
  return is_quantized_linear(n) && (opt.quantize == QuantScope::all || is_lora_target(n, opt));
}

bool is_float8_linear(const Node& n, const Options& opt, Mode mode) {
  return opt.float8 && mode == Mode::full && n.op == Op::linear && n.linear == LinearKind::module;
}

bool is_saved_module(const Node& n, const Options& opt) {
  return !opt.modules_to_save.empty() && name_matches(n.name, opt.modules_to_save);
}

// bitsandbytes replaces nn.Linear modules only: not fused expert parameters, a vision tower's
// patch Conv2d, or a bare parameter used in a matmul (Gemma 3's projector, MHA's in_proj).
bool is_quantized_linear(const Node& n) { return n.op == Op::linear && n.linear == LinearKind::module; }

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
  return b.sequence == Sequence::target && decoder_seq > 0 ? decoder_seq : seq;
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
  if (n.attn.chunk > 0) return n.attn.window;  // each query chunk's context of keys
  const Block& b = m.blocks[block];
  if (b.domain != Domain::text) return b.tokens_per_image;
  return block_tokens(m, block, seq, decoder_seq, 0);
}

bool checkpointable(const Block& b) { return b.layer >= 0 || b.kind_id == BlockKind::vision_layer; }

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
    default: {
      // A key scorer (the DSA indexer) over the causal span, as attention's products are counted.
      if (n.score_heads <= 0) return 0;
      AttentionGeom causal;
      return 2.0 * double(n.score_heads) * double(n.score_dim + 1) * attended_span(causal, seq);
    }
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
  bool held = false;  // made and kept by another block (an encoder output): saving it costs nothing here
};

class Walk {
 public:
  Walk(int64_t tokens, BlockCost& out) : tokens_(tokens), node_tokens_(tokens), out_(out) {}
  // A new tensor, made by the current node (over its tokens).
  Ten fresh(int64_t width, int bytes) { return Ten{++next_, width, bytes, node_tokens_}; }
  // Keeps `t` for backward (once, however many ops save it).
  void save(const Ten& t) {
    if (t.held) return;
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

// What an activation function keeps for its backward; returns the output tensor.
Ten activation(Walk& w, const Ten& x, int64_t width, ActKind kind, const StepSetup& s) {
  Ten src = x;
  src.width = std::max(src.width, width);
  if (kind == ActKind::keeps_output) {
    Ten out = w.fresh(width, x.bytes);
    if (s.train) w.save(out);  // their backward reads the output
    return out;
  }
  if (kind == ActKind::gelu_python) {
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
  if (kind == ActKind::quick_gelu) {
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

// lora.Embedding: after_A = F.embedding(ids, lora_embedding_A.T) has r fp32 features per token
// (A is fp32, F.embedding no autocast op); after_A @ lora_embedding_B keeps after_A for B's gradient,
// under autocast as its 16-bit cast. (The ids are counted with the embedding.) No dropout: PEFT's
// Embedding forward does not apply lora_dropout.
void lora_embedding_saved(Walk& w, const StepSetup& s) {
  const int after_a = s.autocast ? s.compute : s.base;  // the adapters' dtype without autocast
  w.raw_per_token(mul(s.lora_rank, after_a));
}

// bitsandbytes releases before 0.43.2 keep a 4-bit linear's input for backward (commit 9e753741).
bool keeps_4bit_input(const StepSetup& s) {
  return (s.quant == QuantKind::nf4 || s.quant == QuantKind::fp4) && s.options->bnb_version == BnbVersion::v0_39;
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

BlockCost block_cost(const Model& m, size_t bi, const StepSetup& setup, int64_t seq, int64_t decoder_seq) {
  const StepSetup& s = setup;
  // A node under torch.no_grad() runs as in inference: it keeps nothing for backward.
  StepSetup untracked = setup;
  untracked.train = false;
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
  const Ten stream = w.fresh(hidden, s.stream);
  out.input = mul(mul(hidden, T), s.stream);
  int64_t widest = hidden;  // most elements per token live at once inside one op (working set)
  int64_t eager_scores = 0; // heads × q × k of an eager attention (per sample)
  int64_t key_scores = 0;   // heads × q × k of a key scorer (the DSA indexer's fp32 einsum, per sample)
  int64_t flash_accum = 0;  // per token: fp32 dq accumulator of a flash/SDPA backward
  int64_t head_lora_forward = 0, head_lora_backward = 0;  // per token: a LoRA'd head's transients
  int64_t fp8_forward = 0, fp8_backward = 0;  // per token: Float8Linear's fp8 casts (1 byte each)

  // The tensor behind each value this block has seen, by the graph's edges.
  std::unordered_map<ValueId, Ten> tensor_of;
  std::unordered_map<ValueId, Ten> gathered;  // MoE: the tokens dispatched to the experts, per source
  auto input = [&](const Node& n, size_t k, int64_t width) -> Ten {
    if (k >= n.inputs.size()) return stream;  // no edge: the block's input (a stack's first layer)
    const ValueId v = n.inputs[k];
    if (v == b.input) return stream;
    if (const auto it = tensor_of.find(v); it != tensor_of.end()) return it->second;
    Ten t = w.fresh(width, s.stream);  // made in another block, which keeps it
    t.held = true;
    return tensor_of[v] = t;
  };
  // A consumer of `width` features reading a wider value reads a slice of it: a tensor of its own.
  auto sliced = [&](const Ten& x, int64_t width, int bytes) { return x.width == width ? x : w.fresh(width, bytes); };
  auto from_expert = [&](ValueId v) {
    if (v < 0 || size_t(v) >= m.values.size()) return false;
    const ValueInfo& p = m.values[size_t(v)];
    return p.block == int(bi) && nodes[size_t(p.node)].experts > 1;
  };

  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    const StepSetup& s = n.no_grad ? untracked : setup;
    const int64_t Tn = node_tokens(m, bi, i, seq, decoder_seq, s.images);
    w.at(i, Tn);
    Ten result;
    switch (n.op) {
      case Op::embedding:
      case Op::position_embedding: {
        const bool trainable = s.train_base || is_saved_module(n, opt);
        const bool lora = s.lora && is_lora_target(n, opt);
        if (s.train && (trainable || lora)) w.raw_per_token(8);  // the int64 indices (embedding backward)
        if (s.train && lora) lora_embedding_saved(w, s);
        const int eb = s.train_base ? s.master : s.base;
        // A table looked up from ids; one with an input adds its rows to that value.
        result = n.inputs.empty() ? w.fresh(n.out, eb) : w.fresh(n.out, std::max(input(n, 0, n.out).bytes, eb));
        break;
      }
      case Op::norm: {
        Ten in;
        if (n.qk_norm != QkNorm::none) {
          // q/k norms act on the projection output (one module per head on its own slice).
          const Ten x = input(n, 0, n.in);
          in = n.qk_norm == QkNorm::one_head ? w.fresh(n.in, x.bytes) : x;
        } else {
          const Ten x = input(n, 0, n.in);
          in = sliced(x, n.in, x.bytes);
        }
        const bool trainable = s.train_base || is_saved_module(n, opt);
        if (n.norm == NormKind::rmsnorm) {
          // HF RMSNorm: x.to(fp32); x * rsqrt(mean(x^2)); weight * that.to(input dtype).
          if (s.train) {
            w.save(in.bytes == 4 ? in : w.fresh(in.width, 4));
            if (trainable) w.save(w.fresh(in.width, in.bytes));
          }
          result = w.fresh(in.width, std::max(s.norm_param, in.bytes));
        } else {
          // F.layer_norm (autocast fp32 list): keeps its fp32 input, returns fp32.
          if (s.train) w.save(s.autocast && in.bytes != 4 ? w.fresh(in.width, 4) : in);
          result = w.fresh(in.width, s.autocast ? 4 : in.bytes);
        }
        break;
      }
      case Op::residual_add: {
        if (s.train && s.dropout.hidden > 0) w.raw_per_token(hidden);  // dropout mask, 1 byte each
        const Ten skip = input(n, 0, hidden), branch = input(n, 1, hidden);
        result = w.fresh(hidden, std::max(skip.bytes, branch.bytes));
        break;
      }
      case Op::linear:
      case Op::head:
      case Op::router: {
        const int64_t width_in = mul(n.in, n.active), width_out = mul(n.out, n.active);
        const ValueId v = n.inputs.empty() ? kNoValue : n.inputs[0];
        Ten src;
        if (v == kNoValue) {
          src = w.fresh(width_in, c);  // no input: pixels
        } else if (n.experts > 1 && n.op == Op::linear && !from_expert(v)) {
          // Tokens gathered for the experts: one copy per source, shared by the projections reading it.
          const auto it = gathered.find(v);
          src = it != gathered.end() ? it->second : (gathered[v] = w.fresh(width_in, input(n, 0, n.in).bytes));
        } else {
          src = sliced(input(n, 0, width_in), width_in, c);
        }
        const bool quantized = s.quantized && is_quantized(n, opt);
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
          } else if (quantized && keeps_4bit_input(s)) {
            // bitsandbytes 0.39.0-0.43.1: MatMul4Bit kept its input A (ctx.tensors = (A, B)), which
            // Linear4bit.forward made with x.to(compute_dtype): x itself when already 16-bit, else
            // a copy of its own for each linear.
            w.save(src.bytes == c ? src : w.fresh(width_in, c));
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
        result = w.fresh(width_out, out_bytes);
        if (n.op != Op::router && !n.vocab_head) widest = std::max(widest, add(width_in, width_out));
        if (s.train && lora && n.vocab_head) {
          // lora.Linear on the head: B's vocabulary-wide output and its scaled copy are live next to
          // the base logits until they are added; in backward the logits' gradient scaled for B.
          head_lora_forward = add(head_lora_forward, mul(width_out, 2 * c));
          head_lora_backward = add(head_lora_backward, mul(width_out, c));
        }
        if (is_float8_linear(n, opt, s.mode)) {
          // torchao Float8Linear casts the weight to fp8 in forward and again in backward (one
          // weight at a time, transient), the input in forward, grad_output (along both dims) and
          // the input again in backward.
          const int64_t fp8_weight = mul(n.in, n.out);
          out.dequant_forward = std::max(out.dequant_forward, fp8_weight);
          if (s.train) out.dequant_backward = std::max(out.dequant_backward, fp8_weight);
          fp8_forward = std::max(fp8_forward, width_in);
          fp8_backward = std::max(fp8_backward, add(width_in, mul(2, width_out)));
        }
        if (quantized) {
          const Dequant d = dequantized_bytes(s.quant, mul(n.in, n.out), src.bytes);  // one expert at a time
          out.dequant_forward = std::max(out.dequant_forward, d.forward);
          if (s.train) out.dequant_backward = std::max(out.dequant_backward, d.backward);
        }
        // MoE: the expert output is scaled by its routing weight (kept for that weight's grad).
        if (s.train && n.routed_output) w.save(result);
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
        Ten o = w.fresh(mul(g.heads, g.v_head_dim), c);
        if (g.chunk > 0) {
          // Chunked local attention in the module's own fp32 matmuls (Gemma4AudioAttention,
          // modeling_gemma4.py): q, k, v cast to fp32; q scaled per dim (kept, and its chunk-padded
          // copy); k and v unfolded into every chunk's context of `window` keys (contiguous: window /
          // chunk times their size); the soft-capped logits' tanh and the fp32 softmax kept.
          const int64_t chunks = (tq + g.chunk - 1) / g.chunk, hd = mul(g.heads, g.head_dim);
          const int64_t padded = mul(chunks, g.chunk), contexts = mul(chunks, g.window);
          const int64_t scores = mul(mul(g.heads, padded), g.window);
          if (s.train) {
            w.raw(mul(mul(hd, add(tq, padded)), 4));
            w.raw(mul(mul(mul(g.heads, g.head_dim + g.v_head_dim), contexts), 4));
            w.raw(mul(scores, 2 * 4));
          }
          eager_scores = std::max(eager_scores, scores);
          widest = std::max(widest, mul(2 * g.heads, g.head_dim + g.v_head_dim));
          result = o;
          break;
        }
        if (s.train) {
          // q (after RoPE), k and v as the kernel reads them (HF's sdpa path repeats K/V to all
          // heads for GQA first; flash_attention_2 does not).
          // Eager attention casting q and k to fp32 (GPT-Neo): without autocast the scores' matmul
          // keeps those copies; under autocast matmul casts them back to 16 bits.
          const int64_t qk = g.fp32_qk && s.attention == Attention::eager && !s.autocast ? 4 : c;
          w.raw(mul(mul(mul(g.heads, g.head_dim), tq), qk));
          w.raw(mul(mul(kvh, tk), add(mul(g.head_dim, qk), mul(g.v_head_dim, c))));
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
        else flash_accum = std::max(flash_accum, mul(mul(g.heads, g.head_dim), 4));
        widest = std::max(widest, add(mul(g.heads, g.head_dim + g.v_head_dim), mul(kvh, g.head_dim + g.v_head_dim)));
        result = o;
        break;
      }
      case Op::activation: {
        const int64_t width = mul(n.out, n.active);
        const Ten in = input(n, 0, width);
        Ten y = activation(w, in.width == width ? in : w.fresh(width, c), width, n.act, s);
        widest = std::max(widest, mul(2, width));
        if (s.train && s.dropout.activation > 0) {
          w.raw_per_token(width);
          y = w.fresh(width, y.bytes);
        }
        result = y;
        break;
      }
      case Op::gated_activation: {
        // act(gate) * up: two inputs, or the two halves of one (a fused gate_up projection).
        const int64_t width = mul(n.out, n.active);
        const Ten first = input(n, 0, width);
        Ten gate, up;
        if (n.inputs.size() >= 2) {
          gate = first.width == width ? first : w.fresh(width, c);
          const Ten second = input(n, 1, width);
          up = second.width == width ? second : w.fresh(width, c);
        } else if (first.width == mul(2, width)) {
          gate = up = first;
        } else {
          gate = w.fresh(width, c);
          up = first.width == width ? first : w.fresh(width, c);
        }
        Ten a = activation(w, gate, width, n.act, s);
        if (s.train) {
          w.save(a);   // act(gate) · up keeps both factors
          w.save(up);
        }
        result = w.fresh(width, std::max(a.bytes, up.bytes));
        if (s.train && s.dropout.activation > 0) {
          w.raw_per_token(width);
          result = w.fresh(width, result.bytes);
        }
        // act(gate), up and their product; a fused gate_up output stays whole until the product.
        widest = std::max(widest, mul(gate.id == up.id ? 4 : 3, width));
        break;
      }
      case Op::ssm: {
        // mamba_ssm's selective scan keeps u, delta, z and the B/C projections (chunk states are
        // small): about four inner-width tensors per token.
        if (s.train) w.raw_per_token(mul(4 * n.in, c));
        result = w.fresh(n.out, c);
        break;
      }
      default: {  // conv1d and the parameter-free ops (pooling, the MoE weighted sum)
        // The DSA indexer scores every key of the sequence at once: [heads, queries, keys] in fp32.
        if (n.score_heads > 0) key_scores = std::max(key_scores, mul(mul(n.score_heads, Tn), T));
        if (s.train && n.in > 0) {
          const Ten x = n.inputs.empty() ? w.fresh(n.in, c) : input(n, 0, n.in);
          w.save(x.width == n.in ? x : w.fresh(n.in, c));
        }
        result = w.fresh(n.out, c);
        break;
      }
    }
    if (n.output != kNoValue) tensor_of[n.output] = result;
  }
  if (s.train && b.kind_id == BlockKind::embedding && s.dropout.embedding > 0) w.raw_per_token(hidden);

  // Working sets: the residual stream in and out plus what one op holds at once (an MLP holds
  // act(gate), up and their product; its backward holds their gradients).
  const int64_t stream_tok = mul(2 * hidden, s.stream);
  const int64_t inner_tok = mul(widest, c);
  out.forward = mul(T, add(add(stream_tok, inner_tok), add(head_lora_forward, fp8_forward)));
  out.backward = mul(T, add(add(add(stream_tok, inner_tok), flash_accum), add(head_lora_backward, fp8_backward)));
  if (eager_scores > 0) {
    const int64_t scores = mul(eager_scores, 4 + c);  // fp32 scores and the 16-bit probabilities
    out.forward = add(out.forward, scores);
    out.backward = add(out.backward, scores);
  }
  // The indexer's einsum output and relu's out-of-place copy of it, both fp32, live together.
  if (key_scores > 0) out.forward = add(out.forward, mul(key_scores, 8));
  return out;
}

}  // namespace cardfit

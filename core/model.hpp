// The traced model: the tensor inventory (checkpoint names and shapes) and the block graph.
// Plain data built by arch/ families; the arithmetic over it lives in plan/.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arch/stored_dtype.hpp"

namespace cardfit {

using Shape = std::vector<int64_t>;

/// Number of elements of a shape; throws Error(overflow) past 2^63.
int64_t numel(const Shape& shape);
/// a*b and a+b with an overflow check (Error(overflow) naming `what`).
[[noreturn]] void throw_overflow(const char* what);  // ErrorCode::overflow naming `what`

// Non-negative operands whose bit lengths sum to at most 63 cannot overflow: that fast path skips
// the overflow builtin, which wasm lowers to a call of the 128-bit multiply __multi3 (3 % of a wasm
// re-plan). Sizes are non-negative; the builtin decides the rest.
inline bool mul_overflows(int64_t a, int64_t b, int64_t* r) {
  if (a >= 0 && b >= 0 && __builtin_clzll(uint64_t(a) | 1) + __builtin_clzll(uint64_t(b) | 1) >= 65) {
    *r = a * b;
    return false;
  }
  return __builtin_mul_overflow(a, b, r);
}

inline int64_t checked_mul(int64_t a, int64_t b, const char* what = "a size") {
  int64_t r;
  if (mul_overflows(a, b, &r)) throw_overflow(what);
  return r;
}

inline int64_t checked_add(int64_t a, int64_t b, const char* what = "a size") {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw_overflow(what);
  return r;
}

/// a / b rounded up, for a >= 0 (a itself when b <= 1: one rank, one group).
inline int64_t ceil_div(int64_t a, int64_t b) { return b <= 1 ? a : (a + b - 1) / b; }

enum class Role { embedding, position_embedding, norm, attention, mlp, router, expert, head, ssm, vision, projector, other };
const char* role_name(Role role);

/// A fused routed-expert parameter (one tensor for all of a layer's experts, arch/blocks.hpp
/// fused_moe_block): how each expert's [out, in] matrix lies in it. Quantizers that work on nn.Linear
/// modules see these as per-expert linears (arch/expert_parts.hpp).
enum class ExpertAxes : uint8_t {
  none,    // not such a stack (per-expert nn.Linear weights, or DBRX's [experts * rows, hidden])
  out_in,  // [experts, out, in]
  in_out,  // [experts, in, out] (gpt-oss, Llama 4, Qwen3-VL-MoE: used as x @ W[e])
};

/// One checkpoint tensor, or `copies` alike ones: a layer's MoE experts are one entry whose name is
/// expert 0's ("...experts.0.gate_proj.weight"), so tracing, checks and reconciliation scale with the
/// layers, not layers x experts. expand_copies() gives the per-expert entries in checkpoint order.
struct Tensor {
  std::string name;       // exactly as in the published checkpoint (a stack: its copy 0's)
  Shape shape;            // one copy's shape
  Role role = Role::other;
  int layer = -1;         // layer index, -1 outside the repeated layers
  bool linear = false;    // weight of an nn.Linear / Conv1D: LoRA can target it, QLoRA quantizes it
  std::string tied_to;    // non-empty: the same storage as that tensor, not counted again
  int64_t copies = 1;     // stored alike under the expert indices 0..copies-1 of the name
  bool copy_run_start = false;  // a stack that starts a run: the stacks up to the next start or
                                // unstacked entry are stored copy-major (expert 0's gate, up, down,
                                // then expert 1's...)
  ExpertAxes expert_axes = ExpertAxes::none;  // a fused expert parameter: its per-expert matrices
  int64_t each() const { return numel(shape); }  // one copy's elements (per-tensor rules use it)
  int64_t count() const { return copies == 1 ? each() : checked_mul(each(), copies, "a stacked tensor's elements"); }
};
/// A tensor made outside the layer builders (a checkpoint's stored scales, packed blocks, MTP copies).
inline Tensor make_tensor(std::string name, Shape shape, Role role, bool linear = false) {
  Tensor t;
  t.name = std::move(name);
  t.shape = std::move(shape);
  t.role = role;
  t.linear = linear;
  return t;
}

/// Where a name's expert index stands: the digits after its first ".experts." (index -1: none).
struct ExpertIndex {
  size_t at = 0, end = 0;
  int64_t index = -1;
};
ExpertIndex expert_index(const std::string& name);
/// `name` with its expert index replaced by `copy` (unchanged without one).
std::string copy_name(const std::string& name, int64_t copy);
/// Whether `pred(name)` holds for the copies of `t` alike (the value), or Error(field_inconsistent)
/// at `path`: a name rule that picks some experts of a stack and not others is refused rather than
/// planned as if it picked all or none. `digit_blind`: pred answers alike for names that differ only
/// digit for digit (NamePattern::digit_blind), so one copy per index length is asked (0, 10, 100, ...).
[[noreturn]] void throw_copies_disagree(const Tensor& t, const char* path);
template <typename Pred>
bool for_every_copy(const Tensor& t, Pred pred, const char* path, bool digit_blind = false) {
  const bool first = pred(t.name);
  for (int64_t c = digit_blind ? 10 : 1; c < t.copies; c = digit_blind ? c * 10 : c + 1)
    if (pred(copy_name(t.name, c)) != first) throw_copies_disagree(t, path);
  return first;
}

enum class Op {
  embedding, position_embedding, norm, linear, attention, activation, gated_activation,
  residual_add, router, head, ssm, conv1d, other
};
const char* op_name(Op op);

/// A value of the dataflow graph: one tensor of the forward pass, written by exactly one node.
/// Ids index Model::values; kNoValue is "no input" (token ids, pixels, a learned probe).
using ValueId = int32_t;
inline constexpr ValueId kNoValue = -1;

enum class NormKind {
  layernorm,         // weight + bias
  layernorm_nobias,  // weight only (OLMo-style affine without bias, cohere)
  layernorm_noaffine,// no parameters (OLMo-1)
  rmsnorm,           // weight (Gemma's "1 + weight" is still one weight vector)
};
const char* norm_name(NormKind kind);

/// What a linear op's weight is, which decides whether PEFT's LoRA and bitsandbytes can wrap it.
enum class LinearKind : uint8_t {
  module,      // an nn.Linear (or GPT-2's Conv1D): a LoRA target, quantized by QLoRA
  parameter,   // a bare nn.Parameter used in a matmul (fused experts, MHA in_proj, Gemma 3's
               // projector): neither adapted nor quantized
  patch_conv,  // a convolution (a vision tower's patch Conv2d, an audio front end's Conv1d): not
               // quantized; it reads channels × kernel features per output position
};

/// What an activation's backward keeps (graph_costs.cpp), from the HF activation name.
enum class ActKind : uint8_t {
  keeps_output,  // relu, tanh, sigmoid, relu2: the backward reads the output
  gelu_python,   // gelu_new / gelu_fast / gelu_python: Python ops with an fp32 pow
  quick_gelu,    // x * sigmoid(1.702 x)
  fused,         // gelu, gelu_pytorch_tanh, silu, mish, ...: one op keeping its input
};
ActKind act_kind(const std::string& hf_name);

/// A q/k norm acts on a projection's output rather than on the residual stream.
enum class QkNorm : uint8_t {
  none,
  whole,      // normalises its input value (per head or over all heads)
  one_head,   // one module per head (StableLM's LayerNormPerHead): normalises its own slice
};

/// A node by position, for typed references between nodes (a tied head and its embedding).
struct NodeRef {
  int block = -1, node = -1;
  bool valid() const { return block >= 0 && node >= 0; }
};

/// What one attention op attends over. Self-attention of a decoder is what the KV cache holds.
struct AttentionGeom {
  int64_t heads = 0, kv_heads = 0;
  int64_t head_dim = 0;     // query/key dim per head
  int64_t v_head_dim = 0;   // value dim per head (MLA differs from head_dim)
  int64_t window = 0;       // sliding window in tokens; 0 = the whole context
  bool causal = true;       // decoder self-attention; false for encoders (no KV cache)
  bool cross = false;       // encoder-decoder cross attention (cache sized by the source length)
  int64_t cache_dim = 0;    // elements cached per token for K and V together (MLA: latent + rope dims)
  bool alibi = false;       // ALiBi: a per-head linear bias on the scores, no position tensor
  int64_t qkv_features = 0; // what the q/k/v projections make when not q + k + v (Qwen3-Next's output
                            // gate adds q's width; Gemma 4's k_eq_v drops v's); 0 = q + k + v
  bool sinks = false;       // a learned sink logit per head joins the softmax (gpt-oss)
  int64_t context = 0;      // cross attention over a fixed number of encoder tokens (Whisper: the
                            // 1500 frames of a 30 s window); 0 = the source sequence (seq)
  int64_t compress_ratio = 0; // DeepSeek-V4 CSA / HCA: beside the window, one compressed entry of
  int64_t compressed_dim = 0; // compressed_dim elements per compress_ratio tokens is cached (0: none)
  int64_t chunk = 0;        // chunked local attention in the module's own fp32 code, whatever the
                            // attention implementation (Gemma 4's audio): queries in chunks of
                            // `chunk`, each chunk's keys a context of `window` (0: none)
  bool fp32_qk = false;     // eager attention casts q and k to fp32 for the scores (GPT-Neo's _attn):
                            // without autocast the matmul keeps those fp32 copies
};

/// Which tokens a block runs over: the text sequence, or the tokens of each image (a vision tower
/// and the projector that maps its features into the text sequence). The planner sizes a text
/// block by the sequence and a vision block by images per sample × its tokens per image.
/// Audio: the encoder of a speech model that pads every sample to one fixed window (Whisper:
/// 30 s, 1500 frames after its conv front end); its blocks run tokens_per_image tokens per sample.
enum class Domain { text, vision, audio };
const char* domain_name(Domain domain);

struct Node {
  std::string name;       // module path ("model.layers.0.self_attn.q_proj"): display and matching only
  Op op = Op::other;
  std::string detail;     // for display only: "rmsnorm", "gelu_new", "silu", "conv1d"...
  std::vector<ValueId> inputs;  // the values it reads, in argument order (see each op's builder)
  ValueId output = kNoValue;    // the value it writes
  int64_t in = 0;         // features per token in
  int64_t out = 0;        // features per token out
  int64_t params = 0;     // parameters this node owns (tied ones are counted once, at their owner)
  int64_t experts = 1;    // MoE: experts stored in this node
  int64_t active = 1;     // MoE: experts each token goes through (FLOPs and activations scale by it)
  bool lora = false;      // a default LoRA target (every linear but the head)
  AttentionGeom attn;     // op == attention only
  // Recurrent mixers (gated delta net, Mamba-2): the state each sequence keeps between decode steps
  // instead of a KV cache, in elements; set on the mixer's scan node only.
  int64_t conv_state = 0;        // the causal conv's last inputs, in the activation dtype
  int64_t recurrent_state = 0;   // the scan's state
  int recurrent_state_bytes = 0; // bytes per element of recurrent_state; 0 = the activation dtype
  int64_t tokens_per_image = 0;  // vision blocks: tokens per image of this node's output where it
                                 // differs from its block's (CLIP's patch conv: the patches without the
                                 // class token; an op on a pooled token: 1); 0 = the block's
                                 // (audio blocks: tokens per sample of this node's output)
  int64_t tokens_scale = 1;      // text blocks: this node's output spans tokens_scale × the block's
                                 // tokens (wav2vec2's conv front end runs 2^k frames per encoder frame)
  // Typed attributes (each read by plan/ instead of names or positions):
  NormKind norm = NormKind::rmsnorm;        // op == norm
  QkNorm qk_norm = QkNorm::none;            // op == norm on a q or k projection
  LinearKind linear = LinearKind::module;   // op == linear / head
  ActKind act = ActKind::fused;             // op == activation / gated_activation
  bool vocab_head = false;                  // the LM head over the vocabulary (logits and loss)
  NodeRef tied_to;                          // a head whose weight is this embedding node's
  bool routed_output = false;               // an expert projection whose output the router weights
  bool ffn_activation = false;              // the activation of a feed-forward (its width: the MLP's)
  // A parameter-free scorer of the context's keys (DeepSeek Sparse Attention's lightning indexer,
  // arch/dsa_indexer.hpp): per (query, key) 2 · score_heads · (score_dim + 1) FLOPs (q·k in each head,
  // then the heads' weighted sum) and fp32 scores [score_heads, queries, keys] held at once; 0: none.
  int64_t score_heads = 0, score_dim = 0;
  // Runs under torch.no_grad(): keeps nothing for backward, its parameters get no gradient (so no
  // optimizer state), its FLOPs are forward only (the indexer's forward is @torch.no_grad()).
  bool no_grad = false;
};

enum class BlockKind : uint8_t {
  embedding, decoder_layer, encoder_layer, ssm_layer, final, vision_embedding, vision_layer, vision_final, projector, other
};
const char* block_kind_name(BlockKind kind);
/// The block kind spelled as in the graph report ("decoder_layer"); Error(internal) if unknown.
BlockKind block_kind(const std::string& name);

/// Which sequence of an encoder-decoder model a text block runs over.
enum class Sequence : uint8_t { source, target };

struct Block {
  std::string name;       // "transformer.h.0", "embeddings", "final": display only
  std::string kind;       // block_kind_name(kind_id), for display
  BlockKind kind_id = BlockKind::other;
  int layer = -1;
  Sequence sequence = Sequence::source;  // the decoder half of an encoder-decoder runs over the target
  ValueId input = kNoValue;   // the residual stream entering the block
  ValueId output = kNoValue;  // the residual stream leaving it
  std::vector<Node> nodes;
  Domain domain = Domain::text;
  int64_t tokens_per_image = 0;   // vision: tokens each image runs through this block
  int64_t width = 0;              // features of the block's residual stream when not dims.hidden
                                  // (a vision tower's hidden size); 0 = dims.hidden
};

/// A block outside the text that sees no tokens in any step cardfit plans (Qwen3-Omni's talker and
/// code2wav): it holds its weights and nothing else, a KV cache included.
inline bool holds_weights_only(const Block& b) { return b.domain != Domain::text && b.tokens_per_image == 0; }
/// Whether a node keeps a KV cache entry per token when serving: causal or cross attention in a block
/// that runs (the one place the serving cache, the engines' blocks and the memory model agree on).
inline bool caches_kv(const Block& b, const Node& n) {
  return n.op == Op::attention && (n.attn.causal || n.attn.cross) && !holds_weights_only(b);
}

/// Headline dimensions, for checks and the report; 0 where they do not apply. hidden, layers,
/// heads, kv_heads, head_dim, intermediate, vocab, experts, experts_per_token, sliding_window and
/// tied_embeddings are read off the graph after tracing (derive_dims); families set the rest.
struct Dims {
  int64_t hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0;
  int64_t intermediate = 0, vocab = 0, max_positions = 0;
  int64_t experts = 0, experts_per_token = 0;
  int64_t sliding_window = 0;
  bool tied_embeddings = false;
  bool encoder_decoder = false;
  bool encoder_only = false;
  double initializer_range = 0.02;
  // State-space (Mamba) layers: a constant per-sequence state instead of a KV cache,
  // ssm_inner * (ssm_state + ssm_conv_kernel) elements per Mamba layer.
  int64_t ssm_layers = 0, ssm_inner = 0, ssm_state = 0, ssm_conv_kernel = 0;
};

/// Where a value comes from: its producing node and its features per token.
struct ValueInfo {
  int block = -1, node = -1;
  int64_t width = 0;
};

/// What the planner needs to know about a model beyond its graph, recorded by the family (or the
/// shared fact reader) so that plan/ never reads the config.
struct ModelFacts {
  // Dropout probabilities of the configuration class's defaults (hidden, attention, activation,
  // embedding); the `dropout` option replaces hidden, attention and embedding, and activation too
  // where `dropout_option_sets_activation` (T5's dropout_rate is used everywhere).
  double hidden_dropout = 0, attention_dropout = 0, activation_dropout = 0, embedding_dropout = 0;
  bool dropout_option_sets_activation = false;
  void dropouts(double hidden, double attention, double activation, double embedding) {
    hidden_dropout = hidden;
    attention_dropout = attention;
    activation_dropout = activation;
    embedding_dropout = embedding;
  }
  bool depth_scaled_init = false;     // residual projections initialised with std / sqrt(2 × layers)
  // rope_scaling as given (checks): factor and original context, 0 where absent
  bool has_rope_scaling = false;
  double rope_factor = 0;
  int64_t rope_original_max_positions = 0;
  std::string checkpoint_dtype;       // torch_dtype / dtype of the published weights ("" unknown)
  bool has_pad_token = false;
  double attn_logit_softcap = 0;      // attention soft-capping (Gemma 2): SDPA cannot do it
  // The model class runs torch's SDPA (its _supports_sdpa); without it transformers falls back to
  // eager attention unless another kernel is asked for (GPT-Neo, DeepSeek-V4).
  bool sdpa = true;
};

/// A key equal for two blocks that plan/ treats alike: every field of the block and of its nodes
/// except names (display and option matching only), the layer index and the absolute value ids
/// (renumbered within the block, so the repeated layers of a stack share one key). plan/ memoises
/// per-block costs on it (memory.cpp), so it MUST cover every field plan/graph_costs.cpp reads
/// (block_cost and what it calls): add any new Block or Node field here. Name-matching options
/// (lora_targets, modules_to_save) are joined to the key by the memo itself.
using BlockSignature = std::vector<int64_t>;  // integers, not bytes: wasm appends and hashes them cheaply
BlockSignature structural_signature(const Block& block);

struct Model;
/// Block i's cost class: the index of the first block with the same structural_signature and,
/// for a vision block, the same predecessor domain and tokens per image (the tokens it reads).
/// plan/ keys its per-block cost memo on it; trace_model computes it once (Model::cost_class).
std::vector<int32_t> block_cost_classes(const Model& m);
/// What a published checkpoint stores beyond the parameters and buffers the model class loads
/// (plan/checkpoint.cpp reconciles a checkpoint total against them).
enum class ExtraRole : uint8_t {
  mtp,             // multi-token-prediction layers the causal-LM class drops on load
  quant_blocks,    // quantized values standing in for a parameter under their own name (MXFP4 _blocks:
                   // two a byte; a fused expert stack's per-expert FP8 weights: one)
  quant_scale,     // the scales of a quantized weight (FP8 weight_scale_inv, MXFP4 _scales)
  lookup_table,    // an integer lookup table stored beside the weights
  position_table,  // a stored position table (not a parameter)
  quant_state,     // serialized quantization metadata (bitsandbytes' quant_state JSON bytes, weight_shape)
};
const char* extra_role_name(ExtraRole role);

struct StoredExtra {
  Tensor tensor;              // name and shape as stored; role/linear say what it is (for scales of an MTP layer)
  ExtraRole role = ExtraRole::mtp;
  StoredDtype dtype = StoredDtype::unset;  // as stored (arch/stored_dtype.hpp: BF16, U8, F32, F8_E4M3, I64, ...)
  std::string replaces;       // quant_blocks: the parameter whose values it packs (not stored as itself)
  int64_t values_per_element = 1;  // quant_blocks: values each stored element packs (MXFP4: 2)
  bool of_mtp = false;        // stored for an MTP layer (its scales): not loaded by the model class either
  int32_t of_tensor = -1;     // index in Model::tensors of the parameter it packs or scales (-1: none, MTP);
                              // the typed link plan/ follows (names are for checkpoint matching only)
  StoredDtype of_tensor_dtype = StoredDtype::unset;  // the dtype that parameter is stored at as itself
                                                    // (F8_E4M3, I8; unset: 16-bit)
  StoredDtype served_dtype = StoredDtype::unset;  // what serving holds instead of the stored dtype (unset: as
                                                  // stored; vLLM dequantizes bitsandbytes' nested absmax to F32)
  bool served = true;         // false: not held when serving (vLLM parses the quant_state JSON, drops the nested tensors)
  int64_t variable_max = 0;   // up to this many elements beyond its shape, data-dependent (the digits of a
                              // bitsandbytes nested_offset in its quant_state JSON); the shape is the least
  int64_t replaces_elements = 0;  // with replaces: the elements of the parameter one copy stands in for when
                                  // it is a part of it (one expert's gate of a fused gate_up stack); 0: all
};

/// A pre-quantized bitsandbytes checkpoint's quantization (quantization_config load_in_4bit / load_in_8bit,
/// bnb_4bit_quant_type, bnb_4bit_use_double_quant): the base QLoRA trains on (plan/checkpoint_quant.hpp).
struct StoredBnb {
  enum class Kind : uint8_t { nf4, fp4, int8 } kind = Kind::nf4;
  bool double_quant = false;
};

/// The weights as a quantized checkpoint stores them (arch/stored_format.hpp), for serving as stored.
struct StoredWeights {
  int64_t bytes = 0;   // every tensor the model class loads, at its stored dtype (MTP layers excluded)
  std::string label;   // "mxfp4 experts + bf16", for the weights component
  // Of those, the UE8M0 scales of FP4-packed routed experts in an fp8 checkpoint (DeepSeek-V4), one
  // byte each as stored: SGLang holds them as float32 on CUDA (plan/engines.cpp).
  int64_t fp4_expert_scales = 0;
};

/// How seconds of audio per sample become an audio tower's tokens (plan option audio_seconds;
/// arch/audio_clip.hpp rescales a traced Model to another length).
struct AudioClip {
  enum class Rule { none, fixed_window, chunked, per_second, unsized };
  Rule rule = Rule::none;   // none: no audio tower; fixed_window: every input padded to one window
                            // (Whisper); chunked: mel frames cut into padded chunks (Qwen3-Omni);
                            // per_second: tokens_per_second a second up to max_seconds (Gemma 4);
                            // unsized: a tower traced with no audio (not planned)
  int64_t seconds = 0;      // the length the Model's audio blocks hold
  int64_t max_seconds = 0;  // fixed_window: the window (longer input is refused)
  int64_t frames_per_second = 100;  // log-mel frames (10 ms hop at 16 kHz)
  int64_t chunk_frames = 0;         // chunked: frames per chunk (2 × n_window)
  int64_t window_chunks = 1;        // chunked: chunks per attention window (n_window_infer / chunk)
  int64_t tokens_per_second = 0;    // per_second: encoder tokens per second of audio
  /// The tower is sized by the seconds asked (chunked, per_second): the Planner plans a rescaled
  /// copy (arch/audio_clip.hpp with_audio_seconds), and make_plan refuses a Model of another length.
  bool sized_by_seconds() const { return rule == Rule::chunked || rule == Rule::per_second; }
};

struct Model {
  std::string model_type;         // as given in the config
  std::string family;             // the family file that traced it
  bool approximate = false;       // traced by the generic decoder: not exact
  std::vector<std::string> notes; // what was assumed (defaults applied, legacy keys read)
  Dims dims;
  std::vector<Tensor> tensors;    // parameters, in checkpoint order
  std::vector<Tensor> buffers;    // non-parameter tensors the published checkpoint stores
  std::vector<StoredExtra> stored_extras;  // what the checkpoint stores beyond them (MTP, scales, blocks)
  std::string stored_format;      // quantization_config.quant_method of the published weights ("" none)
  std::optional<StoredBnb> stored_bnb;  // stored_format bitsandbytes: its quantization
  std::vector<Block> blocks;
  std::vector<ValueInfo> values;  // the dataflow graph's values, indexed by ValueId
  ModelFacts facts;
  AudioClip audio;

  // The parameter count, fixed once trace_model has the final inventory (-1 before): the planner
  // asks for it many times per plan, and a DeepSeek-class model lists ~100,000 tensors.
  int64_t traced_parameters = -1;
  // block_cost_classes, fixed with the parameter count (empty before): a re-plan of a cached
  // model then never re-derives the blocks' signatures.
  std::vector<int32_t> cost_class;
  // stored_weight_bytes, fixed with the inventory: a DeepSeek-V3 re-plan summed its 45,395 tensors
  // and 41,540 scales twice (a third of the re-plan) when plan/ derived it per call.
  std::optional<StoredWeights> stored_weights;

  const Node& node(NodeRef r) const { return blocks[size_t(r.block)].nodes[size_t(r.node)]; }
  int64_t parameter_count() const;  // tied tensors counted once
  int64_t buffer_count() const;
};

/// The headline dimensions read off the graph (the first text layer's residual width and
/// attention, its MLP, the vocabulary head, the widest MoE node, the widest window), for the
/// fields Dims documents as structural. Families fill only what the graph cannot tell (context
/// length, initializer range, encoder/decoder flags, SSM state sizes).
void derive_dims(Model& m);

/// The entries of a stacked list one per copy, in checkpoint order (copy-major within each run of
/// stacks; see Tensor::copy_run_start), each with copies 1 and its expert index: for the expanded
/// tensor list and name matching against a checkpoint. Plain entries are copied as they are.
std::vector<Tensor> expand_copies(const std::vector<Tensor>& tensors);
std::vector<StoredExtra> expand_copies(const std::vector<StoredExtra>& extras);
/// The extras stored for `of` (extras[first..]) are stored for each of its copies: they take its
/// copies, and the first of them its place in a run, so they expand in the order its copies do.
void inherit_copies(std::vector<StoredExtra>& extras, size_t first, const Tensor& of);
/// Entries once expanded (the checkpoint's tensor count).
int64_t expanded_size(const std::vector<Tensor>& tensors);

/// The distinct leaf names of the model's linear layers, in graph order (the LoRA target choices).
std::vector<std::string> linear_leaves(const Model& m);

}  // namespace cardfit

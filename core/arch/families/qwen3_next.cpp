// Qwen3-Next (transformers models/qwen3_next/modeling_qwen3_next.py, Qwen3NextForCausalLM) and the
// Qwen3.5 text model (models/qwen3_5/modeling_qwen3_5.py, Qwen3_5ForCausalLM, model_type
// qwen3_5_text): layer_types mix gated-delta-net layers (linear_attn, linear_attention.hpp) with
// gated full attention (self_attn: q_proj makes query and a sigmoid output gate, per-head q/k RMSNorms
// over head_dim). Qwen3-Next's MLPs are MoE (mlp.gate router, experts.{e}.*, shared_expert with a
// sigmoid shared_expert_gate) except mlp_only_layers / off the decoder_sparse_step grid; Qwen3.5's
// are dense. The Qwen3.5-MoE text model (models/qwen3_5_moe, qwen3_5_moe_text) has Qwen3.5's split
// projections and MoE MLPs whose experts the checkpoints store fused, as the model class holds them:
// mlp.experts.gate_up_proj [E, 2 * moe_intermediate, hidden] and down_proj [E, hidden, moe_intermediate]
// (fused_moe_block), beside the gated shared_expert. The (1 + weight) RMSNorms are one weight each. Default layer_types: every
// full_attention_interval-th (4) layer is full attention. Both classes drop the checkpoint's
// multi-token-prediction weights (mtp.*) on load (_keys_to_ignore_on_load_unexpected).
#include <algorithm>

#include "../blocks.hpp"
#include "../decoder.hpp"
#include "../layer_types.hpp"
#include "../stored_extras.hpp"
#include "../linear_attention.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
enum class Variant { next, dense35, moe35 };

Model hybrid(const Config& c, Variant v) {
  const bool qwen3_5 = v != Variant::next;
  const std::string type = v == Variant::next ? "qwen3_next" : v == Variant::dense35 ? "qwen3_5_text" : "qwen3_5_moe_text";
  DecoderShape d = read_decoder_shape(c, {.tie_word_embeddings = false, .max_positions = 32768,
                                          .intermediate_required = v == Variant::dense35});
  if (!c.has("head_dim")) d.head_dim = 256;  // both config classes declare head_dim=256
  const int64_t interval = c.positive_or({"full_attention_interval"}, 4);
  const auto types = read_layer_types(c, d.layers, {"linear_attention", "full_attention"}, [&](int64_t i) {
    return (i + 1) % interval != 0 ? "linear_attention" : "full_attention";
  });
  const GatedDeltaNetSpec lin{.hidden = d.hidden,
                              .key_heads = c.positive_or({"linear_num_key_heads"}, 16),
                              .value_heads = c.positive_or({"linear_num_value_heads"}, 32),
                              .key_head_dim = c.positive_or({"linear_key_head_dim"}, 128),
                              .value_head_dim = c.positive_or({"linear_value_head_dim"}, 128),
                              .conv_kernel = c.positive_or({"linear_conv_kernel_dim"}, 4),
                              .split_projections = qwen3_5};
  require(lin.value_heads % lin.key_heads == 0, c, "linear_num_value_heads",
          "linear_num_value_heads must be a multiple of linear_num_key_heads.");
  const bool bias = c.boolean_or("attention_bias", false);
  const int64_t experts = v == Variant::dense35 ? 0 : c.count_or({"num_experts"}, v == Variant::next ? 512 : 256);
  const int64_t top_k = c.positive_or({"num_experts_per_tok"}, v == Variant::next ? 10 : 8);
  const int64_t sparse_step = c.positive_or({"decoder_sparse_step"}, 1);
  const std::vector<int64_t> mlp_only = c.integer_list("mlp_only_layers");
  require(experts == 0 || top_k <= experts, c, "num_experts_per_tok", "num_experts_per_tok cannot exceed num_experts.");
  const std::string act = c.string_or("hidden_act", "silu");

  ModelBuilder b(type, "qwen3_next");
  set_dims(b, d, c);
  b.dims().experts = experts;
  b.dims().experts_per_token = experts > 0 ? top_k : 0;
  causal_lm_stack(b, d, {}, [&](int i, const std::string& p) {
    b.norm(p + ".input_layernorm", d.hidden, NormKind::rmsnorm);
    if (types[size_t(i)] == "linear_attention") {
      GatedDeltaNetSpec s = lin;
      s.prefix = p + ".linear_attn";
      gated_delta_net(b, s);
    } else {
      attention_block(b, {.prefix = p + ".self_attn", .hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads,
                          .head_dim = d.head_dim, .q_bias = bias, .k_bias = bias, .v_bias = bias, .o_bias = bias,
                          .q_norm = "q_norm", .k_norm = "k_norm", .output_gate = true});
    }
    b.residual(p + ".residual_mixer", d.hidden);
    b.norm(p + ".post_attention_layernorm", d.hidden, NormKind::rmsnorm);
    const bool sparse = experts > 0 && (i + 1) % sparse_step == 0 &&
                        std::find(mlp_only.begin(), mlp_only.end(), i) == mlp_only.end();
    const int64_t shared = c.count_or({"shared_expert_intermediate_size"}, 512);
    if (sparse && v == Variant::moe35) {
      const std::string m = p + ".mlp";
      const ValueId x = b.cursor();  // routed experts, shared expert and its gate all read x
      fused_moe_block(b, {.prefix = m, .hidden = d.hidden, .experts = experts, .top_k = top_k,
                          .intermediate = c.positive_or({"moe_intermediate_size"}, 512), .router = "gate",
                          .down = "experts.down_proj", .layout = FusedExpertLayout::stacked, .act = act,
                          .gate_up = "experts.gate_up_proj"});
      if (shared > 0) {
        // The routed experts' weighted sum is complete before the shared expert runs beside it.
        b.node({.name = m + ".experts.combine", .op = Op::other, .detail = "moe_weighted_sum", .in = d.hidden,
                .out = d.hidden});
        b.read(x);
        mlp_block(b, {.prefix = m + ".shared_expert", .hidden = d.hidden, .intermediate = shared, .act = act});
        const ValueId shared_out = b.cursor();
        b.read(x);
        b.linear(m + ".shared_expert_gate", d.hidden, 1, {.lora = false, .role = Role::router});
        b.read(shared_out);  // sigmoid(gate(x)) scales the shared expert's output
      }
    } else if (sparse) {
      moe_block(b, {.prefix = p + ".mlp", .hidden = d.hidden, .experts = experts, .top_k = top_k,
                    .expert_intermediate = c.positive_or({"moe_intermediate_size"}, 512), .expert = {.act = act},
                    .shared_experts = shared > 0 ? 1 : 0, .shared_intermediate = shared,
                    .shared_name = "shared_expert", .shared_gate = "shared_expert_gate"});
    } else {
      mlp_block(b, {.prefix = p + ".mlp", .hidden = d.hidden, .intermediate = d.intermediate, .act = act});
    }
    b.residual(p + ".residual_mlp", d.hidden);
  });
  const int64_t mtp = c.count_or({"mtp_num_hidden_layers", "num_nextn_predict_layers"}, 0);
  if (mtp > 0) {
    // The MTP layer is a full-attention decoder layer with the model's MLP: a copy of the first one.
    int64_t full = -1;
    for (size_t i = 0; i < types.size() && full < 0; ++i)
      if (types[i] == "full_attention") full = int64_t(i);
    if (full >= 0) add_qwen_mtp_layers(b.model(), mtp, full, d.hidden);
    b.note("The published checkpoint also stores " + std::to_string(mtp) + " multi-token-prediction layer(s) "
           "under mtp.* (mtp_num_hidden_layers); " + (v == Variant::next ? "Qwen3NextForCausalLM" : v == Variant::dense35 ? "Qwen3_5ForCausalLM" : "Qwen3_5MoeForCausalLM") +
           " ignores them on load, so they are not counted here.");
  }
  return b.finish();
}
}  // namespace

Model qwen3_next(const Config& c) { return hybrid(c, Variant::next); }
Model qwen3_5_text(const Config& c) { return hybrid(c, Variant::dense35); }
Model qwen3_5_moe_text(const Config& c) { return hybrid(c, Variant::moe35); }

}  // namespace cardfit::families

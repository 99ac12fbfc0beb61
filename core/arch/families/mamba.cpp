// Mamba (transformers models/mamba/modeling_mamba.py, MambaForCausalLM): a pure state-space model.
// No attention, so no KV cache: each layer keeps a constant conv + SSM state per sequence
// (Dims::ssm_*). Each layer is an RMSNorm and a Mamba mixer; the head is tied to the embeddings.
// FalconMamba (models/falcon_mamba, FalconMambaForCausalLM; tiiuae/falcon-mamba-7b): the same
// parameters (FalconMambaMixer(MambaMixer) adds RMS normalisations of dt, B and C without weights),
// FalconMambaConfig's use_bias default False where MambaConfig's is True.
#include <nlohmann/json.hpp>

#include "../blocks.hpp"
#include "../ssm.hpp"
#include "families.hpp"

namespace cardfit::families {

namespace {
Model mamba_like(const Config& c, const char* type, bool use_bias_default) {
  // MambaConfig defaults. intermediate_size is expand * hidden_size unless the file stores it
  // (PretrainedConfig sets the stored key after the constructor computed it).
  const int64_t vocab = c.positive_or({"vocab_size"}, 50280);
  const int64_t hidden = c.positive_or({"hidden_size"}, 768);
  const int64_t layers = c.positive_or({"num_hidden_layers"}, 32);
  const int64_t state = c.positive_or({"state_size"}, 16);
  const int64_t expand = c.positive_or({"expand"}, 2);
  const int64_t inner = c.positive_or({"intermediate_size"}, checked_mul(expand, hidden, "expand × hidden_size"));
  const int64_t kernel = c.positive_or({"conv_kernel"}, 4);
  const bool use_bias = c.boolean_or("use_bias", use_bias_default);
  const bool conv_bias = c.boolean_or("use_conv_bias", true);
  const bool tied = c.boolean_or("tie_word_embeddings", true);
  const std::string act = c.string_or("hidden_act", "silu");
  // time_step_rank: "auto" (the default) is ceil(hidden_size / 16).
  const bool auto_rank = !c.has("time_step_rank") || c.raw().at("time_step_rank").is_string();
  const int64_t dt_rank = auto_rank ? (hidden + 15) / 16 : c.positive({"time_step_rank"});
  if (auto_rank && c.has("time_step_rank"))
    require(c.string_or("time_step_rank", "auto") == "auto", c, "time_step_rank",
            "time_step_rank must be a positive integer or \"auto\".");

  ModelBuilder b(type, "mamba");
  Dims& d = b.dims();
  d.hidden = hidden;
  d.layers = layers;
  d.intermediate = inner;
  d.vocab = vocab;
  d.tied_embeddings = tied;
  d.initializer_range = c.number_or("initializer_range", 0.1);
  d.ssm_layers = layers;
  d.ssm_inner = inner;
  d.ssm_state = state;
  d.ssm_conv_kernel = kernel;

  b.block("backbone.embeddings", "embedding");
  token_embedding(b, "backbone.embeddings", vocab, hidden);
  for (int i = 0; i < layers; ++i) {
    const std::string p = "backbone.layers." + std::to_string(i);
    b.block(p, "ssm_layer", i);
    b.norm(p + ".norm", hidden, NormKind::rmsnorm);
    mamba_mixer(b, {.prefix = p + ".mixer", .hidden = hidden, .inner = inner, .state = state,
                    .conv_kernel = kernel, .dt_rank = dt_rank, .conv_bias = conv_bias, .proj_bias = use_bias,
                    .act = act});
    b.residual(p + ".residual", hidden);
  }
  b.block("final", "final");
  b.norm("backbone.norm_f", hidden, NormKind::rmsnorm);
  lm_head(b, "lm_head", hidden, vocab, tied ? "backbone.embeddings.weight" : "");
  return b.finish();
}
}  // namespace

Model mamba(const Config& c) { return mamba_like(c, "mamba", true); }
Model falcon_mamba(const Config& c) { return mamba_like(c, "falcon_mamba", false); }

}  // namespace cardfit::families

// Model-dependent refusals, checked before planning (validate.hpp).
#include "validate.hpp"
#include "serve_parallel.hpp"

#include "checks.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "../error.hpp"
#include "../json_input.hpp"
#include "engines.hpp"
#include "graph_costs.hpp"
#include "stacks.hpp"

namespace cardfit {
namespace {
using nlohmann::json;

std::string clip(const std::string& s, size_t n = 60) { return s.size() <= n ? s : s.substr(0, n) + "..."; }

// transformers modeling_rope_utils.py ROPE_INIT_FUNCTIONS (v4.46-v4.57): default, linear, dynamic,
// yarn, longrope, llama3; plus the legacy spellings configs still carry: "su" (Phi-3, renamed
// longrope) and "mrope" (Qwen2-VL, read as default).
constexpr std::string_view kRopeTypes[] = {"default", "linear", "dynamic", "yarn", "longrope", "llama3", "su", "mrope"};

void check_rope_scaling(const Config& cfg) {
  const json& raw = cfg.raw();
  auto it = raw.find("rope_scaling");
  if (it == raw.end() || it->is_null()) return;
  const std::string path = cfg.path_of("rope_scaling");
  if (!it->is_object())
    throw Error(ErrorCode::field_type, path + " must be an object such as {\"rope_type\": \"linear\", \"factor\": 2.0} or null, got " +
                                           shown(*it) + ".", path);
  const Config rs = cfg.child("rope_scaling");
  std::optional<std::string> type_key = rs.first_key({"rope_type", "type"});
  if (type_key) {
    const std::string type = rs.string_or(*type_key, "");
    bool known = false;
    for (auto t : kRopeTypes) known = known || t == type;
    if (!known)
      throw Error(ErrorCode::field_range,
                  rs.path_of(*type_key) + " \"" + clip(type) +
                      "\" is not a RoPE type transformers knows (default, linear, dynamic, yarn, longrope, llama3).",
                  rs.path_of(*type_key));
  }
  if (rs.has("factor")) {
    const json& f = rs.raw()["factor"];
    if (!f.is_number())
      throw Error(ErrorCode::field_type, rs.path_of("factor") + " must be a number, got " + shown(f) + ".", rs.path_of("factor"));
    if (!(f.get<double>() > 0))
      throw Error(ErrorCode::field_range, rs.path_of("factor") + " must be a positive number, got " + shown(f) + ".",
                  rs.path_of("factor"));
  }
}

void check_top_k(const Config& cfg, const Model& m) {
  const Dims& d = m.dims;
  if (d.experts > 0 && d.experts_per_token > d.experts) {
    std::string path = "$";
    for (const Config& c : {cfg, cfg.has_object("text_config") ? cfg.child("text_config") : cfg})
      if (auto k = c.first_key({"num_experts_per_tok", "moe_top_k", "top_k", "num_selected_experts"})) path = c.path_of(*k);
    throw Error(ErrorCode::field_inconsistent,
                "Each token is routed to " + std::to_string(d.experts_per_token) + " experts, but the model has only " +
                    std::to_string(d.experts) + ".",
                path);
  }
}

void check_lora_targets(const Model& m, const Options& o) {
  for (const std::string& target : o.lora_targets) {
    Options one = o;
    one.lora_targets = {target};
    bool any = false;
    for (const Block& b : m.blocks)
      for (const Node& n : b.nodes) any = any || is_lora_target(n, one);
    if (!any) {
      std::string examples;  // the model's first four linears
      int listed = 0;
      for (const Block& b : m.blocks)
        for (const Node& n : b.nodes)
          if (n.op == Op::linear && listed < 4) examples += (listed++ ? ", " : "") + n.name;
      throw Error(ErrorCode::option_value,
                  "Option lora_targets: \"" + clip(target) + "\" matches no linear module of this model (its linears are named like " +
                      examples + ").",
                  "lora_targets");
    }
  }
}

void check_cards(const Options& o, const Catalog& catalog) {
  auto known = [&] {
    std::string ids;
    for (const auto& c : catalog.cards) ids += (ids.empty() ? "" : ", ") + c.id;
    if (o.custom_memory_bytes) ids += std::string(", ") + kCustomCardId;
    return ids;
  };
  // A card id: the catalog's, or "custom" when the custom card is defined.
  auto is_card = [&](const std::string& id) { return find_card(catalog, id) || (o.custom_memory_bytes && id == kCustomCardId); };
  for (const auto& id : o.cards)
    if (!is_card(id))
      throw Error(ErrorCode::option_value, "Option cards names an unknown card \"" + clip(id) + "\"; known cards: " + known() + ".",
                  "cards");
  if (!o.fit_card.empty() && !is_card(o.fit_card))
    throw Error(ErrorCode::option_value, "Unknown card \"" + clip(o.fit_card) + "\" for fit_card; known cards: " + known() + ".",
                "fit_card");
  if (!o.card.empty() && !is_card(o.card))
    throw Error(ErrorCode::option_value, "Unknown card \"" + clip(o.card) + "\"; known cards: " + known() + ".", "card");
  for (const auto& [id, price] : o.prices)
    if (!is_card(id))
      throw Error(ErrorCode::option_value, "Option prices names an unknown card \"" + clip(id) + "\"; known cards: " + known() + ".",
                  "prices." + clip(id));
}

// Muon orthogonalises each weight matrix whole (torch.optim.Muon): ranks that hold shards of it
// (FSDP, ZeRO, tensor parallel) need a distributed Muon that gathers it first, and DeepSpeed's
// fp32-master engines flatten the parameters; neither is modelled.
void check_muon(const Options& o) {
  if (o.optimizer != Optimizer::muon || o.mode == Mode::serve) return;
  if ((o.parallel != Parallel::none && o.parallel != Parallel::ddp) || o.tp > 1)
    throw Error(ErrorCode::option_value,
                "Option optimizer muon: Muon orthogonalises each weight matrix whole, and under parallel " +
                    std::string(parallel_name(o.parallel)) + (o.tp > 1 ? " with tp " + std::to_string(o.tp) : "") +
                    " the ranks hold shards of it (a distributed Muon gathers each matrix first); that is not "
                    "modelled: use parallel ddp or none.",
                "optimizer");
  if (keeps_fp32_master(effective_options(o), resolve_policies(o)))
    throw Error(ErrorCode::option_value,
                "Option optimizer muon: 16-bit training without autocast is planned with DeepSpeed's fp32 master "
                "engine, which flattens the parameters Muon steps as matrices; set autocast true, or master_weights "
                "none for pure 16-bit training.",
                "optimizer");
}

}  // namespace

void validate_request(const Config& cfg, const Model& model, const Options& options, const Catalog& catalog) {
  // A graph whose widths do not chain has no meaningful memory or cost: refuse rather than print
  // numbers beside an error (the forward-pass finding is then always a pass).
  if (const auto shapes = shape_errors(model); !shapes.empty())
    throw Error(ErrorCode::field_inconsistent,
                "The config's dimensions do not chain into a graph that forward-passes: " + shapes.front() +
                    (shapes.size() > 1 ? " (and " + std::to_string(shapes.size() - 1) + " more)" : "") + ".",
                "$");
  check_rope_scaling(cfg);
  if (cfg.has_object("text_config")) check_rope_scaling(cfg.child("text_config"));
  check_top_k(cfg, model);
  check_lora_targets(model, options);
  check_muon(options);
  check_cards(options, catalog);
  check_serve_parallel(model, options);
  if (options.audio_seconds && model.audio.rule == AudioClip::Rule::unsized)
    throw Error(ErrorCode::option_value,
                "Option audio_seconds: the audio tower of " + model.model_type +
                    " is loaded but not sized by seconds of audio yet (no audio is planned through it); leave "
                    "audio_seconds unset.",
                "audio_seconds");
  if (options.audio_seconds && model.audio.rule == AudioClip::Rule::fixed_window && *options.audio_seconds > model.audio.max_seconds)
    throw Error(ErrorCode::option_value,
                "Option audio_seconds: " + model.model_type + "'s encoder takes one " +
                    std::to_string(model.audio.max_seconds) + " s window per input (" +
                    std::to_string(*options.audio_seconds) + " s given); longer audio is cut into windows, each its own sample.",
                "audio_seconds");
  if (options.audio_seconds && model.audio.rule == AudioClip::Rule::per_second && model.audio.max_seconds > 0 &&
      *options.audio_seconds > model.audio.max_seconds)
    throw Error(ErrorCode::option_value,
                "Option audio_seconds: " + model.model_type + "'s feature extractor cuts every clip at " +
                    std::to_string(model.audio.max_seconds) + " s (" + std::to_string(*options.audio_seconds) +
                    " s given); longer audio is split into clips, each its own sample or its own audio segment.",
                "audio_seconds");
  // llama.cpp refuses to start with a quantized V cache and no flash attention (llama-context.cpp:
  // "V cache quantization requires flash_attn"): refused here too rather than planned.
  if (options.engine == Engine::llamacpp && !llamacpp_flash_attention(options) && gguf_block(options.cache_type_v).block_elements > 1)
    throw Error(ErrorCode::option_value,
                "Option cache_type_v: llama.cpp quantizes the V cache only with flash attention; attention eager (-fa off) "
                "needs cache_type_v f16, bf16 or f32.",
                "cache_type_v");
  // The densest packing in published checkpoints stores 16 values per stored scalar (2-bit GPTQ /
  // AutoRound in int32 words): fewer scalars than parameters / 16 cannot be this model's weights.
  const int64_t params = model.parameter_count();
  if (options.checkpoint_total && *options.checkpoint_total < params / 16)
    throw Error(ErrorCode::option_value,
                "Option checkpoint_total " + std::to_string(*options.checkpoint_total) + " is below " +
                    std::to_string(params / 16) + ", a sixteenth of the model's " + std::to_string(params) +
                    " parameters (the densest published packing: 2-bit values, 16 per int32): it cannot be this "
                    "model's checkpoint.",
                "checkpoint_total");
  const int64_t context = model.dims.max_positions;
  if (options.serve_seq > 0 && context > 0 && options.serve_seq > context)
    throw Error(ErrorCode::option_value,
                "Option serve_seq " + std::to_string(options.serve_seq) + " exceeds the model's context of " +
                    std::to_string(context) + " tokens (max_position_embeddings).",
                "serve_seq");
}

}  // namespace cardfit

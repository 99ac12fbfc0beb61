// model_type → family. Adding a family: one file in families/, one line here, one golden entry.
#include "registry.hpp"

#include "../error.hpp"
#include "families/families.hpp"
#include "families/vlm_tier2.hpp"
#include "families/wrappers.hpp"
#include "families/zoo2026.hpp"
#include "families/hybrids2026.hpp"
#include "families/glm_moe_dsa.hpp"
#include "stored_extras.hpp"
#include "stored_format.hpp"

namespace cardfit {

const std::vector<Family>& family_registry() {
  static const std::vector<Family> list = {
      {"gpt2", families::gpt2},
      {"llama", families::llama},
      {"mistral", families::llama},
      {"ministral3", families::llama},
      {"qwen2", families::llama},
      {"gpt_neox", families::gpt_neox},
      {"gptj", families::gptj},
      {"gpt_neo", families::gpt_neo},
      {"gpt_bigcode", families::gpt_bigcode},
      {"opt", families::opt},
      {"bloom", families::bloom},
      {"falcon", families::falcon},
      {"RefinedWeb", families::falcon},
      {"RefinedWebModel", families::falcon},
      {"mpt", families::mpt},
      {"chatglm", families::chatglm},
      {"bert", families::bert},
      {"roberta", families::bert},
      {"distilbert", families::distilbert},
      {"t5", families::t5},
      {"mt5", families::t5},
      {"bart", families::bart},
      {"gemma", families::gemma},
      {"gemma2", families::gemma},
      {"gemma3_text", families::gemma},
      {"gemma3", families::gemma3},
      {"llava", families::llava},
      {"deepseek_v2", families::deepseek},
      {"deepseek_v3", families::deepseek},
      {"deepseek_v4", families::deepseek_v4},
      {"dbrx", families::dbrx},
      {"jamba", families::jamba},
      {"mamba", families::mamba},
      {"falcon_mamba", families::falcon_mamba},
      {"mixtral", families::mixtral},
      {"qwen2_moe", families::qwen2_moe},
      {"qwen3", families::qwen3},
      {"qwen3_moe", families::qwen3_moe},
      {"granite", families::granite},
      {"granitemoe", families::granitemoe},
      {"internlm", families::internlm},
      {"internlm2", families::internlm2},
      {"exaone", families::exaone},
      {"olmo", families::olmo},
      {"olmo2", families::olmo2},
      {"olmo3", families::olmo3},
      {"cohere", families::cohere},
      {"cohere2", families::cohere2},
      {"stablelm", families::stablelm},
      {"starcoder2", families::starcoder2},
      {"phi", families::phi},
      {"phi3", families::phi3},
      {"glm", families::glm},
      {"glm4", families::glm4},
      {"phimoe", families::phimoe},
      {"lfm2", families::lfm2},
      {"lfm2_moe", families::lfm2_moe},
      {"hunyuan_v1_dense", families::hunyuan_v1_dense},
      {"hunyuan_v1_moe", families::hunyuan_v1_moe},
      {"nemotron", families::nemotron},
      {"baichuan", families::baichuan},
      {"qwen", families::qwen},
      {"gpt_oss", families::gpt_oss},
      {"qwen3_next", families::qwen3_next},
      {"qwen3_5_text", families::qwen3_5_text},
      {"qwen3_5_moe_text", families::qwen3_5_moe_text},
      {"smollm3", families::smollm3},
      {"glm4_moe", families::glm4_moe},
      {"glm4_moe_lite", families::glm4_moe_lite},
      {"nemotron_h", families::nemotron_h},
      {"gemma4_text", families::gemma4_text},
      {"olmoe", families::olmoe},
      {"seed_oss", families::seed_oss},
      {"exaone4", families::exaone4},
      {"llama4_text", families::llama4_text},
      {"ernie4_5", families::ernie4_5},
      {"ernie4_5_moe", families::ernie4_5_moe},
      {"xlm-roberta", families::bert},
      {"deberta-v2", families::deberta_v2},
      {"modernbert", families::modernbert},
      {"mpnet", families::mpnet},
      {"electra", families::electra},
      {"vit", families::vit},
      {"clip", families::clip},
      {"siglip", families::clip},
      {"wav2vec2", families::wav2vec2},
      {"whisper", families::whisper},
      {"qwen2_5_vl", families::qwen2_5_vl},
      {"qwen2_vl", families::qwen2_vl},
      {"qwen3_vl", families::qwen3_vl},
      {"qwen3_5", families::qwen3_5},
      {"qwen3_5_moe", families::qwen3_5_moe},
      {"gemma4", families::gemma4},
      {"diffusion_gemma", families::diffusion_gemma},
      {"gemma4_unified", families::gemma4_unified},
      {"mistral3", families::mistral3},
      {"qwen3_vl_moe_text", families::qwen3_vl_moe_text},
      {"qwen3_vl_moe", families::qwen3_vl_moe},
      {"llama4", families::llama4},
      {"idefics3", families::idefics3},
      {"smolvlm", families::idefics3},
      {"lfm2-vl", families::lfm2_vl},  // the remote code's spelling (LFM2-VL, 2025)
      {"lfm2_vl", families::lfm2_vl},  // Lfm2VlConfig.model_type in transformers (LFM2.5-VL)
      {"glm_ocr", families::glm_ocr},
      {"glm4v", families::glm4v},
      {"paligemma", families::paligemma},
      {"glm4v_moe", families::glm4v_moe},
      {"glm4v_text", families::glm4v_text},
      {"glm4v_moe_text", families::glm4v_moe_text},
      {"deepseek_vl_v2", families::deepseek_vl_v2},
      {"granitemoehybrid", families::granitemoehybrid},
      {"falcon_h1", families::falcon_h1},
      {"minimax", families::minimax},
      {"qwen3_omni_moe_text", families::qwen3_omni_moe_text},
      {"qwen3_omni_moe", families::qwen3_omni_moe},
      {"glm_moe_dsa", families::glm_moe_dsa},
      {"kimi_k3", families::kimi_k3},
  };
  return list;
}

Model trace_model(const Config& cfg) {
  if (!cfg.has("model_type"))
    throw Error(ErrorCode::field_missing,
                "The config has no model_type; cardfit needs it to pick the architecture (e.g. \"llama\").",
                "$.model_type");
  const std::string type = cfg.string_or("model_type", "");
  const Family* family = nullptr;
  for (const auto& f : family_registry())
    if (f.model_type == type) family = &f;
  Model m = family ? family->trace(cfg) : families::generic_decoder(cfg);
  add_quantization_extras(cfg, m);  // the stored format of the weights the family declared
  m.stored_weights = stored_weight_bytes(m);
  derive_dims(m);  // the graph is the one source of the structural dimensions
  m.traced_parameters = m.parameter_count();  // the inventory is final from here on
  m.cost_class = block_cost_classes(m);
  read_common_facts(cfg, m);
  return m;
}

void read_common_facts(const Config& cfg, Model& m) {
  // Keys every config class may carry, read the same way for every family (checks use them).
  ModelFacts& f = m.facts;
  if (cfg.has_object("rope_scaling")) {
    const Config rs = cfg.child("rope_scaling");
    f.has_rope_scaling = true;
    f.rope_factor = rs.number_or("factor", 0);
    f.rope_original_max_positions = rs.positive_or({"original_max_position_embeddings"}, 0);
  }
  f.checkpoint_dtype = cfg.string_or("torch_dtype", "");
  f.has_pad_token = cfg.has("pad_token_id");
  f.attn_logit_softcap = cfg.number_or("attn_logit_softcapping", 0);
}

}  // namespace cardfit

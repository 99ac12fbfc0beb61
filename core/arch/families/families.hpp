// One declaration per family file in this folder; registry.cpp maps model_type to them.
#pragma once
#include "../../config.hpp"
#include "../../model.hpp"

namespace cardfit::families {

Model gpt2(const Config& cfg);
Model llama(const Config& cfg);    // llama, and the Llama-shaped mistral, qwen2
Model generic_decoder(const Config& cfg);
Model gemma(const Config& cfg);     // gemma, gemma2, gemma3_text (and gemma3 via gemma3)
Model gemma3(const Config& cfg);    // Gemma 3 multimodal: SigLIP tower + projector + Gemma 3 text
Model llava(const Config& cfg);     // CLIP/SigLIP tower + MLP projector + any traced text model
Model deepseek(const Config& cfg);  // deepseek_v2, deepseek_v3 (MLA + MoE)
Model deepseek_v4(const Config& cfg);  // hyper-connections, CSA / HCA compressed attention, hash MoE
Model dbrx(const Config& cfg);
Model jamba(const Config& cfg);     // attention/Mamba hybrid with MoE
Model mamba(const Config& cfg);     // pure state-space model
Model falcon_mamba(const Config& cfg);  // Mamba's parameters, FalconMambaConfig's defaults
Model gpt_oss(const Config& cfg);   // MoE with biased stacked experts, attention sinks
Model qwen3_next(const Config& cfg);    // gated delta net + gated attention, MoE
Model qwen3_5_text(const Config& cfg);  // the Qwen3.5 language model (dense), split delta-net projections
Model qwen3_5_moe_text(const Config& cfg);  // the Qwen3.5-MoE language model: fused stored experts
Model smollm3(const Config& cfg);   // Llama tensors, NoPE layers
Model glm4_moe(const Config& cfg);  // GQA + MoE with shared expert and routing-bias buffer
Model nemotron_h(const Config& cfg);  // Mamba-2 / attention / MLP / MoE blocks
Model gemma4_text(const Config& cfg);  // Gemma 4 language model: per-layer embeddings, KV sharing
Model olmoe(const Config& cfg);     // Mixtral-shaped MoE with OLMo 2 q/k norms
Model seed_oss(const Config& cfg);  // Llama tensors with q/k/v, o and MLP bias switches
Model exaone4(const Config& cfg);   // OLMo 2 layers, per-head q/k norms, hybrid sliding windows
Model llama4_text(const Config& cfg);  // Llama 4 language model: stacked experts + shared expert
Model ernie4_5(const Config& cfg);  // Llama tensors, one use_bias switch

Model gpt_neox(const Config& cfg);
Model gptj(const Config& cfg);
Model gpt_neo(const Config& cfg);
Model gpt_bigcode(const Config& cfg);
Model opt(const Config& cfg);
Model bloom(const Config& cfg);
Model falcon(const Config& cfg);    // falcon, and the remote-code RefinedWeb / RefinedWebModel
Model mpt(const Config& cfg);
Model chatglm(const Config& cfg);   // ChatGLM-6B (v1) and ChatGLM2/3 / GLM-4 layouts
Model bert(const Config& cfg);      // bert, roberta, xlm-roberta
Model distilbert(const Config& cfg);
Model t5(const Config& cfg);
Model bart(const Config& cfg);
Model mixtral(const Config& cfg);
Model qwen2_moe(const Config& cfg);
Model qwen3(const Config& cfg);
Model qwen3_moe(const Config& cfg);
Model qwen3_omni_moe_text(const Config& cfg);  // Qwen3-Omni-MoE's thinker language model (per-expert tensors)
Model granite(const Config& cfg);
Model granitemoe(const Config& cfg);
Model internlm(const Config& cfg);   // InternLM (remote code)
Model internlm2(const Config& cfg);  // InternLM2 / 2.5 (remote code)
Model exaone(const Config& cfg);     // EXAONE 3.0 / 3.5 (remote code)
Model olmo(const Config& cfg);
Model olmo2(const Config& cfg);
Model olmo3(const Config& cfg);
Model cohere(const Config& cfg);
Model stablelm(const Config& cfg);
Model starcoder2(const Config& cfg);
Model phi(const Config& cfg);
Model phi3(const Config& cfg);
Model glm(const Config& cfg);       // GLM-4 as transformers ports it (glm-4-9b-chat-hf)
Model glm4(const Config& cfg);      // GLM-4-0414 / GLM-Z1: sandwich norms
Model nemotron(const Config& cfg);
Model baichuan(const Config& cfg);   // Baichuan / Baichuan 2 (remote code)
Model qwen(const Config& cfg);       // the first Qwen (remote code)
Model electra(const Config& cfg);
Model mpnet(const Config& cfg);
Model deberta_v2(const Config& cfg); // deberta-v2 (DeBERTa v2 and v3)
Model modernbert(const Config& cfg);
Model vit(const Config& cfg);
Model clip(const Config& cfg);       // clip, siglip (contrastive text + vision towers)
Model wav2vec2(const Config& cfg);
Model whisper(const Config& cfg);
Model qwen2_5_vl(const Config& cfg); // windowed vision tower + Qwen2 text
Model qwen2_vl(const Config& cfg);   // Qwen2-VL: global LayerNorm vision tower + Qwen2 text
Model qwen3_vl(const Config& cfg);   // vision tower with deepstack mergers + Qwen3 text
// Qwen3-VL's tower and wrapper over the text model `text_type` read from text_config (qwen3_vl.cpp).
Model qwen3_vl_over(const Config& cfg, const std::string& text_type, const std::string& family);

}  // namespace cardfit::families

#!/usr/bin/env python3
"""Independent parameter totals for the encoder / speech / contrastive golden models.

Written from the transformers modeling files (module constructors: each nn.Linear(i, o) holds
i*o + o, nn.LayerNorm(h) 2h, nn.Embedding(n, h) n*h, Conv1d(i, o, k) i*o*k (+ o)), not from cardfit's
builders. Tied weights are counted once. Usage: python3 encoder_totals.py (prints name, total).
"""

def lin(i, o, bias=True): return i * o + (o if bias else 0)
def ln(h, bias=True): return 2 * h if bias else h

def bert_layer(h, inter):  # q,k,v,o with bias, 2 LayerNorms, intermediate + output
    return 4 * lin(h, h) + 2 * ln(h) + lin(h, inter) + lin(inter, h)

def xlm_roberta_base():  # XLMRobertaForMaskedLM weights + roberta.pooler (fairseq conversion)
    V, H, P, L = 250002, 768, 514, 12
    emb = V * H + P * H + 1 * H + ln(H)
    return emb + L * bert_layer(H, 3072) + lin(H, H) + (lin(H, H) + ln(H) + V)

def electra_small_discriminator():  # ElectraForPreTraining
    V, E, H, L = 30522, 128, 256, 12
    emb = V * E + 512 * E + 2 * E + ln(E) + lin(E, H)
    return emb + L * bert_layer(H, 1024) + lin(H, H) + lin(H, 1)

def mpnet_base():  # MPNetForMaskedLM: no pooler; lm_head dense, layer_norm, bias; decoder tied
    V, H, P, L = 30527, 768, 514, 12
    emb = V * H + P * H + ln(H)
    return emb + L * bert_layer(H, 3072) + 32 * 12 + lin(H, H) + ln(H) + V

def deberta_v3_base():  # DebertaV2 backbone + lm_predictions.lm_head + mask_predictions
    V, H, L = 128100, 768, 12
    emb = V * H + ln(H)  # position_biased_input false, type_vocab_size 0
    enc = L * (3 * lin(H, H) + lin(H, H) + 2 * ln(H) + lin(H, 3072) + lin(3072, H))  # share_att_key: no pos projections
    enc += 2 * 256 * H + ln(H)  # rel_embeddings (2 * position_buckets rows) + encoder.LayerNorm
    return emb + enc + (lin(H, H) + ln(H) + V) + (lin(H, H) + ln(H) + lin(H, 1))

def modernbert_base():  # ModernBertForMaskedLM, bias-free norms and linears, decoder bias, tied
    V, H, I, L = 50368, 768, 1152, 22
    layer = lin(H, 3 * H, False) + lin(H, H, False) + lin(H, 2 * I, False) + lin(I, H, False) + 2 * H
    return V * H + H + L * layer - H + H + lin(H, H, False) + H + V  # layer 0: no attn_norm

def vit_base_in21k():  # ViTModel with pooler
    H, L, P = 768, 12, 16
    n = (224 // P) ** 2
    emb = H + (n + 1) * H + (3 * P * P * H + H)
    return emb + L * bert_layer(H, 3072) + ln(H) + lin(H, H)

def clip_text(V, H, I, L, P): return V * H + P * H + L * bert_layer(H, I) + ln(H)

def clip_vision(H, I, L, image, P, cls=True, patch_bias=False, pre=True, head=False):
    n = (image // P) ** 2
    t = 3 * P * P * H + (H if patch_bias else 0) + (n + (1 if cls else 0)) * H + (H if cls else 0)
    t += (ln(H) if pre else 0) + L * bert_layer(H, I) + ln(H)
    if head:  # SigLIP attention pooling head: probe, in_proj, out_proj, layernorm, mlp
        t += H + 3 * H * H + 3 * H + lin(H, H) + ln(H) + lin(H, I) + lin(I, H)
    return t

def clip_vit_base_patch32():  # CLIPModel
    return clip_text(49408, 512, 2048, 12, 77) + clip_vision(768, 3072, 12, 224, 32) + 512 * 768 + 512 * 512 + 1

def siglip_base_patch16_224():  # SiglipModel
    text = clip_text(32000, 768, 3072, 12, 64) + lin(768, 768)
    vision = clip_vision(768, 3072, 12, 224, 16, cls=False, patch_bias=True, pre=False, head=True)
    return text + vision + 1 + 1

def wav2vec2_base_960h():  # Wav2Vec2ForCTC
    fe = 512 * 1 * 10 + 2 * 512 + 4 * 512 * 512 * 3 + 2 * 512 * 512 * 2  # conv_bias false, GroupNorm on layer 0
    proj = ln(512) + lin(512, 768)
    pos = 128 + 768 * (768 // 16) * 128 + 768  # weight_g, weight_v, bias
    return fe + proj + 768 + pos + ln(768) + 12 * bert_layer(768, 3072) + lin(768, 32)

def whisper_large_v3_turbo():  # WhisperForConditionalGeneration, proj_out tied
    d, V, mels, F = 1280, 51866, 128, 5120
    attn = lin(d, d) + lin(d, d, False) + lin(d, d) + lin(d, d)  # q, k (no bias), v, out
    enc = lin(mels * 3, d) + lin(d * 3, d) + 1500 * d + 32 * (attn + 2 * ln(d) + lin(d, F) + lin(F, d)) + ln(d)
    dec = V * d + 448 * d + 4 * (2 * attn + 3 * ln(d) + lin(d, F) + lin(F, d)) + ln(d)
    return enc + dec

def qwen2_5_vl_7b():  # Qwen2_5_VLForConditionalGeneration: visual.* + Qwen2 text (untied)
    V, H, I, L, kv = 152064, 3584, 18944, 28, 4 * 128
    text = 2 * V * H + L * (lin(H, H) + 2 * lin(H, kv) + lin(H, H, False) + 3 * H * I + 2 * H) + H
    h, vi, depth = 1280, 3420, 32
    patch = h * 3 * 2 * 14 * 14  # Conv3d, no bias
    block = 2 * h + lin(h, 3 * h) + lin(h, h) + 2 * lin(h, vi) + lin(vi, h)  # RMSNorms, qkv, proj, gated MLP
    merger = h + lin(4 * h, 4 * h) + lin(4 * h, H)
    return text + patch + depth * block + merger

def qwen3_vl_8b():  # Qwen3VLForConditionalGeneration: model.visual.* + Qwen3 text (untied)
    V, H, I, L, hd = 151936, 4096, 12288, 28 + 8, 128
    attn = H * 32 * hd + 2 * H * 8 * hd + 32 * hd * H + 2 * hd  # q, k, v, o (no bias) + q_norm, k_norm
    text = 2 * V * H + L * (attn + 3 * H * I + 2 * H) + H
    h, vi, depth = 1152, 4304, 27
    patch = h * 3 * 2 * 16 * 16 + h  # Conv3d with bias
    block = 2 * ln(h) + lin(h, 3 * h) + lin(h, h) + lin(h, vi) + lin(vi, h)
    merger = ln(h) + lin(4 * h, 4 * h) + lin(4 * h, H)
    deepstack = 3 * (ln(4 * h) + lin(4 * h, 4 * h) + lin(4 * h, H))
    return text + patch + 2304 * h + depth * block + merger + deepstack

if __name__ == "__main__":
    for f in [xlm_roberta_base, electra_small_discriminator, mpnet_base, deberta_v3_base, modernbert_base,
              vit_base_in21k, clip_vit_base_patch32, siglip_base_patch16_224, wav2vec2_base_960h,
              whisper_large_v3_turbo, qwen2_5_vl_7b, qwen3_vl_8b]:
        print(f"{f.__name__:32s} {f():>15,}")

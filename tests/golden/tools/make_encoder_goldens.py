import json, sys
sys.path.insert(0, "tests/golden/tools")  # run from the repository root
import encoder_totals as T
D = "2026-12-01"
TR = ("Transcribed on " + D + " from the published config.json (keys and values as the hub file lists them; "
      "no network here, so not byte-for-byte re-downloaded).")
COUNTS = {"xlm-roberta-base": 205, "electra-small-discriminator": 203, "mpnet-base": 203, "deberta-v3-base": 209,
          "modernbert-base": 138, "vit-base-patch16-224-in21k": 200, "clip-vit-base-patch32": 398,
          "siglip-base-patch16-224": 408, "wav2vec2-base-960h": 213, "whisper-large-v3-turbo": 588,
          "qwen2.5-vl-7b-instruct": 729, "qwen3-vl-8b-instruct": 750}
def g(fname, name, config, total, tsrc, tensors, buffers=0, csrc_note=TR):
    out = {"name": name, "model_type": config["model_type"],
           "config_source": f"https://huggingface.co/{name}/blob/main/config.json. {csrc_note}",
           "total_source": tsrc + f" (tests/golden/tools/encoder_totals.py, {D}).",
           "config": config,
           "expected": {"total": total, "tensor_count": COUNTS[fname], "buffers_total": buffers,
                        "tensors": [{"name": n, "shape": s} for n, s in tensors]}}
    open(f"tests/golden/models/{fname}.json", "w").write(json.dumps(out, indent=1, ensure_ascii=False) + "\n")

g("xlm-roberta-base", "FacebookAI/xlm-roberta-base", {
  "architectures": ["XLMRobertaForMaskedLM"], "attention_probs_dropout_prob": 0.1, "bos_token_id": 0,
  "eos_token_id": 2, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768,
  "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-05, "max_position_embeddings": 514,
  "model_type": "xlm-roberta", "num_attention_heads": 12, "num_hidden_layers": 12, "output_past": True,
  "pad_token_id": 1, "position_embedding_type": "absolute", "transformers_version": "4.17.0.dev0",
  "type_vocab_size": 1, "use_cache": True, "vocab_size": 250002},
  T.xlm_roberta_base(),
  "Computed with an independent Python calculation from modeling_xlm_roberta.py (RoBERTa's modules): the fairseq-converted "
  "checkpoint holds XLMRobertaForMaskedLM weights plus roberta.pooler, like roberta-base: embeddings (250002 x 768 words, 514 "
  "positions, 1 token type, LayerNorm) + 12 layers + pooler + lm_head.dense/layer_norm/bias (decoder tied) = 278,885,778; the hub "
  "lists the model as 279M parameters. No buffers counted (transformers_version 4.17 would store embeddings.position_ids if saved "
  "by transformers, but this checkpoint is the 2019 conversion; see the family note)",
  [("roberta.embeddings.word_embeddings.weight", [250002, 768]), ("roberta.pooler.dense.weight", [768, 768]),
   ("lm_head.bias", [250002]), ("lm_head.decoder.weight", [250002, 768])], buffers=0)

g("electra-small-discriminator", "google/electra-small-discriminator", {
  "architectures": ["ElectraForPreTraining"], "attention_probs_dropout_prob": 0.1, "embedding_size": 128,
  "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 256, "initializer_range": 0.02,
  "intermediate_size": 1024, "layer_norm_eps": 1e-12, "max_position_embeddings": 512, "model_type": "electra",
  "num_attention_heads": 4, "num_hidden_layers": 12, "pad_token_id": 0, "type_vocab_size": 2, "vocab_size": 30522},
  T.electra_small_discriminator(),
  "Computed with an independent Python calculation from modeling_electra.py (ElectraForPreTraining): embeddings of width "
  "embedding_size 128 (words, positions, token types, LayerNorm) + embeddings_project [256, 128] + 12 BERT layers of width 256 + "
  "discriminator_predictions.dense [256, 256] and dense_prediction [1, 256] = 13,549,057 (the hub lists 13.5M)",
  [("electra.embeddings.word_embeddings.weight", [30522, 128]), ("electra.embeddings_project.weight", [256, 128]),
   ("electra.encoder.layer.11.output.dense.weight", [256, 1024]),
   ("discriminator_predictions.dense_prediction.weight", [1, 256])])

g("mpnet-base", "microsoft/mpnet-base", {
  "architectures": ["MPNetForMaskedLM"], "attention_probs_dropout_prob": 0.1, "bos_token_id": 0, "eos_token_id": 2,
  "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768, "initializer_range": 0.02,
  "intermediate_size": 3072, "layer_norm_eps": 1e-05, "max_position_embeddings": 514, "model_type": "mpnet",
  "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 1, "relative_attention_num_buckets": 32,
  "vocab_size": 30527},
  T.mpnet_base(),
  "Computed with an independent Python calculation from modeling_mpnet.py (MPNetForMaskedLM: MPNetModel without pooler, "
  "encoder.relative_attention_bias [32, 12], lm_head dense + layer_norm + bias, decoder tied to the word embeddings) = "
  "109,518,527. Not checked against the stored file: a checkpoint converted with the pooler would hold 590,592 more",
  [("mpnet.encoder.relative_attention_bias.weight", [32, 12]), ("mpnet.encoder.layer.0.attention.attn.q.weight", [768, 768]),
   ("lm_head.bias", [30527]), ("lm_head.decoder.weight", [30527, 768])])

g("deberta-v3-base", "microsoft/deberta-v3-base", {
  "model_type": "deberta-v2", "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
  "hidden_size": 768, "initializer_range": 0.02, "intermediate_size": 3072, "max_position_embeddings": 512,
  "relative_attention": True, "position_buckets": 256, "norm_rel_ebd": "layer_norm", "share_att_key": True,
  "pos_att_type": "p2c|c2p", "layer_norm_eps": 1e-7, "max_relative_positions": -1, "position_biased_input": False,
  "num_attention_heads": 12, "num_hidden_layers": 12, "type_vocab_size": 0, "vocab_size": 128100},
  T.deberta_v3_base(),
  "Computed with an independent Python calculation from modeling_deberta_v2.py: backbone 183,831,552 (word embeddings "
  "128100 x 768 = the model card's '98M parameters in the Embedding layer'; 12 layers = its '86M backbone parameters'; "
  "rel_embeddings [512, 768] from position_buckets 256; encoder.LayerNorm) + lm_predictions.lm_head (dense, LayerNorm, bias) "
  "+ mask_predictions (dense, LayerNorm, classifier [1, 768]), the heads that loading it into DebertaV2Model reports as unused "
  "= 185,144,677",
  [("deberta.embeddings.word_embeddings.weight", [128100, 768]), ("deberta.encoder.rel_embeddings.weight", [512, 768]),
   ("deberta.encoder.layer.0.attention.self.query_proj.weight", [768, 768]),
   ("lm_predictions.lm_head.bias", [128100]), ("mask_predictions.classifier.weight", [1, 768])])

g("modernbert-base", "answerdotai/ModernBERT-base", {
  "architectures": ["ModernBertForMaskedLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 50281,
  "classifier_activation": "gelu", "classifier_bias": False, "classifier_dropout": 0.0, "classifier_pooling": "mean",
  "cls_token_id": 50281, "decoder_bias": True, "deterministic_flash_attn": False, "embedding_dropout": 0.0,
  "eos_token_id": 50282, "global_attn_every_n_layers": 3, "global_rope_theta": 160000.0, "gradient_checkpointing": False,
  "hidden_activation": "gelu", "hidden_size": 768, "initializer_cutoff_factor": 2.0, "initializer_range": 0.02,
  "intermediate_size": 1152, "layer_norm_eps": 1e-05, "local_attention": 128, "local_rope_theta": 10000.0,
  "max_position_embeddings": 8192, "mlp_bias": False, "mlp_dropout": 0.0, "model_type": "modernbert", "norm_bias": False,
  "norm_eps": 1e-05, "num_attention_heads": 12, "num_hidden_layers": 22, "pad_token_id": 50283,
  "position_embedding_type": "absolute", "sep_token_id": 50282, "tie_word_embeddings": True, "torch_dtype": "float32",
  "transformers_version": "4.47.0.dev0", "vocab_size": 50368},
  T.modernbert_base(),
  "Computed with an independent Python calculation from modeling_modernbert.py (ModernBertForMaskedLM: bias-free LayerNorms "
  "and linears, no attn_norm on layer 0, Wqkv [2304, 768], Wi [2304, 768], Wo, final_norm, head.dense + head.norm, decoder tied "
  "with its bias [50368]) = 149,655,232 (the model card: 149M parameters)",
  [("model.embeddings.tok_embeddings.weight", [50368, 768]), ("model.layers.0.attn.Wqkv.weight", [2304, 768]),
   ("model.layers.1.attn_norm.weight", [768]), ("model.layers.21.mlp.Wi.weight", [2304, 768]),
   ("decoder.bias", [50368])])

g("vit-base-patch16-224-in21k", "google/vit-base-patch16-224-in21k", {
  "architectures": ["ViTModel"], "attention_probs_dropout_prob": 0.0, "hidden_act": "gelu", "hidden_dropout_prob": 0.0,
  "hidden_size": 768, "image_size": 224, "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-12,
  "model_type": "vit", "num_attention_heads": 12, "num_channels": 3, "num_hidden_layers": 12, "patch_size": 16,
  "qkv_bias": True, "transformers_version": "4.13.0.dev0"},
  T.vit_base_in21k(),
  "Computed with an independent Python calculation from modeling_vit.py (ViTModel with its pooler): cls_token, "
  "position_embeddings [1, 197, 768], patch Conv2d [768, 3, 16, 16] + bias, 12 layers, layernorm, pooler.dense = 86,389,248 "
  "(the hub lists 86.4M)",
  [("embeddings.cls_token", [1, 1, 768]), ("embeddings.position_embeddings", [1, 197, 768]),
   ("embeddings.patch_embeddings.projection.weight", [768, 3, 16, 16]),
   ("encoder.layer.0.attention.attention.query.weight", [768, 768]), ("pooler.dense.weight", [768, 768])])

g("clip-vit-base-patch32", "openai/clip-vit-base-patch32", {
  "architectures": ["CLIPModel"], "initializer_factor": 1.0, "logit_scale_init_value": 2.6592, "model_type": "clip",
  "projection_dim": 512,
  "text_config": {"bos_token_id": 0, "dropout": 0.0, "eos_token_id": 2, "hidden_act": "quick_gelu", "hidden_size": 512,
                  "intermediate_size": 2048, "max_position_embeddings": 77, "model_type": "clip_text_model",
                  "num_attention_heads": 8, "num_hidden_layers": 12, "projection_dim": 512, "vocab_size": 49408},
  "transformers_version": "4.16.0.dev0",
  "vision_config": {"dropout": 0.0, "hidden_act": "quick_gelu", "hidden_size": 768, "image_size": 224,
                    "intermediate_size": 3072, "model_type": "clip_vision_model", "num_attention_heads": 12,
                    "num_hidden_layers": 12, "patch_size": 32, "projection_dim": 512}},
  T.clip_vit_base_patch32(),
  "Computed with an independent Python calculation from modeling_clip.py (CLIPModel): text tower 63,165,952 + vision tower "
  "87,456,000 + visual_projection [512, 768] + text_projection [512, 512] + logit_scale = 151,277,313, the count "
  "commonly quoted for CLIP ViT-B/32 (not re-read from the hub in this session). Buffers: text and vision position_ids (int64 [1, 77] and [1, 50]) counted by the "
  "transformers_version rule (4.16 saved them)",
  [("text_model.embeddings.token_embedding.weight", [49408, 512]), ("vision_model.embeddings.class_embedding", [768]),
   ("vision_model.embeddings.position_embedding.weight", [50, 768]), ("visual_projection.weight", [512, 768]),
   ("logit_scale", [])], buffers=127,
  csrc_note="Transcribed on 2026-12-01 from the published config.json, reduced to the keys that set the architecture "
            "(the hub file also lists every PretrainedConfig default of its text_config and vision_config, which "
            "do not change the structure).")

g("siglip-base-patch16-224", "google/siglip-base-patch16-224", {
  "architectures": ["SiglipModel"], "initializer_factor": 1.0, "model_type": "siglip",
  "text_config": {"hidden_size": 768, "intermediate_size": 3072, "model_type": "siglip_text_model",
                  "num_attention_heads": 12, "num_hidden_layers": 12, "vocab_size": 32000},
  "torch_dtype": "float32", "transformers_version": "4.37.0.dev0",
  "vision_config": {"hidden_size": 768, "image_size": 224, "intermediate_size": 3072, "model_type": "siglip_vision_model",
                    "num_attention_heads": 12, "num_hidden_layers": 12, "patch_size": 16}},
  T.siglip_base_patch16_224(),
  "Computed with an independent Python calculation from modeling_siglip.py (SiglipModel): text tower with head 110,271,744 + "
  "vision tower with its attention-pooling head 92,884,224 + logit_scale [1] + logit_bias [1] = 203,155,970 (the hub lists "
  "203M). No buffers: transformers 4.37 (from 4.31 on) does not save position_ids",
  [("text_model.embeddings.position_embedding.weight", [64, 768]), ("text_model.head.weight", [768, 768]),
   ("vision_model.head.attention.in_proj_weight", [2304, 768]), ("logit_bias", [1])], buffers=0)

g("wav2vec2-base-960h", "facebook/wav2vec2-base-960h", {
  "activation_dropout": 0.1, "apply_spec_augment": True, "architectures": ["Wav2Vec2ForCTC"], "attention_dropout": 0.1,
  "bos_token_id": 1, "codevector_dim": 256, "contrastive_logits_temperature": 0.1, "conv_bias": False,
  "conv_dim": [512, 512, 512, 512, 512, 512, 512], "conv_kernel": [10, 3, 3, 3, 3, 2, 2],
  "conv_stride": [5, 2, 2, 2, 2, 2, 2], "ctc_loss_reduction": "sum", "ctc_zero_infinity": False,
  "diversity_loss_weight": 0.1, "do_stable_layer_norm": False, "eos_token_id": 2, "feat_extract_activation": "gelu",
  "feat_extract_dropout": 0.0, "feat_extract_norm": "group", "feat_proj_dropout": 0.1, "feat_quantizer_dropout": 0.0,
  "final_dropout": 0.1, "gradient_checkpointing": False, "hidden_act": "gelu", "hidden_dropout": 0.1,
  "hidden_dropout_prob": 0.1, "hidden_size": 768, "initializer_range": 0.02, "intermediate_size": 3072,
  "layer_norm_eps": 1e-05, "layerdrop": 0.1, "mask_feature_length": 10, "mask_feature_prob": 0.0, "mask_time_length": 10,
  "mask_time_prob": 0.05, "model_type": "wav2vec2", "num_attention_heads": 12, "num_codevector_groups": 2,
  "num_codevectors_per_group": 320, "num_conv_pos_embedding_groups": 16, "num_conv_pos_embeddings": 128,
  "num_feat_extract_layers": 7, "num_hidden_layers": 12, "num_negatives": 100, "pad_token_id": 0,
  "proj_codevector_dim": 256, "transformers_version": "4.7.0.dev0", "vocab_size": 32},
  T.wav2vec2_base_960h(),
  "Computed with an independent Python calculation from modeling_wav2vec2.py (Wav2Vec2ForCTC): conv feature encoder "
  "4,200,448 (bias-free convs, GroupNorm on layer 0) + feature projection + masked_spec_embed [768] + pos_conv_embed "
  "(weight_g [1, 1, 128], weight_v [768, 48, 128], bias) + encoder.layer_norm + 12 layers + lm_head [32, 768] = 94,396,320, the "
  "count commonly quoted for wav2vec2-base-960h (not re-read from the hub in this session)",
  [("wav2vec2.feature_extractor.conv_layers.0.conv.weight", [512, 1, 10]),
   ("wav2vec2.feature_extractor.conv_layers.0.layer_norm.weight", [512]),
   ("wav2vec2.feature_extractor.conv_layers.6.conv.weight", [512, 512, 2]),
   ("wav2vec2.encoder.pos_conv_embed.conv.weight_g", [1, 1, 128]),
   ("wav2vec2.encoder.pos_conv_embed.conv.weight_v", [768, 48, 128]), ("wav2vec2.masked_spec_embed", [768]),
   ("lm_head.weight", [32, 768])])

g("whisper-large-v3-turbo", "openai/whisper-large-v3-turbo", {
  "_name_or_path": "/raid/yoach/tmp_whisper_turbo", "activation_dropout": 0.0, "activation_function": "gelu",
  "apply_spec_augment": False, "architectures": ["WhisperForConditionalGeneration"], "attention_dropout": 0.0,
  "begin_suppress_tokens": [220, 50256], "bos_token_id": 50257, "classifier_proj_size": 256, "d_model": 1280,
  "decoder_attention_heads": 20, "decoder_ffn_dim": 5120, "decoder_layerdrop": 0.0, "decoder_layers": 4,
  "decoder_start_token_id": 50258, "dropout": 0.0, "encoder_attention_heads": 20, "encoder_ffn_dim": 5120,
  "encoder_layerdrop": 0.0, "encoder_layers": 32, "eos_token_id": 50257, "init_std": 0.02, "is_encoder_decoder": True,
  "mask_feature_length": 10, "mask_feature_min_masks": 0, "mask_feature_prob": 0.0, "mask_time_length": 10,
  "mask_time_min_masks": 2, "mask_time_prob": 0.05, "max_source_positions": 1500, "max_target_positions": 448,
  "median_filter_width": 7, "model_type": "whisper", "num_hidden_layers": 32, "num_mel_bins": 128, "pad_token_id": 50257,
  "scale_embedding": False, "torch_dtype": "float16", "transformers_version": "4.46.0.dev0", "use_cache": True,
  "use_weighted_layer_sum": False, "vocab_size": 51866},
  T.whisper_large_v3_turbo(),
  "808,878,080: the count quoted for openai/whisper-large-v3-turbo (the hub lists 809M; not re-read from the hub in this "
  "session), recomputed with an independent Python calculation from modeling_whisper.py (WhisperForConditionalGeneration): encoder conv1 [1280, 128, 3] + conv2 "
  "[1280, 1280, 3] (with biases) + embed_positions [1500, 1280] + 32 layers (k_proj without bias) + layer_norm = 636,968,960; "
  "decoder embed_tokens [51866, 1280] + embed_positions [448, 1280] + 4 layers with encoder_attn + layer_norm = 171,909,120; "
  "proj_out tied to embed_tokens, not stored",
  [("model.encoder.conv1.weight", [1280, 128, 3]), ("model.encoder.conv2.weight", [1280, 1280, 3]),
   ("model.encoder.embed_positions.weight", [1500, 1280]), ("model.encoder.layers.0.self_attn.k_proj.weight", [1280, 1280]),
   ("model.decoder.embed_positions.weight", [448, 1280]), ("model.decoder.layers.3.encoder_attn.q_proj.bias", [1280]),
   ("proj_out.weight", [51866, 1280])])

g("qwen2.5-vl-7b-instruct", "Qwen/Qwen2.5-VL-7B-Instruct", {
  "architectures": ["Qwen2_5_VLForConditionalGeneration"], "attention_dropout": 0.0, "bos_token_id": 151643,
  "eos_token_id": 151645, "vision_start_token_id": 151652, "vision_end_token_id": 151653, "vision_token_id": 151654,
  "image_token_id": 151655, "video_token_id": 151656, "hidden_act": "silu", "hidden_size": 3584,
  "initializer_range": 0.02, "intermediate_size": 18944, "max_position_embeddings": 128000, "max_window_layers": 28,
  "model_type": "qwen2_5_vl", "num_attention_heads": 28, "num_hidden_layers": 28, "num_key_value_heads": 4,
  "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 32768, "tie_word_embeddings": False,
  "torch_dtype": "bfloat16", "transformers_version": "4.41.2", "use_cache": True, "use_sliding_window": False,
  "vision_config": {"depth": 32, "hidden_act": "silu", "hidden_size": 1280, "intermediate_size": 3420,
                    "num_heads": 16, "in_chans": 3, "out_hidden_size": 3584, "patch_size": 14,
                    "spatial_merge_size": 2, "spatial_patch_size": 14, "window_size": 112,
                    "fullatt_block_indexes": [7, 15, 23, 31], "tokens_per_second": 2, "temporal_patch_size": 2},
  "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}, "vocab_size": 152064},
  T.qwen2_5_vl_7b(),
  "8,292,166,656: the hub's count for Qwen/Qwen2.5-VL-7B-Instruct as recalled (8.29B; not re-read from the hub in this "
  "session), recomputed with an independent Python calculation from modeling_qwen2_5_vl.py and modeling_qwen2.py: Qwen2 text "
  "7,615,616,512 (as Qwen2.5-7B: untied lm_head) + visual: patch_embed.proj Conv3d [1280, 3, 2, 14, 14] without bias + 32 "
  "blocks (RMSNorm norm1/norm2, qkv and proj with biases, gated MLP with biases) + merger (ln_q, mlp.0 [5120, 5120], mlp.2 "
  "[3584, 5120], biases) = 676,550,144",
  [("visual.patch_embed.proj.weight", [1280, 3, 2, 14, 14]), ("visual.blocks.0.attn.qkv.weight", [3840, 1280]),
   ("visual.blocks.31.mlp.down_proj.bias", [1280]), ("visual.merger.mlp.0.weight", [5120, 5120]),
   ("visual.merger.mlp.2.weight", [3584, 5120]), ("model.embed_tokens.weight", [152064, 3584]),
   ("lm_head.weight", [152064, 3584])])

g("qwen3-vl-8b-instruct", "Qwen/Qwen3-VL-8B-Instruct", {
  "architectures": ["Qwen3VLForConditionalGeneration"], "image_token_id": 151655, "model_type": "qwen3_vl",
  "text_config": {"attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 151643, "dtype": "bfloat16",
                  "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 4096,
                  "initializer_range": 0.02, "intermediate_size": 12288, "max_position_embeddings": 262144,
                  "model_type": "qwen3_vl_text", "num_attention_heads": 32, "num_hidden_layers": 36,
                  "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
                  "rope_scaling": {"mrope_interleaved": True, "mrope_section": [24, 20, 20], "rope_type": "default"},
                  "rope_theta": 5000000, "use_cache": True, "vocab_size": 151936},
  "tie_word_embeddings": False, "transformers_version": "4.57.0.dev0", "video_token_id": 151656,
  "vision_config": {"deepstack_visual_indexes": [8, 16, 24], "depth": 27, "hidden_act": "gelu_pytorch_tanh",
                    "hidden_size": 1152, "in_channels": 3, "initializer_range": 0.02, "intermediate_size": 4304,
                    "model_type": "qwen3_vl", "num_heads": 16, "num_position_embeddings": 2304,
                    "out_hidden_size": 4096, "patch_size": 16, "spatial_merge_size": 2, "temporal_patch_size": 2},
  "vision_end_token_id": 151653, "vision_start_token_id": 151652},
  T.qwen3_vl_8b(),
  "Computed with an independent Python calculation from modeling_qwen3_vl.py and modeling_qwen3.py (the hub lists the model "
  "as 8.77B; its exact total not re-read in this session): Qwen3 text 8,190,735,360 (as Qwen3-8B: untied lm_head, q_norm/"
  "k_norm) + model.visual: patch_embed.proj Conv3d [1152, 3, 2, 16, 16] with bias + pos_embed [2304, 1152] + 27 blocks "
  "(LayerNorms, qkv, proj, linear_fc1/fc2, biases) + merger (norm [1152], linear_fc1 [4608, 4608], linear_fc2 [4096, 4608]) "
  "+ 3 deepstack mergers (norm [4608]) = 576,388,336",
  [("model.visual.patch_embed.proj.weight", [1152, 3, 2, 16, 16]), ("model.visual.pos_embed.weight", [2304, 1152]),
   ("model.visual.blocks.26.mlp.linear_fc2.weight", [1152, 4304]),
   ("model.visual.deepstack_merger_list.2.norm.weight", [4608]), ("model.visual.merger.norm.weight", [1152]),
   ("model.language_model.embed_tokens.weight", [151936, 4096]),
   ("model.language_model.layers.0.self_attn.q_norm.weight", [128]), ("lm_head.weight", [151936, 4096])])

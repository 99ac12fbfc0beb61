// wasm/cardfit.d.ts: the types of dist/cardfit.js's JS API (wasm/api.js), copied next to it by the
// build. Not the report's full schema: only the fields callers rely on (docs/api.md has them all).

// <generated: scripts/gen-types.mjs>
/** Options of a plan: the core's option schema (cardfit.describe.options), one field each. */
export interface PlanOptions {
  /** What is planned: a full fine-tune, LoRA, QLoRA or serving. Default: "full". CLI: `--mode`. */
  mode?: 'full' | 'lora' | 'qlora' | 'serve';
  /** Training tokens per sample. An integer in [1, 16777216]. Default: 512, or 2048 for models of 1B+ parameters, capped at the context. CLI: `--seq N`. */
  seq?: number;
  /** Samples per micro-batch. An integer in [1, 1048576]. Default: 1. CLI: `--batch N`. */
  batch?: number;
  /** Serving context per sequence (prompt and output). An integer in [1, 16777216]. Default: `seq` if given, else the training length (4096 for models of 1B+ parameters). CLI: `--serve-seq N`. */
  serve_seq?: number;
  /** Micro-batches per optimizer step. An integer in [1, 1048576]. Default: 1. CLI: `--grad-accum N`. */
  grad_accum?: number;
  /** Images per sample through a vision tower (training and serving); 0 plans the text alone. An integer in [0, 4096]. Default: 1 for a model with a vision tower. CLI: `--images N`. */
  images?: number;
  /** Seconds of audio per sample through an audio tower (training and serving); no effect without one. An integer in [1, 3600]. Default: the model's clip: Whisper's 30 s window, Qwen3-Omni 30 s. CLI: `--audio-seconds S`. */
  audio_seconds?: number;
  /** Training precision (mixed: fp32 master weights). Default: "bf16-mixed". CLI: `--precision`. */
  precision?: 'bf16-mixed' | 'fp16-mixed' | 'bf16' | 'fp32';
  /** The optimizer whose states are held (muon: Muon on hidden weight matrices, AdamW on embeddings, head and vectors; none: forward and backward only). Default: "adamw". CLI: `--optimizer`. */
  optimizer?: 'adamw' | 'adamw8bit' | 'adafactor' | 'sgd' | 'muon' | 'none';
  /** The attention implementation (eager materialises the score matrix); llama.cpp: eager is -fa off. Default: sdpa; eager for a model that caps attention logits (Gemma 2: transformers trains it eager); llama.cpp: flash (its -fa auto enables it on CUDA). CLI: `--attention`. */
  attention?: 'sdpa' | 'eager' | 'flash';
  /** Gradient checkpointing: keep only each block's input, recompute the rest. Default: on for QLoRA (PEFT prepare_model_for_kbit_training enables it), off otherwise. CLI: `--grad-ckpt`. */
  grad_ckpt?: boolean;
  /** torchao float8 training: every nn.Linear but the head runs in fp8 (Float8Linear). Default: false. CLI: `--float8`. */
  float8?: boolean;
  /** The training stack whose policies are planned (hf: the Hugging Face Trainer). Default: "hf". CLI: `--stack`. */
  stack?: 'hf' | 'torchtune' | 'litgpt' | 'unsloth' | 'axolotl' | 'llamafactory';
  /** The loss over the logits: whole and upcast (full), in chunks of tokens, or fused with the head. Default: the stack's (hf: full). CLI: `--loss`. */
  loss?: 'full' | 'chunked' | 'fused';
  /** Chunked loss, torchtune style: chunks per sample, the head run inside the loss per chunk. An integer in [1, 16777216]. Default: the stack's (torchtune: 8). CLI: `--loss-chunks N`. */
  loss_chunks?: number;
  /** Chunked loss, LitGPT style: tokens per sequence per chunk of returned 16-bit logits. An integer in [1, 16777216]. Default: the stack's (litgpt: 128). CLI: `--loss-chunk-tokens N`. */
  loss_chunk_tokens?: number;
  /** none: pure 16-bit training (bf16 weights, gradients, states; no autocast, no fp32 master). Default: the stack's (hf: fp32). CLI: `--master-weights`. */
  master_weights?: 'fp32' | 'none';
  /** Step each parameter in backward and free its gradient (torchtune optimizer_in_bwd). Default: the stack's (hf: false). CLI: `--optimizer-in-bwd true|false`. */
  optimizer_in_bwd?: boolean;
  /** bitsandbytes paged optimizer: states in unified memory, outside the torch allocator. Default: the stack's (hf: false). CLI: `--paged-optimizer true|false`. */
  paged_optimizer?: boolean;
  /** Optimizer states and step on the host (DeepSpeed offload_optimizer on one GPU). Default: false (no stack presets it). CLI: `--optimizer-offload true|false`. */
  optimizer_offload?: boolean;
  /** With grad_ckpt: saved activations offloaded to the host (torchtune OffloadActivations). Default: the stack's (hf: false; unsloth: true). CLI: `--activation-offload true|false`. */
  activation_offload?: boolean;
  /** With grad_ckpt: checkpoint every k-th layer (torchtune selective activation checkpointing). An integer in [1, 4096]. Default: 1: every layer. CLI: `--ckpt-every K`. */
  ckpt_every?: number;
  /** With grad_ckpt: what a checkpointed layer keeps (layer: its input; selective_op: torchtitan's per-op save list). Default: layer. CLI: `--ckpt-policy`. */
  ckpt_policy?: 'layer' | 'selective_op';
  /** torch.compile of the model and loss. Default: the stack's (hf: false). CLI: `--compile true|false`. */
  compile?: boolean;
  /** Samples packed into rows of seq tokens (false: padded to the longest of the batch). Default: false. CLI: `--packing true|false`. */
  packing?: boolean;
  /** Plan the loading of the weights (dtype conversion, quantization) as a phase. Default: the stack's (hf: false). CLI: `--load-phase true|false`. */
  load_phase?: boolean;
  /** The dtype of the stored weights the load phase reads. Default: bf16. CLI: `--checkpoint-dtype`. */
  checkpoint_dtype?: 'bf16' | 'fp16' | 'fp32';
  /** LoRA rank r of every adapter. An integer in [1, 65536]. Default: 16. CLI: `--lora-rank N`. */
  lora_rank?: number;
  /** How QLoRA stores the frozen base: bitsandbytes NF4/FP4, LLM.int8 or GPTQ int4. Default: the checkpoint's (load_in_8bit: int8, else bnb_4bit_quant_type) where its config has a bitsandbytes quantization_config, else nf4. CLI: `--qlora-quant`. */
  qlora_quant?: 'nf4' | 'fp4' | 'int8' | 'gptq';
  /** Which linears QLoRA quantizes: all (every nn.Linear but the head) or only the LoRA-adapted ones (the rest 16-bit). Default: "all". CLI: `--quantize`. */
  quantize?: 'all' | 'adapted';
  /** PEFT modules_to_save: modules trained in full next to the adapters (e.g. lm_head). Default: none. CLI: `--modules-to-save a,b,...`. */
  modules_to_save?: string[];
  /** Module names that get adapters (e.g. q_proj, v_proj). Default: every linear layer but the head (omit the option; [] is refused). CLI: `--lora-targets q_proj,v_proj,...`. */
  lora_targets?: string[];
  /** The dtype of the served weights. Default: the checkpoint's stored format where its config has a quantization_config (mxfp4, fp8, gptq, awq, compressed-tensors, bitsandbytes), else bf16. CLI: `--serve-dtype`. */
  serve_dtype?: 'bf16' | 'fp16' | 'fp32' | 'fp8' | 'int8' | 'int4' | 'nf4';
  /** The dtype of the KV cache. Default: the activation dtype (fp32 when serving fp32). CLI: `--kv-dtype`. */
  kv_dtype?: 'bf16' | 'fp16' | 'fp32' | 'fp8';
  /** The serving engine whose memory budget, scheduler and throughput the serving section models. Default: "hf". CLI: `--engine`. */
  engine?: 'hf' | 'vllm' | 'sglang' | 'tgi' | 'llamacpp';
  /** hf engine: generation over serve_devices devices: layer_split gives each an equal share of the blocks (LitGPT generate/sequentially.py), tp shards the attention and MLP linears (generate/tp.py). Default: "none". CLI: `--serve-parallel`. */
  serve_parallel?: 'none' | 'layer_split' | 'tp';
  /** hf engine: devices of serve_parallel (the plan's peak is device 0's, which holds the embedding and head). An integer in [1, 4096]. Default: 1. CLI: `--serve-devices N`. */
  serve_devices?: number;
  /** Prompt tokens per request of the serving throughput and cost. An integer in [1, 16777216]. Default: 1024. CLI: `--prompt-tokens N`. */
  prompt_tokens?: number;
  /** Output tokens per request of the serving throughput and cost. An integer in [1, 16777216]. Default: 128. CLI: `--output-tokens N`. */
  output_tokens?: number;
  /** Share of the card's peak memory bandwidth a decode step reads at (the decode roofline). A number in (0, 1]. Default: 0.8. CLI: `--bandwidth-efficiency X`. */
  bandwidth_efficiency?: number;
  /** vLLM: the share of the card's memory the engine may use (weights, activations, KV cache). A number in (0, 1]. Default: 0.9. CLI: `--gpu-memory-utilization X`. */
  gpu_memory_utilization?: number;
  /** vLLM: the most sequences the scheduler runs at once. An integer in [1, 1048576]. Default: vLLM's for `vllm serve`: 1024 on cards of 70+ GiB other than the A100, else 256. CLI: `--max-num-seqs N`. */
  max_num_seqs?: number;
  /** vLLM: tokens per scheduler step (the profile run's size). An integer in [1, 16777216]. Default: vLLM's for `vllm serve`: 8192 on cards of 70+ GiB other than the A100, else 2048. CLI: `--max-num-batched-tokens N`. */
  max_num_batched_tokens?: number;
  /** vLLM: tokens per KV cache block. An integer in [1, 4096]. Default: 16. CLI: `--block-size N`. */
  block_size?: number;
  /** vLLM: CUDA-graph memory taken out of the KV budget (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1). An integer in [0, 1099511627776]. Default: 0. CLI: `--cuda-graph-bytes N`. */
  cuda_graph_bytes?: number;
  /** SGLang: the share of the card's memory for weights and the KV pool. A number in (0, 1]. Default: SGLang's, from the card's memory (server_args.py). CLI: `--mem-fraction-static X`. */
  mem_fraction_static?: number;
  /** TGI: --cuda-memory-fraction, the share of the card's memory the shard may use. A number in (0, 1]. Default: 1 (TGI's CUDA_MEMORY_FRACTION default, utils/dist.py). CLI: `--cuda-memory-fraction X`. */
  cuda_memory_fraction?: number;
  /** TGI: --max-batch-prefill-tokens, the warmup prefill's size. An integer in [1, 16777216]. Default: 4096. CLI: `--max-batch-prefill-tokens N`. */
  max_batch_prefill_tokens?: number;
  /** llama.cpp: the GGUF file type of the weights (the _M / _S mixes as llama-quantize makes them). Default: "q4_k_m". CLI: `--gguf`. */
  gguf?: 'f32' | 'f16' | 'bf16' | 'q8_0' | 'q6_k' | 'q5_k_m' | 'q5_k_s' | 'q5_1' | 'q5_0' | 'q4_k_m' | 'q4_k_s' | 'q4_1' | 'q4_0' | 'iq3_m' | 'iq3_s';
  /** llama.cpp: -ctk, the K cache type. Default: "f16". CLI: `--cache-type-k`. */
  cache_type_k?: 'f16' | 'bf16' | 'f32' | 'q8_0' | 'q5_1' | 'q5_0' | 'q4_1' | 'q4_0';
  /** llama.cpp: -ctv, the V cache type. Default: "f16". CLI: `--cache-type-v`. */
  cache_type_v?: 'f16' | 'bf16' | 'f32' | 'q8_0' | 'q5_1' | 'q5_0' | 'q4_1' | 'q4_0';
  /** llama.cpp: -ngl, repeated layers offloaded to the card (more than the layers: the output too). An integer in [0, 100000]. Default: every layer and the output. CLI: `--n-gpu-layers N`. */
  n_gpu_layers?: number;
  /** The priced card: an id of data/cards.json. Default: the catalog's priced card (defaults.priced_card, a10g). CLI: `--card ID`. */
  card?: string;
  /** Cards used for a run that fits one card; with parallel, the total ranks N. An integer in [1, 4096]. Default: 1. CLI: `--gpus N`. */
  gpus?: number;
  /** Multi-GPU training strategy per rank: DDP, FSDP1, FSDP2 fully_shard, HSDP, DeepSpeed ZeRO-1/2/3. Default: none: one card (DDP buckets when gpus > 1, as before). CLI: `--parallel`. */
  parallel?: 'none' | 'ddp' | 'fsdp' | 'fsdp2' | 'hsdp' | 'zero1' | 'zero2' | 'zero3';
  /** HSDP: ranks per shard group (FSDP over the group, replicas across groups); must divide gpus. An integer in [1, 4096]. Default: 8 (one node), capped at gpus. CLI: `--shard-group N`. */
  shard_group?: number;
  /** FSDP: 1 reshard after forward (FULL_SHARD), 0 keep gathered (SHARD_GRAD_OP), k > 1 FSDP2 reshard to k ranks. An integer in [0, 4096]. Default: 1. CLI: `--reshard-after-forward K`. */
  reshard_after_forward?: number;
  /** DeepSpeed offload_optimizer device cpu: fp32 master, optimizer states and fp32 gradients on the host. Default: false. CLI: `--offload-optimizer`. */
  offload_optimizer?: boolean;
  /** ZeRO-3 offload_param cpu, or FSDP CPUOffload(offload_params=True): sharded parameters on the host. Default: false. CLI: `--offload-params`. */
  offload_params?: boolean;
  /** Tensor-parallel degree: training with parallel splits heads and MLP columns (Megatron); serving splits weights and KV heads over tp ranks per replica. An integer in [1, 4096]. Default: 1. CLI: `--tp N`. */
  tp?: number;
  /** Context-parallel degree (sequence split, ring attention). An integer in [1, 4096]. Default: 1. CLI: `--cp N`. */
  cp?: number;
  /** Expert-parallel degree (MoE experts split, all-to-all). An integer in [1, 4096]. Default: 1. CLI: `--ep N`. */
  ep?: number;
  /** Dataset size of the priced run, in samples. An integer in [1, 1099511627776]. Default: 50000. CLI: `--samples N`. */
  samples?: number;
  /** Epochs of the priced run. An integer in [1, 100000]. Default: 10. CLI: `--epochs N`. */
  epochs?: number;
  /** Batch of the priced run. An integer in [1, 1048576]. Default: 32. CLI: `--cost-batch N`. */
  cost_batch?: number;
  /** Model FLOPs utilisation of the priced run. A number in (0, 1]. Default: the catalog default (0.40). CLI: `--mfu X`. */
  mfu?: number;
  /** USD per GPU-hour by card id, overriding the catalog. Default: the catalog's prices. CLI: `--prices CARD=USD,...`. */
  prices?: Record<string, number>;
  /** Only the cards I have: the card ids the card table keeps ("custom" for the custom card). Default: every card of data/cards.json. CLI: `--cards ID,ID,...`. */
  cards?: string[];
  /** A custom card (id "custom") of this many bytes a process can allocate (torch total_memory); it joins every table. An integer in [1048576, 1125899906842624]. Default: no custom card. CLI: `--custom-memory-bytes N`. */
  custom_memory_bytes?: number;
  /** The custom card's name. Default: "Custom card". CLI: `--custom-name NAME`. */
  custom_name?: string;
  /** The custom card runs bf16 tensor math (false: fp16 only, like T4 and V100). Default: true. CLI: `--custom-bf16 true|false`. */
  custom_bf16?: boolean;
  /** The custom card's dense 16-bit tensor peak in TFLOP/s (FP32 accumulate). A number in (0, 1000000]. Default: none: no time or cost. CLI: `--custom-tflops X`. */
  custom_tflops?: number;
  /** The custom card's memory bandwidth in GB/s. A number in (0, 1000000]. Default: none. CLI: `--custom-bw-gbps X`. */
  custom_bw_gbps?: number;
  /** The custom card's price in USD per GPU-hour. A number in [0, 10000]. Default: none: not priced. CLI: `--custom-usd-per-hr USD`. */
  custom_usd_per_hr?: number;
  /** Make it fit: the card (id) to fit the plan on; the report gains a fit section of changes, each re-planned. Default: none: no fit section. CLI: `--fit CARD`. */
  fit_card?: string;
  /** How many of fit_card you have. An integer in [1, 4096]. Default: 1. CLI: `--fit-cards N`. */
  fit_cards?: number;
  /** Scalars in the published weights, reconciled with the traced parameters. An integer in [1, 9223372036854776000]. Default: none. CLI: `--checkpoint-total N`. */
  checkpoint_total?: number;
  /** The JSON header text of a model.safetensors (the CLI reads it from the file). Default: none. CLI: `--safetensors FILE`. */
  safetensors_header?: string;
  /** The text of a model.safetensors.index.json. Default: none. CLI: `--safetensors-index FILE`. */
  safetensors_index?: string;
  /** torch.optim's implementation: foreach (a state-sized temporary), fused (none) or the for-loop. Default: "foreach". CLI: `--optimizer-impl`. */
  optimizer_impl?: 'foreach' | 'fused' | 'forloop';
  /** PEFT lora_dropout. A number in [0, 0.99]. Default: 0.05. CLI: `--lora-dropout P`. */
  lora_dropout?: number;
  /** The model's hidden and attention dropout. A number in [0, 0.99]. Default: the model type's. CLI: `--dropout P`. */
  dropout?: number;
  /** Encoder-decoder: target tokens per sample. An integer in [1, 16777216]. Default: `seq`. CLI: `--decoder-seq N`. */
  decoder_seq?: number;
  /** bitsandbytes double quantization of the 4-bit constants (bnb_4bit_use_double_quant). Default: the checkpoint's bnb_4bit_use_double_quant where its config has a bitsandbytes quantization_config, else true. CLI: `--double-quant true|false`. */
  double_quant?: boolean;
  /** bitsandbytes release: 0.39-0.43.1 keep each 4-bit linear's input for backward, 0.43.2+ do not. Default: "0.43.2+". CLI: `--bnb-version`. */
  bnb_version?: '0.43.2+' | '0.39-0.43.1';
  /** PEFT prepare_model_for_kbit_training: non-quantized weights to fp32. Default: the stack's (hf, unsloth, llamafactory: true; axolotl, torchtune: false). CLI: `--kbit-upcast true|false`. */
  kbit_upcast?: boolean;
  /** torch.autocast wraps the forward; false: the model itself is cast (DeepSpeed fp16/bf16 engines). Default: true. CLI: `--autocast true|false`. */
  autocast?: boolean;
  /** DeepSpeed ZeRO-1/2 reduce_bucket_size in elements. An integer in [1, 68719476736]. Default: not DeepSpeed. CLI: `--deepspeed-bucket N`. */
  deepspeed_bucket?: number;
  /** The CUDA context's bytes on each card, overriding the catalog. An integer in [0, 1099511627776]. Default: data/cards.json. CLI: `--cuda-context-bytes N`. */
  cuda_context_bytes?: number;
  /** The caching allocator's reserve as a fraction of the peak, overriding the catalog. A number in [0, 0.5]. Default: data/cards.json. CLI: `--allocator-reserve F`. */
  allocator_reserve?: number;
  /** The factor within which a fit is called borderline, overriding the measured one. A number in [1, 4]. Default: docs/accuracy.md. CLI: `--borderline-factor F`. */
  borderline_factor?: number;
}

/** Every error code the core, the JS API, the CLI and the page can answer (core/error.cpp). */
export type ErrorCode =
  | 'config.json_syntax'
  | 'config.not_object'
  | 'config.field_missing'
  | 'config.field_type'
  | 'config.field_range'
  | 'config.field_inconsistent'
  | 'config.model_type_unknown'
  | 'config.duplicate_key'
  | 'config.too_large'
  | 'options.unknown'
  | 'options.value'
  | 'checkpoint.header'
  | 'plan.overflow'
  | 'internal.uncaught'
  | 'api.config_not_string'
  | 'api.options_not_object'
  | 'api.options_not_json'
  | 'api.crashed'
  | 'api.load_failed'
  | 'cli.unknown_option'
  | 'cli.missing_value'
  | 'cli.unexpected_value'
  | 'cli.no_config'
  | 'cli.file_unreadable'
  | 'cli.not_utf8'
  | 'cli.safetensors_invalid'
  | 'cli.not_built'
  | 'cli.internal'
  | 'cli.bad_value'
  | 'cli.export'
  | 'cli.export_one'
  | 'hub.bad_id'
  | 'hub.unreachable'
  | 'hub.network'
  | 'hub.offline'
  | 'hub.timeout'
  | 'hub.unauthorized'
  | 'hub.forbidden'
  | 'hub.gated'
  | 'hub.repo_not_found'
  | 'hub.revision_not_found'
  | 'hub.not_found'
  | 'hub.rate_limited'
  | 'hub.http'
  | 'hub.bad_response'
  | 'hub.file'
  | 'hub.none'
  | 'safetensors.invalid'
  | 'widget.failed'
  | 'internal';
// </generated>

/** One option of the core's schema (cardfit.describe.options; docs/api.md, "Options"). */
export interface OptionSpec {
  name: keyof PlanOptions;
  type: 'enum' | 'integer' | 'number' | 'boolean' | 'names' | 'map' | 'text';
  /** The id of its group in the page's form (describe.groups). */
  group: string;
  doc: string;
  /** The CLI's flag, and its value placeholder (none: a switch). */
  flag: string;
  flag_arg?: string;
  /** The CLI reads the value from a file: its text, or only a safetensors header. */
  flag_reads?: 'file' | 'safetensors_header';
  values?: string[];
  min?: number;
  max?: number;
  min_exclusive?: boolean;
  max_length?: number;
  item?: { type: 'number'; min: number };
  /** The default as a value one could pass; null when computed (see default_note). */
  default: unknown;
  default_note?: string;
}

/** What the core accepts and answers: the option schema and the error registry. */
export interface Describe {
  readonly options: readonly OptionSpec[];
  readonly groups: readonly { id: string; title: string }[];
  readonly errors: readonly { code: ErrorCode; summary: string }[];
}

/** An error as data: a stable code, a message for people, the JSON path of the offending field. */
export interface CardfitError {
  code: ErrorCode;
  message: string;
  path: string;
  line?: number;
  column?: number;
}

export interface Report {
  ok: true;
  schema: string;
  headline: string;
  model: { model_type: string; approximate: boolean };
  params: { total: number; tensor_count: number; by_role: Record<string, number> };
  checkpoint: null | {
    scalars: number; params: number; buffers: number; unexplained: number;
    /** What the file stores beyond the model class, by role (mtp, quant_blocks, quant_scale, lookup_table, position_table, quant_state). */
    extras?: { role: string; tensors: number; scalars: number; dtypes: string[]; example: string }[];
    /** Parameters the file holds only as their packed blocks (MXFP4 _blocks, GPTQ qweight). */
    packed_replaced?: number;
    /** How packed blocks are counted: 'stored' (elements as stored), 'values' (the values they hold), '' none. */
    packed_counting?: string;
    /** Stored lengths the config leaves open (bitsandbytes' quant_state JSON, its nested_offset digits), present
     *  only when there are some and no header gives them: the tensors, the most scalars they may add beyond their
     *  least length, and how many of the total's scalars beyond it they explain (<= variable_max). */
    variable_tensors?: number;
    variable_max?: number;
    variable_assigned?: number;
  };
  plan: { mode: string; batch: number; seq: number; peak_bytes: number; reserved_bytes: number; components: Record<string, number> };
  /** Multi-GPU training per rank, present when options.parallel is set (docs/memory-model.md, "Multi-GPU"). */
  parallel?: ParallelSection;
  [field: string]: unknown;
}

export interface ParallelTopology { cards_per_node: number; nodes: number; intra_node: string; inter_node: string; recommended: boolean; note: string }
export interface ParallelComponent { id: string; label: string; bytes: number }
export interface ParallelSection {
  strategy: string; supported: boolean; note: string; batch: number; seq: number;
  layout: { gpus: number; dp: number; shard_group: number; tp: number; cp: number; ep: number; reshard_after_forward: number; offload_optimizer: boolean; offload_params: boolean };
  per_rank: { components: ParallelComponent[]; host_components: ParallelComponent[]; host_bytes: number; peak_bytes: number; reserved_bytes: number; peak_event: string; peak_phase: string; phases: { name: string; bytes: number }[] };
  priced_card: string; fits_priced_card: boolean; topology: ParallelTopology | null;
  cards: { id: string; name: string; capacity_bytes: number; interconnect: string;
    smallest: { strategy: string; offload: boolean; gpus: number | null; per_rank_reserved_bytes: number; host_bytes: number; topology: ParallelTopology | null }[] }[];
  assumptions: { id: string; text: string; source: string }[];
}

export interface TensorEntry { name: string; shape: number[]; count: number; tied: boolean; tied_to: string; role: string; layer: number;
  /** A stacked MoE entry ("...experts.{0..63}.w1.weight"): the experts it stands for; shape is one expert's. */
  experts?: number }
export interface GraphBlock { name: string; first: string; last: string; kind: string; repeat: number; params: number;
  /** The block indices this entry stands for (blocks with identical rows fold wherever they sit). */
  indices: number[]; contiguous: boolean; nodes: unknown[] }
type Answer<T> = ({ ok: true } & T) | { ok: false; error: CardfitError };

export interface Cardfit {
  /** The report schema this build produces, e.g. "cardfit.report/2". */
  readonly schema: string;
  /** The option schema and the error registry of this build (frozen). */
  readonly describe: Describe;
  /** Plans a config.json text: the core report (tens of KB). Never throws for bad input. */
  plan(configText: string, options?: PlanOptions): Report | { ok: false; error: CardfitError };
  /** plan()'s answer as the core wrote it: JSON text, pure ASCII (an error too), for a tool that passes it on. */
  planText(configText: string, options?: PlanOptions): string;
  /** On request: the graph (nodes, and blocks folded by signature). */
  graph(configText: string, options?: PlanOptions): Answer<{ batch: number; seq: number; images: number; node_count: number; nodes: unknown[]; blocks: GraphBlock[] }>;
  /** On request: params.tensors, MoE experts stacked per layer unless expandExperts. */
  tensors(configText: string, options?: PlanOptions, expandExperts?: boolean): Answer<{ expanded: boolean; tensor_count: number; tensors: TensorEntry[] }>;
  /** On request: memory against batch per mode (the page draws it from report.memory_events instead). */
  curves(configText: string, options?: PlanOptions): Answer<Record<'full' | 'lora' | 'qlora' | 'serve', { seq: number; points: Array<{ batch: number; peak_bytes: number; reserved_bytes: number }> }>>;
  /** On request: the Markdown twin. */
  markdown(configText: string, options?: PlanOptions): Answer<{ markdown: string }>;
}

export function createCardfit(): Promise<Cardfit>;
/** The raw Emscripten module factory (Embind: plan, graph, tensors, curves, markdown, handle, schema); prefer createCardfit. */
export function createCardfitModule(): Promise<unknown>;

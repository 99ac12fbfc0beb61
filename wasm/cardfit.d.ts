// wasm/cardfit.d.ts: the types of dist/cardfit.js's JS API (wasm/api.js), copied next to it by the
// build. Not the report's full schema: only the fields callers rely on (docs/api.md has them all).

/** Options of a plan; the CLI spells the same names with hyphens (--lora-rank = lora_rank). */
export interface PlanOptions {
  mode?: 'full' | 'lora' | 'qlora' | 'serve';
  batch?: number;
  seq?: number;
  serve_seq?: number;
  lora_rank?: number;
  lora_targets?: string[];
  optimizer?: 'adamw' | 'adamw8bit' | 'adafactor' | 'sgd';
  precision?: 'bf16-mixed' | 'fp16-mixed' | 'bf16' | 'fp32';
  grad_ckpt?: boolean;
  attention?: 'sdpa' | 'eager' | 'flash';
  serve_dtype?: 'bf16' | 'fp8' | 'int8' | 'int4';
  kv_dtype?: 'bf16' | 'fp8';
  gpus?: number;
  /** A card id of data/cards.json: the priced card. */
  card?: string;
  checkpoint_total?: number;
  /** The JSON header text of a model.safetensors. */
  safetensors_header?: string;
  /** The text of a model.safetensors.index.json. */
  safetensors_index?: string;
  epochs?: number;
  samples?: number;
  cost_batch?: number;
  mfu?: number;
  /** USD per GPU-hour by card id. */
  prices?: Record<string, number>;
}

/** An error as data: a stable code, a message for people, the JSON path of the offending field. */
export interface CardfitError {
  code: string;
  message: string;
  path: string;
  line?: number;
  column?: number;
  /** Only for api.crashed: what the wasm runtime said. */
  detail?: string;
}

export interface Report {
  ok: true;
  schema: string;
  headline: string;
  markdown?: string;
  model: { model_type: string; approximate: boolean };
  params: { total: number; tensors: Array<{ name: string; shape: number[]; count: number; tied: boolean; role?: string }> };
  checkpoint: null | { scalars: number; params: number; buffers: number; unexplained: number };
  plan: { mode: string; batch: number; seq: number; peak_bytes: number; reserved_bytes: number; components: Record<string, number> };
  [field: string]: unknown;
}

export interface Cardfit {
  /** The report schema this build produces, e.g. "cardfit.report/1". */
  readonly schema: string;
  /** Plans a config.json text; never throws for bad input, returns {ok: false, error} instead. */
  plan(configText: string, options?: PlanOptions): Report | { ok: false; error: CardfitError };
}

export function createCardfit(): Promise<Cardfit>;
/** The raw Emscripten module factory (Embind: handle(config, optionsJson), schema()); prefer createCardfit. */
export function createCardfitModule(): Promise<unknown>;

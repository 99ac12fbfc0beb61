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
}

export interface Report {
  ok: true;
  schema: string;
  headline: string;
  model: { model_type: string; approximate: boolean };
  params: { total: number; tensor_count: number; by_role: Record<string, number> };
  checkpoint: null | { scalars: number; params: number; buffers: number; unexplained: number };
  plan: { mode: string; batch: number; seq: number; peak_bytes: number; reserved_bytes: number; components: Record<string, number> };
  [field: string]: unknown;
}

export interface TensorEntry { name: string; shape: number[]; count: number; tied: boolean; tied_to: string; role: string; layer: number;
  /** A stacked MoE entry ("...experts.{0..63}.w1.weight"): the experts it stands for; shape is one expert's. */
  experts?: number }
export interface GraphBlock { name: string; first: string; last: string; kind: string; repeat: number; params: number;
  /** The block indices this entry stands for (blocks with identical rows fold wherever they sit). */
  indices: number[]; contiguous: boolean; nodes: unknown[] }
type Answer<T> = ({ ok: true } & T) | { ok: false; error: CardfitError };

export interface Cardfit {
  /** The report schema this build produces, e.g. "cardfit.report/1". */
  readonly schema: string;
  /** Plans a config.json text: the core report (tens of KB). Never throws for bad input. */
  plan(configText: string, options?: PlanOptions): Report | { ok: false; error: CardfitError };
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

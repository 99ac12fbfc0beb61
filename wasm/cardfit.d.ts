// wasm/cardfit.d.ts: the types of dist/cardfit.js's JS API (wasm/api.js), copied next to it by the
// build. Not the report's full schema: only the fields callers rely on (docs/api.md has them all).

// <generated: scripts/gen-types.mjs>
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
  /** The option schema and the error registry of this build (frozen). */
  readonly describe: Describe;
  /** Plans a config.json text; never throws for bad input, returns {ok: false, error} instead. */
  plan(configText: string, options?: PlanOptions): Report | { ok: false; error: CardfitError };
}

export function createCardfit(): Promise<Cardfit>;
/** The raw Emscripten module factory (Embind: handle(config, optionsJson), schema()); prefer createCardfit. */
export function createCardfitModule(): Promise<unknown>;

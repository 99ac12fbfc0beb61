// tests/hub-fixtures.mjs: mock-hub repositories shared by the CLI and browser tests. The history
// repo is Qwen2.5-3B's config.json as three commits: the first published it untied with a 131072
// context, a README commit left it unchanged, the third tied the embeddings and set the context to
// 32768 (the field that moves parameters and memory, and one that does not at 2048 tokens), and
// its index no longer stores lm_head.weight. Each checkpoint is a sharded index named from the
// core's own tensor list, and the metadata carries safetensors.total as the hub reports it. Not a
// test itself.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { sha } from './mock-hub.mjs';

const root = new URL('../', import.meta.url);
const read = (rel) => readFileSync(new URL(rel, root), 'utf8');

let api = null;
async function planner() {
  if (!api) api = await createRequire(import.meta.url)(new URL('dist/cardfit.js', root).pathname).createCardfit();
  return api;
}

// model.safetensors.index.json for a config, from the core's tensor names (tied copies not stored).
export async function indexFor(configText) {
  const r = (await planner()).plan(configText, {});
  const weightMap = {};
  const stored = [...r.params.tensors.filter((t) => !t.tied), ...r.params.buffers];
  stored.forEach((t, i) => { weightMap[t.name] = `model-0000${i < stored.length / 2 ? 1 : 2}-of-00002.safetensors`; });
  return { text: JSON.stringify({ metadata: { total_size: 2 * r.params.total }, weight_map: weightMap }, null, 2), total: r.params.total };
}

export const HISTORY_ID = 'acme/qwen-history';
export const historyCommits = [
  { id: sha('c3'), title: 'Fix config: tie the embeddings, 32k context', date: '2024-09-19T10:00:00.000Z', authors: [{ user: 'acme', avatar: '' }] },
  { id: sha('c2'), title: 'Add README', date: '2024-09-10T10:00:00.000Z', authors: [{ user: 'acme', avatar: '' }] },
  { id: sha('c1'), title: 'Upload model', date: '2024-09-01T10:00:00.000Z', authors: [{ user: 'acme', avatar: '' }] },
];

export async function historyRepo() {
  const now = read('web/examples/Qwen2.5-3B.json');
  const first = JSON.stringify({ ...JSON.parse(now), tie_word_embeddings: false, max_position_embeddings: 131072, transformers_version: '4.43.1' }, null, 2);
  const index = await indexFor(now);
  const firstIndex = await indexFor(first);   // untied: it stores lm_head.weight too
  const [c3, c2, c1] = historyCommits.map((c) => c.id);
  const files = { 'config.json': now, 'model.safetensors.index.json': index.text };
  return {
    files,
    revisions: {
      [c3]: { files },
      [c2]: { files: { 'config.json': first, 'model.safetensors.index.json': firstIndex.text } },
      [c1]: { files: { 'config.json': first, 'model.safetensors.index.json': firstIndex.text } },
    },
    commits: historyCommits,
    pageSize: 2,   // three commits: two pages, joined by the Link header
    info: {
      downloads: 711234, likes: 321, lastModified: '2024-09-19T10:00:00.000Z', gated: false, library_name: 'transformers',
      pipeline_tag: 'text-generation', safetensors: { parameters: { BF16: index.total }, total: index.total },
    },
  };
}

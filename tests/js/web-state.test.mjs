// tests/js/web-state.test.mjs: the share link (web/src/state.js) on its own: encode → decode gives
// back the state (plain and compressed texts, both slots, checkpoint files, options with their
// schema types, view, hub, units), short links name their source, and what the page must refuse
// is refused: another format version, text that does not decode, an unknown text encoding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { importWeb } from './web-loader.mjs';

const { encodeState, decodeState, FRAGMENT_VERSION } = await importWeb('state.js');
const gpt2 = readFileSync(new URL('../../web/examples/gpt2.json', import.meta.url), 'utf8');
const plain = (x) => JSON.parse(JSON.stringify(x));

test('a state with both slots, files, options, view, hub and units survives the round trip', async () => {
  const state = {
    a: { text: gpt2, label: 'openai-community/gpt2', hubId: 'openai-community/gpt2', checkpointTotal: 137022720,
      header: { name: 'model.safetensors', text: '{"wte.weight":{"dtype":"F32","shape":[50257,768],"data_offsets":[0,4]}}' }, index: null },
    b: { text: '{"model_type": "llama", "note": "ü → ✓"}', label: 'B', index: { name: 'i', text: '{"weight_map": {"a": "f"}}' }, header: null },
    options: { mode: 'lora', batch: 4, lora_targets: ['q_proj', 'v_proj'], grad_ckpt: true, prices: { 'h100-sxm': 2.5, a10g: 1 }, mfu: 0.35 },
    view: 'compare', hub: 'http://127.0.0.1:8000', units: 'gib',
  };
  const hash = await encodeState(state);
  assert.match(hash, new RegExp(`^#${FRAGMENT_VERSION}&`));
  const back = await decodeState(hash);
  assert.equal(back.a.text, gpt2);
  assert.equal(back.a.label, 'openai-community/gpt2');
  assert.equal(back.a.hubId, 'openai-community/gpt2');
  assert.equal(back.a.checkpointTotal, 137022720);
  assert.equal(back.a.header.text, state.a.header.text);
  assert.equal(back.b.text, state.b.text);
  assert.equal(back.b.index.text, state.b.index.text);
  assert.deepEqual(plain(back.options), state.options);
  assert.deepEqual([back.view, back.hub, back.units], ['compare', 'http://127.0.0.1:8000', 'gib']);
});

test('a long text travels compressed (z.), a short one plain (j.), and both read back', async () => {
  const long = await encodeState({ a: { text: gpt2 }, options: {} });
  const short = await encodeState({ a: { text: '{}' }, options: {} });
  const value = (hash) => new URLSearchParams(hash.slice(1)).get('a');
  assert.match(value(long), /^z\./);
  assert.ok(value(long).length < Buffer.from(gpt2).toString('base64').length, 'compression made it shorter');
  assert.match(value(short), /^j\./);
  assert.equal((await decodeState(long)).a.text, gpt2);
  assert.equal((await decodeState(short)).a.text, '{}');
});

test('defaults are not written: no view, units or empty slot in the link', async () => {
  const hash = await encodeState({ a: { text: '{}' }, b: { text: '' }, options: {}, view: 'plan', hub: '', units: '' });
  assert.deepEqual([...new URLSearchParams(hash.slice(1)).keys()], ['v1', 'a']);
});

test('short links name an example or a hub id instead of carrying the text', async () => {
  const st = await decodeState('#v1&a=ex:Qwen/Qwen2.5-7B&b=hub:org/name@rev&mode=serve');
  assert.equal(st.a.example, 'Qwen/Qwen2.5-7B');
  assert.equal(st.a.text, '');
  assert.equal(st.b.hubId, 'org/name@rev');
  assert.equal(st.options.mode, 'serve');
});

test('refusals: another version, broken text, an unknown encoding; an anchor is not a link', async () => {
  await assert.rejects(decodeState('#v2&a=j.e30'), /share-link format v2; this page reads v1/);
  await assert.rejects(decodeState('#v1&a=j.%FF%FE'), Error);                  // not base64 of UTF-8
  await assert.rejects(decodeState(`#v1&a=j.${Buffer.from([0xc3, 0x28]).toString('base64url')}`), TypeError);  // invalid UTF-8
  await assert.rejects(decodeState('#v1&a=q.abc'), /unknown text encoding "q\."/);
  assert.equal(await decodeState('#results'), null);
  assert.equal(await decodeState(''), null);
});

// web/src/sources.js: where a config comes from besides the paste box and the hub. Files:
// config.json, a model.safetensors (only its header is read, with File.slice: 8 bytes of length,
// then the JSON header; never the weights) or a model.safetensors.index.json. The hub is
// web/src/hub.js (SourceError and headerLength are its). Not a planner:
// it returns text for the core.

import { SourceError, headerLength } from './hub.js';

// What a dropped or chosen file is: 'safetensors', 'index' or 'config' (by name, then content).
export async function readDroppedFile(file) {
  const name = file.name || 'file';
  if (/\.safetensors$/i.test(name)) {
    const n = headerLength(await file.slice(0, 8).arrayBuffer());
    if (8 + n > file.size) throw new SourceError('safetensors', `${name}: the header claims ${n} bytes but the file has ${file.size}.`);
    const text = await file.slice(8, 8 + n).text();
    return { kind: 'safetensors', name, text };
  }
  if (file.size > 64 * 1024 * 1024) throw new SourceError('file', `${name} is ${Math.round(file.size / 1e6)} MB: not a config.json. Drop a config.json, a model.safetensors or its index.`);
  const text = await file.text();
  let json = null;
  try { json = JSON.parse(text); } catch (e) { /* the core reports the syntax error with line and column */ }
  if (/\.index\.json$/i.test(name) || (json && typeof json === 'object' && json.weight_map && typeof json.weight_map === 'object')) {
    return { kind: 'index', name, text };
  }
  return { kind: 'config', name, text };
}

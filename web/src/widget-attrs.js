// web/src/widget-attrs.js: the <cardfit-plan> element's attributes (web/src/widget.js): every
// option of the core's schema, its name with dashes (lora_rank → lora-rank), typed as share links
// type them (web/src/state.js), and the attributes that name the source. Pure: no DOM but the
// element's getAttribute/hasAttribute.

import { OPTION_SCHEMA } from 'cardfit:option-schema';
import { OPTION_SPECS, optionFromString } from './state.js';

export const OPTION_ATTRS = OPTION_SCHEMA.options.map((o) => o.name.replace(/_/g, '-'));
export const SOURCE_ATTRS = ['config-url', 'hub-id', 'hub', 'page-url', 'theme', 'label'];

// Attribute text → option values, typed by the schema as share links are (optionFromString); a
// boolean attribute present without a value is true (<cardfit-plan grad-ckpt>).
export function attrOptions(node) {
  const o = {};
  for (const a of OPTION_ATTRS) {
    if (!node.hasAttribute(a)) continue;
    const v = node.getAttribute(a).trim();
    const name = a.replace(/-/g, '_');
    if (OPTION_SPECS.get(name).type === 'boolean' && v === '') o[name] = true;
    else if (v !== '') o[name] = optionFromString(name, v);
  }
  return o;
}

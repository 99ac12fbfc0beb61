// web/src/export-menu.js: the training configs in the page's export menu: accelerate, DeepSpeed,
// TRL + PEFT, Axolotl, torchtune and the "measure one step" script (web/src/exports/*.js), each
// written from the current plan's report. Reads the page's store (web/src/store.js): reports.a
// (the plan), a (the config text and hub id) and options; says what it did through `say`. Not a
// planner.

import { el } from './format.js';
import { download, fileStem } from './exports.js';
import { EXPORT_TARGETS, renderExport } from './exports/targets.js';

export function addTrainingExports(store, say) {
  const menu = document.querySelector('.export-menu');
  if (!menu) return;
  const buttons = EXPORT_TARGETS.map((t) => el('button', { type: 'button', dataset: { trainExport: t.id } }, t.label));
  menu.append(el('p', { className: 'export-group' }, el('strong', null, 'Configs to run, with this plan\'s settings')), ...buttons);
  for (const b of buttons) {
    b.addEventListener('click', () => {
      const { reports, a, options } = store.get();
      const r = reports.a;
      if (!r) return;
      try {
        const { target, text: body } = renderExport(b.dataset.trainExport, r, { options, configText: (a || {}).text || '', modelId: (a || {}).hubId || '' });
        download(target.file(fileStem((a || {}).label)), body, target.type);
        say(`${target.label}: downloaded, with the plan's micro-batch, accumulation, precision, checkpointing${r.plan.mode === 'lora' || r.plan.mode === 'qlora' ? ' and LoRA' : ''} settings.`);
      } catch (e) {
        say(`Not exported: ${e.message}`);
      }
    });
  }
}

// web/src/export-menu.js: the training configs in the page's export menu: accelerate, DeepSpeed,
// TRL + PEFT, Axolotl, torchtune and the "measure one step" script (web/src/exports/*.js), each
// written from the current plan's report. Loaded after app.js and uses its state: reports.a (the
// plan), state.a (the config text and hub id) and state.options. Not a planner.

(function addTrainingExports() {
  const menu = document.querySelector('.export-menu');
  if (!menu) return;
  const buttons = EXPORT_TARGETS.map((t) => el('button', { type: 'button', dataset: { trainExport: t.id } }, t.label));
  menu.append(el('p', { className: 'export-group' }, el('strong', null, 'Configs to run, with this plan\'s settings')), ...buttons);
  for (const b of buttons) {
    b.addEventListener('click', () => {
      const r = reports.a;
      if (!r) return;
      try {
        const { target, text: body } = renderExport(b.dataset.trainExport, r, { options: state.options, configText: (state.a || {}).text || '', modelId: (state.a || {}).hubId || '' });
        download(target.file(fileStem((state.a || {}).label)), body, target.type);
        statusBox.textContent = `${target.label}: downloaded, with the plan's micro-batch, accumulation, precision, checkpointing${r.plan.mode === 'lora' || r.plan.mode === 'qlora' ? ' and LoRA' : ''} settings.`;
      } catch (e) {
        statusBox.textContent = `Not exported: ${e.message}`;
      }
    });
  }
})();

// web/src/exports/axolotl.js: an Axolotl YAML with the plan's settings. The dataset, learning
// rate and epochs are the user's (cardfit does not plan them) and marked so.

export const EXPORT_AXOLOTL = {
  id: 'axolotl',
  label: 'Axolotl config (.yaml)',
  file: (stem) => `${stem}.axolotl.yaml`,
  type: 'text/yaml',
  render(s, h) {
    const q = (v) => JSON.stringify(String(v));   // a YAML double-quoted scalar
    const mp = h.mixedPrecision(s);
    const stage = h.zeroStage(s);
    const lines = [
      `# cardfit plan for ${s.modelId || s.modelType} (cardfit estimates from the config, not measurements)`,
      `# ${s.mode} on ${s.cards} x ${s.cardName}; cardfit's peak ${h.GB(s.peakBytes)} per card (torch.cuda.max_memory_allocated).`,
      ...(s.layoutNote ? [`# ${s.layoutNote}`] : []),
      ...h.muonNote(s),
      `base_model: ${q(s.modelId || './model')}`,
      `sequence_len: ${s.seq}`,
      `micro_batch_size: ${s.microBatch}`,
      `gradient_accumulation_steps: ${s.gradAccum}`,
      `bf16: ${mp === 'bf16'}`,
      `fp16: ${mp === 'fp16'}`,
      `gradient_checkpointing: ${s.gradCkpt}`,
      `optimizer: ${h.hfOptim(s)}`,
      `sdp_attention: ${s.attention === 'sdpa'}`,
      `flash_attention: ${s.attention === 'flash'}`,
    ];
    if (s.lora) {
      lines.push(`adapter: ${s.quant && s.quant.kind !== 'int8' ? 'qlora' : 'lora'}`);
      if (s.quant) lines.push(s.quant.kind === 'int8' ? 'load_in_8bit: true' : 'load_in_4bit: true');
      lines.push(`lora_r: ${s.lora.rank}`, `lora_alpha: ${s.lora.alpha}  # no effect on memory; not planned`, `lora_dropout: ${s.lora.dropout}`);
      if (s.lora.targets === 'all-linear') lines.push('lora_target_linear: true');
      else lines.push('lora_target_modules:', ...s.lora.targets.map((t) => `  - ${q(t)}`));
      if (s.lora.modulesToSave.length) lines.push('lora_modules_to_save:', ...s.lora.modulesToSave.map((t) => `  - ${q(t)}`));
    }
    if (stage === 3) lines.push('fsdp:', '  - full_shard', '  - auto_wrap', 'fsdp_config:', '  fsdp_version: 1', '  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP');
    else if (stage) lines.push(`deepspeed: ds_config.json  # cardfit --export deepspeed (ZeRO-${stage})`);
    lines.push('# Not planned by cardfit: your data and schedule.',
      'datasets:', '  - path: your/dataset', '    type: alpaca', 'learning_rate: 0.0002', 'num_epochs: 1', 'output_dir: ./cardfit-run');
    return lines.join('\n') + '\n';
  },
};


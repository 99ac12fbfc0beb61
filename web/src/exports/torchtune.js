// web/src/exports/torchtune.js: a `tune run` line with the plan's settings as config overrides
// (torchtune's recipe names and keys). torchtune trains in one dtype (no autocast): a mixed plan
// maps to dtype=bf16, which holds 16-bit rather than fp32 master weights, and the line says so.

export const EXPORT_TORCHTUNE = {
  id: 'torchtune',
  label: 'torchtune override line (.sh)',
  file: (stem) => `${stem}.torchtune.sh`,
  type: 'text/x-shellscript',
  render(s, h) {
    const adapted = !!s.lora;
    const recipe = `${adapted ? 'lora' : 'full'}_finetune_${s.cards > 1 ? 'distributed' : 'single_device'}`;
    const args = [`batch_size=${s.microBatch}`, `gradient_accumulation_steps=${s.gradAccum}`, `tokenizer.max_seq_len=${s.seq}`,
      `enable_activation_checkpointing=${s.gradCkpt ? 'True' : 'False'}`, `dtype=${s.precision === 'fp32' ? 'fp32' : 'bf16'}`];
    const optim = { adamw: 'torch.optim.AdamW', adamw8bit: 'bitsandbytes.optim.AdamW8bit', sgd: 'torch.optim.SGD' }[s.optimizer];
    if (optim) args.push(`optimizer._component_=${optim}`);
    if (s.optimizer === 'adamw' && s.optimizerImpl === 'fused') args.push('optimizer.fused=True');
    const notes = [];
    if (adapted) {
      const all = s.lora.targets === 'all-linear';
      const t = all ? ['q_proj', 'v_proj', 'k_proj', 'o_proj'] : s.lora.targets;
      const attn = t.map((x) => ({ q_proj: 'q_proj', k_proj: 'k_proj', v_proj: 'v_proj', o_proj: 'output_proj', out_proj: 'output_proj', dense: 'output_proj' }[x])).filter(Boolean);
      const mlp = all || t.some((x) => /gate_proj|up_proj|down_proj|fc1|fc2|w1|w2|w3/.test(x));
      args.push(`model.lora_rank=${s.lora.rank}`, `model.lora_alpha=${s.lora.alpha}`, `model.lora_dropout=${s.lora.dropout}`,
        `"model.lora_attn_modules=[${[...new Set(attn)].join(',')}]"`, `model.apply_lora_to_mlp=${mlp ? 'True' : 'False'}`, 'model.apply_lora_to_output=False');
    }
    if (s.optimizer === 'muon') notes.push('# torchtune\'s recipes build one optimizer over every parameter; torch.optim.Muon takes 2-D ones only: the plan\'s Muon + AdamW is not expressed here.');
    if (s.optimizer === 'adafactor') notes.push('# torchtune has no Adafactor recipe option: the plan\'s Adafactor is not expressed here.');
    if (s.quant) notes.push(`# QLoRA: pick the model's qlora_* config (torchtune quantizes the base to NF4${s.quant.kind !== 'nf4' ? `; cardfit planned ${s.quant.kind}` : ''}).`);
    if (/mixed/.test(s.precision)) notes.push(`# cardfit planned ${s.precision} (fp32 master weights under autocast); torchtune's dtype=bf16 keeps bf16 weights: re-plan with --precision bf16 for its memory.`);
    if (s.layoutNote) notes.push(`# ${s.layoutNote}`);
    const launcher = s.cards > 1 ? `tune run --nproc_per_node ${s.cards} ${recipe}` : `tune run ${recipe}`;
    return [`# cardfit plan for ${s.modelId || s.modelType} (cardfit estimates from the config, not measurements)`, `# Use the torchtune config of your model (tune ls), e.g. llama3_1/8B_${adapted ? (s.quant ? 'qlora' : 'lora') : 'full'}${s.cards > 1 ? '' : '_single_device'}.`,
      ...notes, `${launcher} --config CONFIG ${args.join(' ')}`].join('\n') + '\n';
  },
};


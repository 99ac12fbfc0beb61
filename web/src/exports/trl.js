// web/src/exports/trl.js: a Python snippet with TRL's SFTConfig (a transformers TrainingArguments)
// and, for LoRA/QLoRA, PEFT's LoraConfig and the bitsandbytes quantization, all with the plan's
// settings. Strings are written as JSON string literals, which Python reads the same.

export const EXPORT_TRL = {
  id: 'trl',
  label: 'TRL SFTConfig + PEFT LoraConfig (.py)',
  file: (stem) => `${stem}.trl.py`,
  type: 'text/x-python',
  render(s, h) {
    const py = (v) => (v === true ? 'True' : v === false ? 'False' : v === null || v === undefined ? 'None' : JSON.stringify(v));
    const out = [
      `# cardfit plan for ${s.modelId || s.modelType} (cardfit estimates from the config, not measurements)`,
      `# ${s.mode} on ${s.cards} x ${s.cardName}; cardfit's peak ${h.GB(s.peakBytes)} per card (torch.cuda.max_memory_allocated).`,
      ...(s.layoutNote ? [`# ${s.layoutNote}`] : []),
      ...h.muonNote(s),
      'import torch',
    ];
    if (s.lora) out.push('from peft import LoraConfig');
    if (s.quant) out.push('from transformers import BitsAndBytesConfig');
    out.push('from trl import SFTConfig', '');
    const init = [`"torch_dtype": torch.${h.weightDtype(s)}`, `"attn_implementation": ${py(s.attention === 'flash' ? 'flash_attention_2' : s.attention)}`];
    if (s.quant) {
      const q = s.quant.kind === 'int8'
        ? 'BitsAndBytesConfig(load_in_8bit=True)'
        : `BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=${py(s.quant.kind === 'fp4' ? 'fp4' : 'nf4')}, bnb_4bit_use_double_quant=${py(s.quant.doubleQuant)}, bnb_4bit_compute_dtype=torch.bfloat16)`;
      out.push(`quantization_config = ${q}`);
      init.push('"quantization_config": quantization_config');
      if (s.quant.kind === 'gptq') out.push('# cardfit planned a GPTQ base: load a GPTQ checkpoint instead of the bitsandbytes config above.');
    }
    if (s.lora) {
      out.push('peft_config = LoraConfig(',
        `    r=${s.lora.rank},`,
        `    lora_alpha=${s.lora.alpha},  # no effect on memory; not planned`,
        `    lora_dropout=${s.lora.dropout},`,
        `    target_modules=${py(s.lora.targets)},`,
        `    modules_to_save=${s.lora.modulesToSave.length ? py(s.lora.modulesToSave) : 'None'},`,
        '    task_type="CAUSAL_LM",',
        ')');
    }
    const stage = h.zeroStage(s);
    out.push('training_args = SFTConfig(',
      '    output_dir="cardfit-run",',
      `    per_device_train_batch_size=${s.microBatch},`,
      `    gradient_accumulation_steps=${s.gradAccum},`,
      `    max_length=${s.seq},  # TRL before 0.16 names it max_seq_length`,
      `    bf16=${py(s.precision === 'bf16-mixed' || s.precision === 'bf16')},`,
      `    fp16=${py(s.precision === 'fp16-mixed')},`,
      `    gradient_checkpointing=${py(s.gradCkpt)},`,
      ...(s.gradCkpt ? ['    gradient_checkpointing_kwargs={"use_reentrant": False},'] : []),
      `    optim=${py(h.hfOptim(s))},`,
      ...(stage === 3 ? ['    fsdp="full_shard auto_wrap",'] : stage ? [`    deepspeed="ds_config.json",  # cardfit --export deepspeed (ZeRO-${stage})`] : []),
      `    model_init_kwargs={${init.join(', ')}},`,
      ')',
      `# Launch on ${s.cards} card${s.cards > 1 ? 's' : ''}: ${s.cards > 1 ? `accelerate launch --num_processes ${s.cards} train.py` : 'python train.py'}`,
      `# trainer = SFTTrainer(model=${py(s.modelId || 'path/to/model')}, args=training_args, train_dataset=...${s.lora ? ', peft_config=peft_config' : ''})`);
    return out.join('\n') + '\n';
  },
};


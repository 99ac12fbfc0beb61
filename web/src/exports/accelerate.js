// web/src/exports/accelerate.js: an `accelerate launch --config_file` YAML for the plan's layout:
// one card (NO), data parallel over the planned cards (MULTI_GPU, DDP), ZeRO-3 as FSDP FULL_SHARD,
// ZeRO-1/2 as DeepSpeed. Keys as `accelerate config` writes them (accelerate 1.x).

export const EXPORT_ACCELERATE = {
  id: 'accelerate',
  label: 'accelerate config (.yaml)',
  file: (stem) => `${stem}.accelerate.yaml`,
  type: 'text/yaml',
  render(s, h) {
    const stage = h.zeroStage(s);
    const type = stage === 3 ? 'FSDP' : stage ? 'DEEPSPEED' : s.cards > 1 ? 'MULTI_GPU' : 'NO';
    const lines = [
      `# cardfit plan for ${s.modelId || s.modelType} (cardfit estimates from the config, not measurements)`,
      `# ${s.mode} on ${s.cards} x ${s.cardName}: micro-batch ${s.microBatch} x ${s.gradAccum} accumulation steps, ${s.seq} tokens, ${s.precision}` +
        `${s.gradCkpt ? ', gradient checkpointing' : ''}; cardfit's peak ${h.GB(s.peakBytes)} per card (torch.cuda.max_memory_allocated).`,
      ...(s.layoutNote ? [`# ${s.layoutNote}`] : []),
      '# Use: accelerate launch --config_file this.yaml train.py (per_device_train_batch_size and',
      '# gradient_accumulation_steps as below in your TrainingArguments).',
      'compute_environment: LOCAL_MACHINE',
      'debug: false',
      `distributed_type: ${type}`,
      'downcast_bf16: \'no\'',
      'machine_rank: 0',
      'main_training_function: main',
      `mixed_precision: ${h.mixedPrecision(s) === 'no' ? '\'no\'' : h.mixedPrecision(s)}`,
      'num_machines: 1',
      `num_processes: ${s.cards}`,
      'rdzv_backend: static',
      'same_network: true',
      'use_cpu: false',
    ];
    if (type === 'FSDP') {
      lines.push('fsdp_config:',
        `  fsdp_activation_checkpointing: ${s.gradCkpt}`,
        '  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP',
        '  fsdp_backward_prefetch: BACKWARD_PRE',
        '  fsdp_cpu_ram_efficient_loading: true',
        '  fsdp_offload_params: false',
        '  fsdp_sharding_strategy: FULL_SHARD',
        '  fsdp_state_dict_type: SHARDED_STATE_DICT',
        '  fsdp_sync_module_states: true',
        '  fsdp_use_orig_params: true');
    } else if (type === 'DEEPSPEED') {
      lines.push('deepspeed_config:',
        `  gradient_accumulation_steps: ${s.gradAccum}`,
        '  gradient_clipping: 1.0',
        '  offload_optimizer_device: none',
        '  offload_param_device: none',
        '  zero3_init_flag: false',
        `  zero_stage: ${stage}`);
    }
    return lines.join('\n') + '\n';
  },
};


// web/src/exports/deepspeed.js: a DeepSpeed config JSON (ds_config.json) with the plan's
// micro-batch, accumulation, precision and ZeRO stage (0 when the plan needs no sharding). The
// "auto" values are filled in by the transformers Trainer integration; the planned ones are not.

export const EXPORT_DEEPSPEED = {
  id: 'deepspeed',
  label: 'DeepSpeed ZeRO config (.json)',
  file: (stem) => `${stem}.ds_config.json`,
  type: 'application/json',
  render(s, h) {
    const stage = h.zeroStage(s);
    const zero = { stage, overlap_comm: true, contiguous_gradients: true };
    if (stage >= 1 && stage <= 2) zero.reduce_bucket_size = s.deepspeedBucket || 500000000;
    if (stage === 3) Object.assign(zero, { stage3_gather_16bit_weights_on_model_save: true });
    const cfg = {
      train_micro_batch_size_per_gpu: s.microBatch,
      gradient_accumulation_steps: s.gradAccum,
      train_batch_size: s.microBatch * s.gradAccum * s.cards,
      gradient_clipping: 1.0,
      zero_optimization: zero,
      steps_per_print: 10,
      wall_clock_breakdown: false,
    };
    const mp = h.mixedPrecision(s);
    if (mp === 'bf16') cfg.bf16 = { enabled: true };
    if (mp === 'fp16') cfg.fp16 = { enabled: true, loss_scale: 0, initial_scale_power: 16 };
    return JSON.stringify(cfg, null, 2) + '\n';
  },
};


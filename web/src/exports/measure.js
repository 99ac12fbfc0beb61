// web/src/exports/measure.js: a "measure one step" Python script. It builds the planned model from
// its config with random weights on the user's GPU (no download), runs the planned step (mode,
// micro-batch x accumulation, sequence, precision, checkpointing, LoRA, optimizer) and prints
// torch.cuda.max_memory_allocated() beside cardfit's estimate. Method as tests/accuracy/measure.py:
// the first step creates the optimizer states, the peak is read over the second one (the steady
// state the plan's peak_bytes describes). Serving runs one generate() token instead.

export const EXPORT_MEASURE = {
  id: 'measure',
  label: 'Measure one step on your GPU (.py)',
  file: (stem) => `${stem}.measure.py`,
  type: 'text/x-python',
  anyLayout: true,   // one card's step, whatever the multi-card layout
  render(s, h) {
    const py = (v) => (v === true ? 'True' : v === false ? 'False' : v === null || v === undefined ? 'None' : JSON.stringify(v));
    if (!s.configText) throw new Error('The measure script needs the config text.');
    let config;
    try { config = JSON.stringify(JSON.parse(s.configText)); } catch (e) { throw new Error('The config is not valid JSON.'); }
    const plan = {
      mode: s.mode, micro_batch: s.microBatch, grad_accum: s.gradAccum, seq: s.seq, precision: s.precision,
      grad_ckpt: s.gradCkpt, optimizer: s.optimizer, optimizer_impl: s.optimizerImpl, attention: s.attention,
      lora_rank: s.lora ? s.lora.rank : null, lora_alpha: s.lora ? s.lora.alpha : null, lora_dropout: s.lora ? s.lora.dropout : null,
      lora_targets: s.lora ? s.lora.targets : null, modules_to_save: s.lora ? s.lora.modulesToSave : null,
      quant: s.quant ? s.quant.kind : null, double_quant: s.quant ? s.quant.doubleQuant : null,
      estimate_peak_bytes: s.peakBytes, estimate_reserved_bytes: s.reservedBytes,
    };
    return `#!/usr/bin/env python3
"""Measure one step of the cardfit plan on this GPU, with random weights (nothing is downloaded).

cardfit plan for ${String(s.modelId || s.modelType).replace(/[^\w./@-]/g, '_')}: ${s.mode}, micro-batch ${s.microBatch} x ${s.gradAccum}, ${s.seq} tokens, ${s.precision}; estimated peak ${h.GB(s.peakBytes)}.
Needs torch and transformers${s.lora ? ', peft' : ''}${s.quant ? ', bitsandbytes' : ''}${s.optimizer === 'adamw8bit' ? ', bitsandbytes' : ''}. Run: python3 this.py
The plan is for one card; a multi-card layout (${s.cards} x ${s.cardName}, ${s.strategy}) is not reproduced here.
"""
import json
import os
import sys
import tempfile

import torch

CONFIG = json.loads(${py(config)})
PLAN = json.loads(${py(JSON.stringify(plan))})

DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}
WEIGHT_DTYPE = DTYPES[${py(h.weightDtype(s))}]
AUTOCAST = {"bf16-mixed": torch.bfloat16, "fp16-mixed": torch.float16, "bf16": torch.bfloat16}.get(PLAN["precision"])
ATTENTION = {"flash": "flash_attention_2"}.get(PLAN["attention"], PLAN["attention"])


def model_class(transformers):
    # The config's own architecture class when transformers has it, else a causal LM.
    for name in CONFIG.get("architectures") or []:
        if hasattr(transformers, name):
            return getattr(transformers, name)
    return transformers.AutoModelForCausalLM


def build(tmp):
    import transformers
    from transformers import AutoConfig

    with open(os.path.join(tmp, "config.json"), "w") as f:
        json.dump(CONFIG, f)
    cfg = AutoConfig.from_pretrained(tmp)
    cfg.use_cache = PLAN["mode"] == "serve"
    cls = model_class(transformers)
    if PLAN["quant"] is None:
        with torch.device("cuda"):
            model = cls._from_config(cfg, torch_dtype=WEIGHT_DTYPE, attn_implementation=ATTENTION)
    else:  # random bf16 weights saved, then reloaded quantized as bitsandbytes does for a hub checkpoint
        from transformers import BitsAndBytesConfig
        from peft import prepare_model_for_kbit_training

        cls._from_config(cfg, torch_dtype=torch.bfloat16).save_pretrained(tmp)
        if PLAN["quant"] == "int8":
            q = BitsAndBytesConfig(load_in_8bit=True)
        else:
            q = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="fp4" if PLAN["quant"] == "fp4" else "nf4",
                                   bnb_4bit_use_double_quant=PLAN["double_quant"], bnb_4bit_compute_dtype=torch.bfloat16)
        model = cls.from_pretrained(tmp, quantization_config=q, device_map={"": 0}, attn_implementation=ATTENTION)
        model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=False)
    if PLAN["lora_rank"]:
        from peft import LoraConfig, get_peft_model

        model = get_peft_model(model, LoraConfig(r=PLAN["lora_rank"], lora_alpha=PLAN["lora_alpha"],
                                                 lora_dropout=PLAN["lora_dropout"], target_modules=PLAN["lora_targets"],
                                                 modules_to_save=PLAN["modules_to_save"] or None, task_type="CAUSAL_LM"))
    return model


class MuonAndAdamW:
    """cardfit's optimizer "muon": torch.optim.Muon on the hidden 2-D weights, then AdamW on the rest."""

    def __init__(self, model, params, impl):
        edge = {id(p) for n, p in model.named_parameters() if "embed" in n or "lm_head" in n or "wte" in n or "wpe" in n}
        hidden = [p for p in params if p.ndim == 2 and id(p) not in edge]
        if any(p.ndim > 2 for p in params):
            raise SystemExit("torch.optim.Muon takes 2-D parameters only; this model trains 3-D (stacked expert) tensors.")
        rest = [p for p in params if p.ndim != 2 or id(p) in edge]
        self.opts = [torch.optim.Muon(hidden, lr=1e-5)]
        if rest:
            self.opts.append(torch.optim.AdamW(rest, lr=1e-5, foreach=impl == "foreach", fused=impl == "fused"))

    def step(self):
        for opt in self.opts:
            opt.step()


def optimizer(model, params):
    name, impl = PLAN["optimizer"], PLAN["optimizer_impl"]
    if name == "muon":
        return MuonAndAdamW(model, params, impl)
    if name == "adamw":
        return torch.optim.AdamW(params, lr=1e-5, foreach=impl == "foreach", fused=impl == "fused")
    if name == "adamw8bit":
        import bitsandbytes as bnb
        return bnb.optim.AdamW8bit(params, lr=1e-5)
    if name == "adafactor":
        from transformers.optimization import Adafactor
        return Adafactor(params, lr=1e-5, relative_step=False, scale_parameter=False)
    if name == "sgd":
        return torch.optim.SGD(params, lr=1e-5)
    return None  # "none": forward and backward only


def step(model, opt, ids):
    for _ in range(PLAN["grad_accum"]):
        with torch.autocast("cuda", dtype=AUTOCAST, enabled=AUTOCAST is not None):
            loss = model(input_ids=ids, labels=ids).loss / PLAN["grad_accum"]
        loss.backward()
    if opt is not None:
        opt.step()
    for p in model.parameters():
        p.grad = None  # zero_grad(set_to_none=True)


def main():
    if not torch.cuda.is_available():
        print("No CUDA GPU: this script measures GPU memory.", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        model = build(tmp)
    vocab = model.config.get_text_config().vocab_size if hasattr(model.config, "get_text_config") else model.config.vocab_size
    ids = torch.randint(0, vocab, (PLAN["micro_batch"], PLAN["seq"]), device="cuda")
    if PLAN["mode"] == "serve":
        model.eval()
        with torch.no_grad():
            torch.cuda.reset_peak_memory_stats()
            model.generate(ids, max_new_tokens=1, min_new_tokens=1, do_sample=False)
    else:
        if PLAN["grad_ckpt"]:
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
            if PLAN["lora_rank"]:
                model.enable_input_require_grads()
        model.train()
        opt = optimizer(model, [p for p in model.parameters() if p.requires_grad])
        step(model, opt, ids)                 # creates the optimizer states
        torch.cuda.reset_peak_memory_stats()
        step(model, opt, ids)                 # the measured optimizer step
    peak = torch.cuda.max_memory_allocated()
    est = PLAN["estimate_peak_bytes"]
    print(json.dumps({"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
                      "measured_max_memory_allocated": peak, "cardfit_peak_bytes": est,
                      "measured_over_estimate": round(peak / est, 4) if est else None,
                      "max_memory_reserved": torch.cuda.max_memory_reserved(), "plan": PLAN}))
    print(f"max_memory_allocated {peak / 1e9:.3f} GB, cardfit {est / 1e9:.3f} GB ({peak / est:.3f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
`;
  },
};


#!/usr/bin/env python3
"""Measure real GPU memory of training and serving steps, for cardfit's accuracy data.

Builds each model from its config.json with random weights (nothing is downloaded), runs a grid of
modes x batch x sequence length on one NVIDIA GPU, and prints one JSON object per run in the format
of tests/accuracy/measured-dev.json (settings, metric, unit, GPU, library versions), ready to be
appended there with a points.json entry each. The peak is torch.cuda.max_memory_allocated() over
steady-state steps (the first step, which creates the optimizer states, is excluded; the larger of
the two is kept); the reserved peak and the device-level usage are recorded too.

    python3 tests/accuracy/measure.py --configs tests/accuracy/configs/gpt2-large.json \
        --modes full lora qlora lora_int8 serve --batch 1 4 --seq 512 2048 > new-points.jsonl

Modes and the cardfit options they correspond to: full (mode full), lora (mode lora), qlora
(mode qlora: NF4, double quant), lora_int8 (mode qlora, qlora_quant int8: bitsandbytes LLM.int8
base), serve (mode serve); all under bf16 autocast, LoRA on every linear layer.

Needs torch, transformers, peft (lora, qlora, lora_int8) and bitsandbytes (qlora, lora_int8). Not yet run: written
without access to a GPU; check the first results against hand arithmetic before trusting them.
"""
import argparse
import gc
import json
import os
import sys
import tempfile

import torch


def versions():
    out = {"torch": torch.__version__, "cuda": torch.version.cuda}
    for name in ("transformers", "peft", "bitsandbytes"):
        try:
            out[name] = __import__(name).__version__
        except ImportError:
            pass
    return out


ADAPTED = ("lora", "qlora", "lora_int8")  # modes that train LoRA adapters


def build(config_path, mode, attn, lora_rank, tmp):
    from transformers import AutoConfig, AutoModelForCausalLM

    fields = json.load(open(config_path))
    cfg = AutoConfig.for_model(fields.pop("model_type"), **fields)  # registered model types only
    cfg.use_cache = mode == "serve"
    if mode == "full":  # bf16-mixed: fp32 master weights, autocast in the step
        with torch.device("cuda"):
            model = AutoModelForCausalLM.from_config(cfg, torch_dtype=torch.float32, attn_implementation=attn)
        return model
    if mode in ("lora", "serve"):
        with torch.device("cuda"):
            model = AutoModelForCausalLM.from_config(cfg, torch_dtype=torch.bfloat16, attn_implementation=attn)
    else:  # qlora, lora_int8: save random bf16 weights, reload them quantized by bitsandbytes
        from transformers import BitsAndBytesConfig
        from peft import prepare_model_for_kbit_training
        model = AutoModelForCausalLM.from_config(cfg, torch_dtype=torch.bfloat16)
        model.save_pretrained(tmp)
        del model
        if mode == "lora_int8":  # LLM.int8 (Linear8bitLt, outlier threshold 6.0)
            q = BitsAndBytesConfig(load_in_8bit=True)
        else:  # NF4 with double quantization (the QLoRA recipe)
            q = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
                                   bnb_4bit_compute_dtype=torch.bfloat16)
        model = AutoModelForCausalLM.from_pretrained(tmp, quantization_config=q, device_map={"": 0},
                                                     attn_implementation=attn)
        model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=False)
    if mode in ADAPTED:
        from peft import LoraConfig, get_peft_model
        model = get_peft_model(model, LoraConfig(r=lora_rank, lora_alpha=2 * lora_rank, lora_dropout=0.05,
                                                 target_modules="all-linear", task_type="CAUSAL_LM"))
    return model


def run(config_path, mode, batch, seq, attn, grad_ckpt, lora_rank, steps=3):
    torch.cuda.empty_cache()
    gc.collect()
    torch.cuda.reset_peak_memory_stats()
    with tempfile.TemporaryDirectory() as tmp:
        model = build(config_path, mode, attn, lora_rank, tmp)
    vocab = model.config.vocab_size
    ids = torch.randint(0, vocab, (batch, seq), device="cuda")
    peak = reserved = 0
    if mode == "serve":
        model.eval()
        with torch.no_grad():
            torch.cuda.reset_peak_memory_stats()
            model.generate(ids, max_new_tokens=1, min_new_tokens=1, do_sample=False)
        peak, reserved = torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved()
    else:
        if grad_ckpt:
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
            if mode != "full":
                model.enable_input_require_grads()
        model.train()
        opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-5)
        for step in range(steps):
            if step == 1:  # steady state: the states exist from here on
                torch.cuda.reset_peak_memory_stats()
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        peak, reserved = torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved()
    free, total = torch.cuda.mem_get_info()
    del model
    return peak, reserved, total - free


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", nargs="+", required=True)
    ap.add_argument("--modes", nargs="+", default=["full", "lora", "qlora", "serve"])
    ap.add_argument("--batch", nargs="+", type=int, default=[1, 4])
    ap.add_argument("--seq", nargs="+", type=int, default=[512, 2048])
    ap.add_argument("--attention", default="sdpa")
    ap.add_argument("--grad-ckpt", action="store_true")
    ap.add_argument("--lora-rank", type=int, default=16)
    ap.add_argument("--first-id", type=int, default=1000)
    args = ap.parse_args()
    gpu = torch.cuda.get_device_name(0)
    n = args.first_id
    for config in args.configs:
        for mode in args.modes:
            for batch in args.batch:
                for seq in args.seq:
                    point = {
                        "id": f"g{n:04d}", "model": os.path.basename(config), "model_note": "random weights from config",
                        "task": {"full": "full_finetune", "serve": "inference"}.get(mode, mode),
                        "framework": "torch + transformers (+ peft, bitsandbytes)", "framework_version": json.dumps(versions()),
                        "precision": {"full": "bf16 mixed (autocast, fp32 master)", "lora": "bf16 base, autocast",
                                      "qlora": "NF4 + double quant, bf16 compute",
                                      "lora_int8": "LLM.int8 base (bitsandbytes), bf16 autocast", "serve": "bf16"}[mode],
                        "optimizer": None if mode == "serve" else "torch.optim.AdamW (foreach)",
                        "batch_size": batch, "grad_accum": 1, "seq_len": seq,
                        "seq_len_note": "random token ids, exactly this length (serve: prompt, one new token)",
                        "gradient_checkpointing": args.grad_ckpt, "attention_impl": args.attention,
                        "lora_rank": args.lora_rank if mode in ADAPTED else None,
                        "lora_alpha": 2 * args.lora_rank if mode in ADAPTED else None,
                        "lora_targets": "all-linear (dropout 0.05)" if mode in ADAPTED else None,
                        "num_gpus": 1, "parallelism": "none", "gpu": gpu,
                        "metric": "torch.cuda.max_memory_allocated() over steady-state steps",
                        "unit": "bytes", "source": "tests/accuracy/measure.py", "trust": "own measurement",
                    }
                    try:
                        peak, reserved, used = run(config, mode, batch, seq, args.attention, args.grad_ckpt, args.lora_rank)
                        point.update(outcome="measured", measured_value=peak,
                                     notes=f"max_memory_reserved {reserved} B; device used {used} B")
                    except torch.cuda.OutOfMemoryError:
                        point.update(outcome="oom", measured_value=None, notes="torch.cuda.OutOfMemoryError")
                    print(json.dumps(point), flush=True)
                    n += 1
                    torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())

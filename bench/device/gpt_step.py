#!/usr/bin/env python3
"""Whole training steps of small GPT models in eager PyTorch on one GPU, for validation/tables.

What simgpt's `pytorch` profile (eager PyTorch kernels, one GPU: no collectives) describes, as a
user writes it: a GPT-2-style decoder (learned positions, pre-norm
LayerNorm, fused QKV projection, eager attention with scale, causal mask, softmax and dropout,
GELU MLP, dropout on both residual branches, LM head tied to the word embedding), bf16 weights and
activations, gradients cast to an fp32 master copy that AdamW (fused) updates, then copied back
(Megatron's mixed precision, what simgpt's bf16 with Adam counts). No activation checkpointing,
no CUDA graphs, no torch.compile: every kernel is launched by the Python thread.

A step is: zero the gradients, forward, cross-entropy on the logits, backward, optimizer. Each
configuration runs 3 warm-up steps and then 10 timed steps; the figure is the median step by
wall clock between torch.cuda.synchronize() calls (the host's launch time included, as a training
loop pays it). Prints one JSON document and writes it to $OUT/gpt_step.json when $OUT is set.

With `--attention sdpa` the attention core is F.scaled_dot_product_attention (causal, the same
dropout), FlashAttention's kernels here, and the file is $OUT/gpt_step_sdpa.json.
"""
import datetime
import json
import math
import os
import platform
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

# (name, layers, hidden, heads): GPT-2 small, medium and large (Radford et al. 2019, Table 2).
MODELS = [("gpt2-small", 12, 768, 12), ("gpt2-medium", 24, 1024, 16), ("gpt2-large", 36, 1280, 20)]
MICRO_BATCHES = [1, 4, 16]
SEQ = 1024
VOCAB = 50257
DROPOUT = 0.1
WARMUP, STEPS = 3, 10
# `--attention sdpa`: F.scaled_dot_product_attention instead of the eager scores (default: eager).
SDPA = "--attention" in sys.argv and sys.argv[sys.argv.index("--attention") + 1] == "sdpa"


class Block(nn.Module):
    def __init__(self, h, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(h)
        self.qkv = nn.Linear(h, 3 * h)
        self.proj = nn.Linear(h, h)
        self.ln2 = nn.LayerNorm(h)
        self.fc1 = nn.Linear(h, 4 * h)
        self.fc2 = nn.Linear(4 * h, h)
        self.drop = nn.Dropout(DROPOUT)

    def attention(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(x).split(h, dim=2)
        q, k, v = (t.view(b, s, self.heads, h // self.heads).transpose(1, 2) for t in (q, k, v))
        if SDPA:  # PyTorch's fused attention (FlashAttention's kernels on this GPU and dtype)
            y = F.scaled_dot_product_attention(q, k, v, dropout_p=DROPOUT, is_causal=True)
            return self.drop(self.proj(y.transpose(1, 2).contiguous().view(b, s, h)))
        scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(h // self.heads))
        mask = torch.ones(s, s, device=x.device, dtype=torch.bool).triu(1)
        p = self.drop(F.softmax(scores.masked_fill(mask, float("-inf")), dim=-1))
        y = (p @ v).transpose(1, 2).contiguous().view(b, s, h)
        return self.drop(self.proj(y))

    def forward(self, x):
        x = x + self.attention(self.ln1(x))
        return x + self.drop(self.fc2(F.gelu(self.fc1(self.ln2(x)))))


class GPT(nn.Module):
    def __init__(self, layers, h, heads):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, h)
        self.wpe = nn.Embedding(SEQ, h)
        self.drop = nn.Dropout(DROPOUT)
        self.blocks = nn.ModuleList(Block(h, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(h)

    def forward(self, idx):
        x = self.drop(self.wte(idx) + self.wpe(torch.arange(idx.shape[1], device=idx.device)))
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x) @ self.wte.weight.t()  # the LM head, tied to the word embedding


def emit(doc, name):
    """Prints the JSON document and writes it to $OUT/name when $OUT is set."""
    text = json.dumps(doc, indent=1)
    print(text)
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], name), "w") as f:
            f.write(text + "\n")


def build(layers, h, heads, micro_batch):
    """The model, its fp32 master copy and optimizer, and one training step over fixed random tokens."""
    torch.manual_seed(0)
    model = GPT(layers, h, heads).cuda().to(torch.bfloat16)
    params = list(model.parameters())
    master = [p.detach().float().requires_grad_(True) for p in params]
    opt = torch.optim.AdamW(master, lr=1e-4, fused=True)
    idx = torch.randint(0, VOCAB, (micro_batch, SEQ), device="cuda")
    target = torch.randint(0, VOCAB, (micro_batch, SEQ), device="cuda")

    def step():
        for p in params:
            p.grad = None
        logits = model(idx)
        loss = F.cross_entropy(logits.view(-1, VOCAB).float(), target.view(-1))
        loss.backward()
        for m, p in zip(master, params):
            m.grad = p.grad.float()
        opt.step()
        with torch.no_grad():
            torch._foreach_copy_(params, master)

    return model, params, master, opt, step


def run(layers, h, heads, micro_batch):
    model, params, master, opt, step = build(layers, h, heads, micro_batch)
    for _ in range(WARMUP):
        step()
    times = []
    for _ in range(STEPS):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    peak = torch.cuda.max_memory_allocated()
    n_params = sum(p.numel() for p in params)
    del model, params, master, opt
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    return {"step_s_median": statistics.median(times), "step_s_min": min(times), "step_s_max": max(times),
            "steps": times, "parameters": n_params, "peak_allocated_bytes": peak}


def main():
    started = datetime.datetime.now(datetime.timezone.utc)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    props = torch.cuda.get_device_properties(0)
    rows = []
    for name, layers, h, heads in MODELS:
        for mb in MICRO_BATCHES:
            r = run(layers, h, heads, mb)
            r.update({"model": name, "layers": layers, "hidden": h, "heads": heads, "seq_len": SEQ, "vocab": VOCAB,
                      "micro_batch": mb})
            rows.append(r)
            print(f"{name} mb {mb}: {r['step_s_median'] * 1e3:.2f} ms", file=sys.stderr, flush=True)
    doc = {
        "benchmark": "bench/device/gpt_step.py",
        "utc_start": started.isoformat(timespec="seconds"),
        "elapsed_s": (datetime.datetime.now(datetime.timezone.utc) - started).total_seconds(),
        "env": {"python": platform.python_version(), "torch": torch.__version__, "cuda": torch.version.cuda,
                "gpu": props.name, "sms": props.multi_processor_count, "memory_bytes": props.total_memory,
                "cpu": platform.processor() or platform.machine(), "host": platform.node()},
        "settings": {"seq_len": SEQ, "vocab": VOCAB, "dropout": DROPOUT, "warmup_steps": WARMUP, "timed_steps": STEPS,
                     "precision": "bf16 weights and activations, fp32 master weights, AdamW fused",
                     "attention": ("sdpa: F.scaled_dot_product_attention, causal, dropout" if SDPA else
                                   "eager: scale, causal mask, softmax, dropout"), "recompute": "none"},
        "rows": rows,
    }
    emit(doc, "gpt_step_sdpa.json" if SDPA else "gpt_step.json")


if __name__ == "__main__":
    main()

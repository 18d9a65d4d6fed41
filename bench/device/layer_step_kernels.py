#!/usr/bin/env python3
"""A GEMM's time inside a training step against the same GEMM timed alone, on this machine's GPU.

A kernel table times each kernel by itself (bench/device/measure_kernels.py: isolated, the L2
flushed before each call, or back to back, the same call repeated). A step runs different kernels
one after another, at the clocks the whole step's power draw allows. This script measures how far
apart the two are for the GEMMs of a Llama-style decoder stack:

  1. Builds `--layers` decoder layers as Megatron-LM's GPT model lays them out (pre-norm RMSNorm,
     a fused QKV projection with grouped key-value heads, causal attention through torch's
     scaled_dot_product_attention, the output projection, RMSNorm, a fused gate+up projection,
     SiLU(gate) x up, the down projection, residual adds; no rotary embedding, no dropout, no
     bias), bf16 weights and activations, micro-batch `--batch` of `--seq` tokens, tensor
     parallelism `--tp` simulated by dividing the heads and the FFN width (no communication).
  2. Times `--steps` forward+backward steps between CUDA events after 3 warm-up ones (the median),
     then profiles the 3 steps that follow at once (torch.profiler, CUDA activity): every
     kernel's name, count and duration a step, and the GPU's busy time a step.
  3. Times the step's 12 GEMM shapes a layer (TN forward, NN data gradient, NT weight gradient of
     the four projections) with measure_kernels.py's own timer, isolated and back to back, in the
     same process.

Writes one JSON document to $OUT/layer_step_kernels.json (or --out) and prints a summary to
stderr: the step's GEMM kernel time in the profile against the sum of the same GEMMs' table times.
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_kernels  # noqa: E402

F = torch.nn.functional

# Kernel names by kind, the first match wins (attention first: cuDNN's fused attention names
# contain "gemm"-like words too).
KIND_WORDS = (("attention", ("flash", "fmha", "sdpa", "attention", "attn")),
              ("gemm", ("gemm", "nvjet", "cutlass", "xmma", "s16816", "s1688", "sm90_", "sm100_")),
              ("norm", ("norm",)))


PROFILED_STEPS = 3  # the profile's figures are sums over these steps, divided by their number


def kind_of(name):
    low = name.lower()
    for kind, words in KIND_WORDS:
        if any(w in low for w in words):
            return kind
    return "other"


def smi():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.max.sm,power.draw,power.limit,"
                              "clocks_event_reasons.active", "--format=csv,noheader"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=20, universal_newlines=True)
        return out.stdout.strip()
    except Exception as e:  # noqa: BLE001
        return "nvidia-smi unavailable (%s)" % e.__class__.__name__


class Layer(torch.nn.Module):
    def __init__(self, h, heads, kv, d, ffn):
        super().__init__()
        self.heads, self.kv, self.d = heads, kv, d
        self.n1 = torch.nn.Parameter(torch.ones(h))
        self.qkv = torch.nn.Linear(h, (heads + 2 * kv) * d, bias=False)
        self.proj = torch.nn.Linear(heads * d, h, bias=False)
        self.n2 = torch.nn.Parameter(torch.ones(h))
        self.gate_up = torch.nn.Linear(h, 2 * ffn, bias=False)
        self.down = torch.nn.Linear(ffn, h, bias=False)

    def forward(self, x):  # x [b, s, h]
        b, s, h = x.shape
        y = F.rms_norm(x, (h,), self.n1, 1e-5)
        q, k, v = self.qkv(y).split([self.heads * self.d, self.kv * self.d, self.kv * self.d], dim=-1)
        q = q.view(b, s, self.heads, self.d).transpose(1, 2)
        k = k.view(b, s, self.kv, self.d).transpose(1, 2)
        v = v.view(b, s, self.kv, self.d).transpose(1, 2)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=self.kv < self.heads)
        x = x + self.proj(o.transpose(1, 2).reshape(b, s, self.heads * self.d))
        y = F.rms_norm(x, (h,), self.n2, 1e-5)
        g, u = self.gate_up(y).chunk(2, dim=-1)
        return x + self.down(F.silu(g) * u)


def gemm_shapes(tokens, h, heads, kv, d, ffn):
    """The layer's GEMMs as kernel-table shapes (measure_kernels.py's FIELDS order): for each
    projection (in, out): TN forward m=tokens n=out k=in; NN data gradient m=tokens n=in k=out;
    NT weight gradient m=out n=in k=tokens. bf16 in and out (torch autograd's weight gradient)."""
    shapes = []
    for name, fan_in, fan_out in (("qkv", h, (heads + 2 * kv) * d), ("proj", heads * d, h),
                                  ("gate_up", h, 2 * ffn), ("down", ffn, h)):
        for layout, m, n, k in (("TN", tokens, fan_out, fan_in), ("NN", tokens, fan_in, fan_out),
                                ("NT", fan_out, fan_in, tokens)):
            shapes.append((name, {"precision": "bf16", "layout": layout, "out": "bf16", "batch": 1,
                                  "m": m, "n": n, "k": k}))
    return shapes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=4096)
    ap.add_argument("--ffn", type=int, default=14336)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--kv-heads", type=int, default=8)
    ap.add_argument("--seq", type=int, default=8192)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--tp", type=int, default=1)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--name", default="llama3-8b")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    h, d = a.hidden, a.hidden // a.heads
    heads, kv, ffn = a.heads // a.tp, max(1, a.kv_heads // a.tp), a.ffn // a.tp
    torch.manual_seed(0)
    layers = torch.nn.Sequential(*[Layer(h, heads, kv, d, ffn) for _ in range(a.layers)]).to(dev, torch.bfloat16)
    x = torch.randn(a.batch, a.seq, h, device=dev, dtype=torch.bfloat16, requires_grad=True)
    gy = torch.randn_like(x)

    def step():
        out = layers(x)
        out.backward(gy)

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    clocks_before = smi()
    times = []
    for _ in range(a.steps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        step()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e) * 1000.0)
    # The profiled steps follow the timed ones with no idle time between (nvidia-smi is read after
    # them): an idle GPU's power budget recovers, and the next kernels run at a higher clock.
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(PROFILED_STEPS):
            step()
        torch.cuda.synchronize()
    clocks_loaded = smi()
    kernels, spans = {}, []
    for ev in prof.events():
        if ev.device_type != torch.autograd.DeviceType.CUDA:
            continue
        us = ev.device_time if hasattr(ev, "device_time") else ev.cuda_time
        k = kernels.setdefault(ev.name, {"count": 0, "us": 0.0, "kind": kind_of(ev.name)})
        k["count"] += 1
        k["us"] += us
        spans.append((ev.time_range.start, ev.time_range.end))
    spans.sort()
    busy, end = 0.0, None
    for s0, t0 in spans:
        if end is None or s0 > end:
            busy, end = busy + t0 - s0, t0
        elif t0 > end:
            busy, end = busy + t0 - end, t0
    for k in kernels.values():
        k["us"] /= PROFILED_STEPS
        k["count"] /= PROFILED_STEPS
    busy /= PROFILED_STEPS
    by_kind = {}
    for k in kernels.values():
        by_kind[k["kind"]] = by_kind.get(k["kind"], 0.0) + k["us"]
    del layers, x, gy
    torch.cuda.empty_cache()

    timed = []
    for timing in ("isolated", "back_to_back"):
        timer = measure_kernels.TorchTimer(5, 20, timing)
        for name, shape in gemm_shapes(a.batch * a.seq, h, heads, kv, d, ffn):
            try:
                us = timer.time("gemm", shape)
            except measure_kernels.Unsupported as e:
                print("%s %s %s: not timed (%s)" % (timing, name, shape["layout"], e), file=sys.stderr)
                continue
            timed.append({"timing": timing, "gemm": name, **shape, "us": us})
        del timer
        torch.cuda.empty_cache()
    table = {t: a.layers * sum(r["us"] for r in timed if r["timing"] == t) for t in ("isolated", "back_to_back")}
    result = {
        "benchmark": "bench/device/layer_step_kernels.py",
        "utc": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda,
        "config": vars(a), "per_gpu": {"heads": heads, "kv_heads": kv, "ffn": ffn, "head_dim": d},
        "step_us": {"median": statistics.median(times), "all": times},
        "nvidia_smi": {"after_warmup": clocks_before, "after_profiled_steps": clocks_loaded},
        "profile": {"gpu_busy_us": busy, "kernels": len(spans), "by_kind_us": by_kind,
                    "by_name": sorted(({"name": n[:200], **k} for n, k in kernels.items()), key=lambda r: -r["us"])},
        "gemm_table_us": table, "gemm_rows": timed,
    }
    out = a.out or os.path.join(os.environ.get("OUT", "."), "layer_step_kernels.json")
    with open(out + ".tmp", "w") as f:
        json.dump(result, f, indent=1)
    os.replace(out + ".tmp", out)
    g = by_kind.get("gemm", 0.0)
    print("%s tp %d: step %.1f us (busy %.1f); GEMM kernels in the step %.1f us; the same GEMMs isolated %.1f "
          "(%.3f), back to back %.1f (%.3f); by kind %s" % (
              a.name, a.tp, statistics.median(times), busy, g, table["isolated"], g / table["isolated"],
              table["back_to_back"], g / table["back_to_back"], {k: round(v) for k, v in by_kind.items()}),
          file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()

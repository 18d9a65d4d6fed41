#!/usr/bin/env python3
"""Which PyTorch op launched each kernel of bench/device/gpt_step.py's training step, and its GPU time.

gpt_step_kernels.py groups a step's kernels by kernel name; several ops launch the same kernel
(a copy, an elementwise loop). This script attributes them: for each case below, 3 warm-up steps,
then 2 steps under torch.profiler (CPU and CUDA activity, input shapes recorded) right after
them, with no idle time between, and for every (op, input shapes) the calls and the GPU time of
the kernels it launched itself (self device time), a step (the sums over the two, halved). Eager
and SDPA attention (`gpt_step.SDPA`, set per case). Prints one JSON document and writes it to
$OUT/gpt_step_ops.json when $OUT is set.
"""
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpt_step  # noqa: E402

# (name, layers, hidden, heads, micro-batch, attention)
CASES = [("gpt2-small", 12, 768, 12, 16, "eager"), ("gpt2-medium", 24, 1024, 16, 4, "eager"),
         ("gpt2-medium", 24, 1024, 16, 4, "sdpa"), ("gpt2-small", 12, 768, 12, 16, "sdpa")]
PROFILED = 2


def self_device_us(e):
    for name in ("self_device_time_total", "self_cuda_time_total"):
        if hasattr(e, name):
            return getattr(e, name)
    return 0.0


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    rows = []
    for name, layers, h, heads, mb, attention in CASES:
        gpt_step.SDPA = attention == "sdpa"
        model, params, master, opt, step = gpt_step.build(layers, h, heads, mb)
        for _ in range(3):
            step()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
            for _ in range(PROFILED):
                step()
            torch.cuda.synchronize()
        ops = []
        for e in prof.key_averages(group_by_input_shape=True):
            us = self_device_us(e) / PROFILED
            if us <= 0:
                continue
            ops.append({"op": e.key, "input_shapes": str(e.input_shapes)[:300], "calls": e.count / PROFILED,
                        "self_device_us": us})
        ops.sort(key=lambda r: -r["self_device_us"])
        kernels = {}
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                k = kernels.setdefault(e.name[:160], {"count": 0, "us": 0.0})
                k["count"] += 1 / PROFILED
                k["us"] += (e.device_time if hasattr(e, "device_time") else e.cuda_time) / PROFILED
        total = sum(r["self_device_us"] for r in ops)
        rows.append({"model": name, "micro_batch": mb, "attention": attention, "self_device_us_total": total,
                     "ops": ops, "kernels": sorted(({"name": n, **k} for n, k in kernels.items()),
                                                    key=lambda r: -r["us"])})
        print(f"{name} mb {mb} {attention}: {len(ops)} op groups, {total / 1e3:.1f} ms of kernels a step",
              file=sys.stderr, flush=True)
        del model, params, master, opt
        torch.cuda.empty_cache()
    gpt_step.emit({"benchmark": "bench/device/gpt_step_ops.py", "torch": torch.__version__,
                   "gpu": torch.cuda.get_device_name(), "rows": rows}, "gpt_step_ops.json")


if __name__ == "__main__":
    main()

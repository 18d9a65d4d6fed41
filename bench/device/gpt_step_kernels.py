#!/usr/bin/env python3
"""Where one training step of bench/device/gpt_step.py spends the GPU's time, kernel by kernel.

For each (model, micro-batch) below: 3 warm-up steps, then one step under torch.profiler (CUDA
activity). Kernels are grouped by name: count and summed duration (us), and the step's GPU busy
time (the union of kernel intervals) against its wall time. Prints one JSON document and writes it
to $OUT/gpt_step_kernels.json when $OUT is set.
"""
import os
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(__file__))
import gpt_step  # noqa: E402

CASES = [("gpt2-small", 12, 768, 12, 1), ("gpt2-small", 12, 768, 12, 16), ("gpt2-medium", 24, 1024, 16, 4)]


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    rows = []
    for name, layers, h, heads, mb in CASES:
        model, params, master, opt, step = gpt_step.build(layers, h, heads, mb)
        for _ in range(3):
            step()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            t0 = time.perf_counter()
            step()
            torch.cuda.synchronize()
            wall = time.perf_counter() - t0
        kernels = {}
        spans = []
        for e in prof.events():
            if e.device_type != torch.autograd.DeviceType.CUDA:
                continue
            k = kernels.setdefault(e.name, {"count": 0, "us": 0.0})
            k["count"] += 1
            k["us"] += e.device_time if hasattr(e, "device_time") else e.cuda_time
            spans.append((e.time_range.start, e.time_range.end))
        spans.sort()
        busy, end = 0.0, None
        for s, t in spans:
            if end is None or s > end:
                busy += t - s
                end = t
            elif t > end:
                busy += t - end
                end = t
        top = sorted(kernels.items(), key=lambda kv: -kv[1]["us"])
        rows.append({"model": name, "micro_batch": mb, "wall_s_profiled": wall, "gpu_busy_us": busy,
                     "kernels": sum(k["count"] for k in kernels.values()),
                     "by_name": [{"name": n[:160], **k} for n, k in top]})
        print(f"{name} mb {mb}: {len(spans)} kernels, busy {busy / 1e3:.1f} ms of {wall * 1e3:.1f} ms",
              file=sys.stderr, flush=True)
        del model, params, master, opt
        torch.cuda.empty_cache()
    gpt_step.emit({"benchmark": "bench/device/gpt_step_kernels.py", "torch": torch.__version__,
                   "gpu": torch.cuda.get_device_name(0), "rows": rows}, "gpt_step_kernels.json")


if __name__ == "__main__":
    main()

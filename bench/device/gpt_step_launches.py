#!/usr/bin/env python3
"""How many CUDA kernels one training step of bench/device/gpt_step.py launches, and how long the
host takes to issue them, per model at micro-batch 1 (where the step is host-bound if anywhere).

For each model: one warm-up step, then one step under torch.profiler (CUDA activity) counting the
kernels the step ran (memcpys and memsets apart), and 5 steps timed from an idle GPU to step()
returning, before any synchronisation: the host's time to issue the step (nothing in it waits for
the GPU, and at micro-batch 1 the GPU keeps up), divided by the kernels. Prints one
JSON document and writes it to $OUT/gpt_step_launches.json when $OUT is set.
"""
import os
import statistics
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.dirname(__file__))
import gpt_step  # noqa: E402


def main():
    rows = []
    for name, layers, h, heads in gpt_step.MODELS:
        model, params, master, opt, step = gpt_step.build(layers, h, heads, 1)
        step()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            step()
            torch.cuda.synchronize()
        kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA
                      and "memcpy" not in e.name.lower() and "memset" not in e.name.lower())
        issue = []
        for _ in range(5):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            step()
            issue.append(time.perf_counter() - t0)
            torch.cuda.synchronize()
        rows.append({"model": name, "layers": layers, "hidden": h, "micro_batch": 1, "kernels_per_step": kernels,
                     "host_issue_s_median": statistics.median(issue), "host_issue_s": issue,
                     "host_s_per_kernel": statistics.median(issue) / kernels})
        print(f"{name}: {kernels} kernels, {statistics.median(issue) * 1e3:.2f} ms to issue", file=sys.stderr,
              flush=True)
        del model, params, master, opt
        torch.cuda.empty_cache()
    doc = {"benchmark": "bench/device/gpt_step_launches.py", "torch": torch.__version__,
           "gpu": torch.cuda.get_device_name(0), "rows": rows}
    gpt_step.emit(doc, "gpt_step_launches.json")


if __name__ == "__main__":
    main()

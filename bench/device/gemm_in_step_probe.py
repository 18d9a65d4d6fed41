#!/usr/bin/env python3
"""Why a GEMM inside a training step can take less time than the same shape timed alone.

bench/device/layer_step_kernels.py found a Llama-3 8B layer's GEMMs 13% faster inside the step
than measure_kernels.py's timer gives for the same shapes. This script separates the candidates,
for a few forward GEMM shapes of those layers (TN, C[m, n] = A[m, k] W[n, k]^T, bf16):

  call     torch.mm(a, w.t(), out=c) (measure_kernels.py), torch.mm(a, w.t()) and F.linear(a, w)
           (the step's nn.Linear): which cuBLAS kernel each runs (torch.profiler) and its time;
  values   operands from randn (measure_kernels.py) against a weight as nn.Linear initialises it
           (uniform, bound 1/sqrt(k)), and all zeros: the tensor cores' power, and so the clock
           under the 700 W cap, depends on the bits they multiply;
  timing   isolated (the L2 flushed, one call between events, median of 20) and sustained (200
           calls back to back, the mean), with nvidia-smi's clock and power read right after.

Writes $OUT/gemm_in_step_probe.json (or --out) and prints one line a case to stderr.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

import torch
from torch.profiler import ProfilerActivity, profile

F = torch.nn.functional
SHAPES = (("llama3-8b gate_up", 8192, 28672, 4096), ("llama3-8b qkv", 8192, 6144, 4096),
          ("llama3-8b down", 8192, 4096, 14336), ("llama3-70b-tp8 gate_up", 8192, 7168, 8192))


def smi():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,clocks_event_reasons.active",
                               "--format=csv,noheader"], stdout=subprocess.PIPE, timeout=20,
                              universal_newlines=True).stdout.strip()
    except Exception as e:  # noqa: BLE001
        return "nvidia-smi unavailable (%s)" % e.__class__.__name__


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
    rows = []
    for name, m, n, k in SHAPES:
        x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        w_randn = torch.randn(n, k, device=dev, dtype=torch.bfloat16)
        bound = 1.0 / k ** 0.5
        w_init = torch.empty(n, k, device=dev, dtype=torch.bfloat16).uniform_(-bound, bound)
        zeros_x, zeros_w = torch.zeros_like(x), torch.zeros_like(w_randn)
        c = torch.empty(m, n, device=dev, dtype=torch.bfloat16)
        calls = {
            "mm out=": lambda p, q: torch.mm(p, q.t(), out=c),
            "mm": lambda p, q: torch.mm(p, q.t()),
            "F.linear": lambda p, q: F.linear(p, q),
        }
        values = {"randn": (x, w_randn), "linear init": (x, w_init), "zeros": (zeros_x, zeros_w)}
        for call_name, call in calls.items():
            for value_name, (p, q) in values.items():
                if call_name != "mm out=" and value_name == "zeros":
                    continue
                for _ in range(5):
                    call(p, q)
                torch.cuda.synchronize()
                ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(20)]
                for s, e in ev:
                    flush.zero_()
                    s.record()
                    call(p, q)
                    e.record()
                torch.cuda.synchronize()
                isolated = statistics.median(s.elapsed_time(e) for s, e in ev) * 1000.0
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s.record()
                for _ in range(200):
                    call(p, q)
                e.record()
                torch.cuda.synchronize()
                sustained = s.elapsed_time(e) * 1000.0 / 200
                clocks = smi()
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    call(p, q)
                    torch.cuda.synchronize()
                kernels = sorted({ev.name[:120] for ev in prof.events()
                                  if ev.device_type == torch.autograd.DeviceType.CUDA})
                tflops = 2.0 * m * n * k / isolated / 1e6
                rows.append({"shape": name, "m": m, "n": n, "k": k, "call": call_name, "values": value_name,
                             "isolated_us": isolated, "sustained_us": sustained, "isolated_tflops": tflops,
                             "nvidia_smi_after_sustained": clocks, "kernels": kernels})
                print("%-22s %-9s %-11s isolated %8.1f us (%.0f TFLOP/s) sustained %8.1f us  %s  %s"
                      % (name, call_name, value_name, isolated, tflops, sustained, clocks, ",".join(kernels)[:90]),
                      file=sys.stderr, flush=True)
        del x, w_randn, w_init, zeros_x, zeros_w, c
        torch.cuda.empty_cache()
    out = a.out or os.path.join(os.environ.get("OUT", "."), "gemm_in_step_probe.json")
    doc = {"benchmark": "bench/device/gemm_in_step_probe.py", "gpu": torch.cuda.get_device_name(),
           "torch": torch.__version__, "cuda": torch.version.cuda, "rows": rows}
    with open(out + ".tmp", "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()

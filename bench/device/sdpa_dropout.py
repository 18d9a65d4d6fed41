#!/usr/bin/env python3
"""What attention dropout costs inside PyTorch's fused attention, forward and backward.

A kernel table's attention rows time the kernel without dropout (measure_kernels.py). GPT-2's
steps (bench/device/gpt_step.py --attention sdpa) drop out at 0.1, which the fused kernel does by
generating its mask from a random-number generator as it goes. For the SDPA shapes of those steps
(GPT-2 small, medium and large at micro-batch 4 and 16: sequence 1024, head dimension 64, causal),
each on SDPA's cuDNN and flash backends, this times the forward and the backward (torch.autograd.grad
of the output with respect to q, k and v) at dropout 0 and 0.1 with measure_kernels.py's own timer:
the L2 flushed (a 256 MiB write, then a read) and a spin kernel before each call, the median of 20
calls between CUDA events. Writes $OUT/sdpa_dropout.json (or --out) and prints a line a case.
"""
import argparse
import json
import math
import os
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_kernels  # noqa: E402

F = torch.nn.functional
SHAPES = [(name, heads, b) for name, heads in (("gpt2-small", 12), ("gpt2-medium", 16), ("gpt2-large", 20))
          for b in (4, 16)]
BACKENDS = (("cuDNN", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    timer = measure_kernels.TorchTimer(5, 20)
    rows = []
    for name, heads, b in SHAPES:
        for backend_name, backend in BACKENDS:
            for p in (0.0, 0.1):
                q, k, v = (torch.randn(b, 1024, heads, 64, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
                           .requires_grad_(True) for _ in range(3))

                def forward(q=q, k=k, v=v, p=p, backend=backend):
                    with sdpa_kernel([backend]):
                        return F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True,
                                                              scale=1 / math.sqrt(64))

                row = {"model": name, "batch": b, "heads": heads, "seq": 1024, "head_dim": 64, "backend": backend_name,
                       "dropout": p}
                try:
                    o = forward()
                    g = torch.randn_like(o)
                    row["forward_us"] = timer.time_us(lambda _: forward())
                    row["backward_us"] = timer.time_us(lambda out: torch.autograd.grad(out, (q, k, v), g),
                                                       lambda: forward())
                except Exception as e:  # noqa: BLE001 - a backend that refuses the case: said in the row
                    row["error"] = "%s: %s" % (e.__class__.__name__, str(e).split("\n")[0][:160])
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
                del q, k, v
                torch.cuda.empty_cache()
    out = a.out or os.path.join(os.environ.get("OUT", "."), "sdpa_dropout.json")
    doc = {"benchmark": "bench/device/sdpa_dropout.py", "gpu": torch.cuda.get_device_name(),
           "torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
           "rows": rows}
    with open(out + ".tmp", "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()

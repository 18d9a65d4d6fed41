#!/usr/bin/env python3
"""Kernel microbenchmarks for the GPU catalog's H200-SXM-141GB entry (platforms/gpus.yaml).

Measures, on the one GPU it runs on, what the catalog's per-GPU figures mean in
src/cost/compute_cost.cpp:

  gemm_efficiency   fraction of the dense datasheet peak a cuBLAS GEMM reaches (bf16/fp16 989,
                    fp8 1979, fp32 67 TFLOP/s). compute_cost.cpp multiplies the catalog figure by a
                    shape factor (wave quantisation over `sms` SMs with gemm_tile x gemm_tile output
                    tiles, tile padding, and k / (k + tile/4)); each GEMM row below carries that factor
                    and the base efficiency it implies (measured fraction / factor).
  memory_efficiency fraction of the 4.8 TB/s HBM bandwidth a large memory-bound kernel reaches
                    (bytes read + written / time).
  kernel_launch     the GPU's time per kernel between back-to-back kernels on one stream (added to
                    every kernel's GPU time); the host-side time per launch is reported beside it.

Prints one JSON document to stdout and writes it to $OUT/h200_kernels.json when $OUT is set.
Timing: CUDA events, warm-up iterations, median of >= 20 timed repetitions; an L2 flush (a write
of a 256 MiB buffer) precedes each timed GEMM repetition, outside the timed interval.
"""
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

import torch

PEAK_TFLOPS = {"bf16": 989.0, "fp16": 989.0, "fp8": 1979.0, "fp32": 67.0}
PEAK_BW = 4.8e12
CATALOG = {  # platforms/gpus.yaml, H200-SXM-141GB, at the time of writing
    "gemm_efficiency": {"fp32": 0.85, "fp16": 0.7, "bf16": 0.7, "fp8": 0.7},
    "memory_efficiency": 0.85,
    "kernel_launch_us": 4.0,
    "gemm_tile": 128,
    "sms": 132,
}

# (model, name, k, n): the GEMM is C[m, n] = A[m, k] @ W[n, k]^T (nn.Linear's forward), m = tokens.
SHAPES = [
    ("gpt3-xl", "qkv", 2048, 6144),
    ("gpt3-xl", "proj", 2048, 2048),
    ("gpt3-xl", "fc1", 2048, 8192),
    ("gpt3-xl", "fc2", 8192, 2048),
    ("llama3-8b", "qkv", 4096, 6144),
    ("llama3-8b", "proj", 4096, 4096),
    ("llama3-8b", "gate_up", 4096, 28672),
    ("llama3-8b", "down", 14336, 4096),
    ("llama3-70b-tp8", "qkv", 8192, 1280),
    ("llama3-70b-tp8", "proj", 1024, 8192),
    ("llama3-70b-tp8", "gate_up", 8192, 7168),
    ("llama3-70b-tp8", "down", 3584, 8192),
]
TOKENS = [2048, 4096, 8192, 16384]
FP8_TOKENS = [4096, 16384]

DEV = torch.device("cuda")
T_START = time.time()


def log(msg):
    sys.stderr.write("[%6.1fs] %s\n" % (time.time() - T_START, msg))
    sys.stderr.flush()


def nvidia_smi(query):
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=" + query, "--format=csv"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30, universal_newlines=True)
        return {"query": query, "rc": out.returncode, "stdout": out.stdout.strip(), "stderr": out.stderr.strip()}
    except Exception as e:  # noqa: BLE001
        return {"query": query, "error": repr(e)}


def shape_factor(m, n, k, tile=CATALOG["gemm_tile"], sms=CATALOG["sms"]):
    """compute_cost.cpp's ComputeCostModel::gemm_efficiency without the catalog figure."""
    tiles_m = math.ceil(m / tile)
    tiles_n = math.ceil(n / tile)
    tiles = tiles_m * tiles_n
    waves = math.ceil(tiles / sms)
    wave_eff = tiles / (waves * sms)
    pad_eff = (m * n) / (tiles_m * tile * tiles_n * tile)
    k_eff = k / (k + tile / 4)
    return wave_eff * pad_eff * k_eff


_FLUSH = None


def l2_flush():
    global _FLUSH
    if _FLUSH is None:
        _FLUSH = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device=DEV)
    _FLUSH.zero_()


def time_events(fn, reps, warmup, flush=False):
    """Median / min / mean of `reps` single-call timings (ms) by CUDA events."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        if flush:
            l2_flush()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    ms = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return {"median_ms": statistics.median(ms), "min_ms": min(ms), "mean_ms": statistics.mean(ms), "reps": reps}


def time_back_to_back(fn, reps):
    """Mean time (ms) per call of `reps` calls issued back to back between one pair of events."""
    torch.cuda.synchronize()
    s = torch.cuda.Event(enable_timing=True)
    e = torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(reps):
        fn()
    e.record()
    torch.cuda.synchronize()
    return s.elapsed_time(e) / reps


def reps_for(flops):
    # Fewer repetitions for the big shapes; never fewer than 20 timed.
    return 50 if flops < 2e12 else 30 if flops < 8e12 else 20


def gemm_row(dtype_name, model, name, m, k, n, fn, peak):
    flops = 2.0 * m * n * k
    reps = reps_for(flops)
    t = time_events(fn, reps=reps, warmup=5, flush=True)
    hot = time_back_to_back(fn, reps=20)
    tflops = flops / (t["median_ms"] * 1e-3) / 1e12
    frac = tflops / peak
    sf = shape_factor(m, n, k)
    return {
        "dtype": dtype_name, "model": model, "gemm": name, "m": m, "k": k, "n": n,
        "flops": flops, "median_ms": t["median_ms"], "min_ms": t["min_ms"], "reps": reps,
        "tflops": tflops, "fraction_of_peak": frac,
        "tflops_best_rep": flops / (t["min_ms"] * 1e-3) / 1e12,
        "back_to_back_hot_l2_ms": hot,
        "tflops_back_to_back_hot_l2": flops / (hot * 1e-3) / 1e12,
        "simgpt_shape_factor": sf, "implied_base_efficiency": frac / sf,
    }


def bench_gemm(dtype_name, dtype):
    peak = PEAK_TFLOPS[dtype_name]
    rows = []
    cases = [(mdl, nm, tok, k, n) for (mdl, nm, k, n) in SHAPES for tok in TOKENS]
    cases.append(("square", "8192^3", 8192, 8192, 8192))
    for (mdl, nm, m, k, n) in cases:
        a = torch.randn(m, k, device=DEV, dtype=dtype)
        w = torch.randn(n, k, device=DEV, dtype=dtype)
        c = torch.empty(m, n, device=DEV, dtype=dtype)
        wt = w.t()
        rows.append(gemm_row(dtype_name, mdl, nm, m, k, n, lambda: torch.mm(a, wt, out=c), peak))
        del a, w, c, wt
    log("%s GEMMs done (%d shapes)" % (dtype_name, len(rows)))
    return rows


def bench_fp32():
    peak = PEAK_TFLOPS["fp32"]
    rows = []
    for s in (8192, 4096):
        a = torch.randn(s, s, device=DEV, dtype=torch.float32)
        w = torch.randn(s, s, device=DEV, dtype=torch.float32)
        c = torch.empty(s, s, device=DEV, dtype=torch.float32)
        wt = w.t()
        rows.append(gemm_row("fp32", "square", "%d^3" % s, s, s, s, lambda: torch.mm(a, wt, out=c), peak))
        del a, w, c, wt
    log("fp32 GEMMs done")
    return rows


def bench_fp8():
    if not hasattr(torch, "_scaled_mm"):
        return {"available": False, "reason": "torch._scaled_mm is not available in this torch build"}
    if not hasattr(torch, "float8_e4m3fn"):
        return {"available": False, "reason": "torch.float8_e4m3fn is not available in this torch build"}
    peak = PEAK_TFLOPS["fp8"]
    one = torch.tensor(1.0, device=DEV, dtype=torch.float32)

    def scaled_mm(a8, b8t, fast):
        r = torch._scaled_mm(a8, b8t, scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=fast)
        return r[0] if isinstance(r, tuple) else r  # torch < 2.4 returned (out, amax)

    rows = []
    errors = []
    cases = [(mdl, nm, tok, k, n) for (mdl, nm, k, n) in SHAPES for tok in FP8_TOKENS]
    cases.append(("square", "8192^3", 8192, 8192, 8192))
    for (mdl, nm, m, k, n) in cases:
        a8 = (torch.randn(m, k, device=DEV, dtype=torch.bfloat16)).to(torch.float8_e4m3fn)
        w8 = (torch.randn(n, k, device=DEV, dtype=torch.bfloat16)).to(torch.float8_e4m3fn)
        b8t = w8.t()  # (k, n), column-major: the TN layout cuBLASLt's fp8 GEMM needs
        for fast in (False, True):
            try:
                row = gemm_row("fp8", mdl, nm, m, k, n, lambda: scaled_mm(a8, b8t, fast), peak)
                row["use_fast_accum"] = fast
                row["operands"] = "e4m3 x e4m3, per-tensor scales 1.0, bf16 output"
                rows.append(row)
            except Exception as e:  # noqa: BLE001
                errors.append({"m": m, "k": k, "n": n, "use_fast_accum": fast, "error": repr(e)})
        del a8, w8, b8t
    log("fp8 GEMMs done (%d rows, %d errors)" % (len(rows), len(errors)))
    return {"available": True, "rows": rows, "errors": errors}


def bench_sustained_bf16():
    """8192^3 bf16 issued back to back for about two seconds: does the clock hold under load?"""
    s = 8192
    a = torch.randn(s, s, device=DEV, dtype=torch.bfloat16)
    w = torch.randn(s, s, device=DEV, dtype=torch.bfloat16)
    c = torch.empty(s, s, device=DEV, dtype=torch.bfloat16)
    wt = w.t()
    for _ in range(10):
        torch.mm(a, wt, out=c)
    torch.cuda.synchronize()
    n = 1500
    st = torch.cuda.Event(enable_timing=True)
    en = torch.cuda.Event(enable_timing=True)
    st.record()
    for _ in range(n):
        torch.mm(a, wt, out=c)
    en.record()
    # Queried while the queued GEMMs still run (the launch queue holds about a second of them).
    smi = nvidia_smi("clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active")
    torch.cuda.synchronize()
    ms = st.elapsed_time(en) / n
    tflops = 2.0 * s ** 3 / (ms * 1e-3) / 1e12
    del a, w, c, wt
    log("sustained bf16 done")
    return {"gemm": "8192^3 bf16", "iterations": n, "mean_ms": ms, "tflops": tflops,
            "fraction_of_peak": tflops / PEAK_TFLOPS["bf16"], "nvidia_smi_while_running": smi}


def mem_row(name, bytes_moved, fn, reps=30, warmup=5, note=""):
    t = time_events(fn, reps=reps, warmup=warmup)
    bw = bytes_moved / (t["median_ms"] * 1e-3)
    return {"kernel": name, "bytes_moved": bytes_moved, "median_ms": t["median_ms"], "min_ms": t["min_ms"],
            "reps": reps, "bytes_per_s": bw, "fraction_of_4.8e12": bw / PEAK_BW,
            "best_rep_fraction": bytes_moved / (t["min_ms"] * 1e-3) / PEAK_BW, "note": note}


def bench_memory():
    rows = []
    n = 1 << 29  # 2^29 bf16 elements = 1 GiB a tensor
    x = torch.empty(n, device=DEV, dtype=torch.bfloat16)
    y = torch.randn(n, device=DEV, dtype=torch.bfloat16)
    out = torch.empty(n, device=DEV, dtype=torch.bfloat16)
    x.copy_(y)
    nb = n * 2
    rows.append(mem_row("copy x.copy_(y), 1 GiB bf16", 2 * nb, lambda: x.copy_(y), note="read 1 GiB + write 1 GiB"))
    rows.append(mem_row("add torch.add(x, y, out=out), 1 GiB bf16 each", 3 * nb, lambda: torch.add(x, y, out=out),
                        note="read 2 GiB + write 1 GiB"))
    rows.append(mem_row("fill out.fill_(1), 1 GiB bf16", nb, lambda: out.fill_(1.0), note="write 1 GiB"))
    rows.append(mem_row("sum torch.sum(y), 1 GiB bf16", nb, lambda: torch.sum(y, dtype=torch.float32),
                        note="read 1 GiB"))
    del x, y, out
    for (rws, h) in ((16384, 4096), (65536, 4096)):
        xi = torch.randn(rws, h, device=DEV, dtype=torch.bfloat16)
        ln = torch.nn.LayerNorm(h, device=DEV, dtype=torch.bfloat16)
        b = rws * h * 2
        with torch.no_grad():
            rows.append(mem_row("layernorm forward (%d, %d) bf16" % (rws, h), 2 * b, lambda: ln(xi),
                                note="read x + write y (%d MiB each); weight, bias, mean, rstd not counted" % (b >> 20)))
        del xi, ln
    log("memory kernels done")
    return rows


def bench_launch():
    res = {}
    x = torch.zeros(1, device=DEV, dtype=torch.float32)
    for _ in range(1000):
        x.add_(1)
    torch.cuda.synchronize()

    def guard(key, fn):
        try:
            res[key] = fn()
        except Exception as e:  # noqa: BLE001
            res[key] = {"error": repr(e)}
            log("launch %s failed: %r" % (key, e))

    def host_wall():
        # N launches in a Python loop, wall clock, synchronize around the loop.
        N = 10000
        host = []
        for _ in range(5):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(N):
                x.add_(1)
            torch.cuda.synchronize()
            host.append((time.perf_counter() - t0) / N * 1e6)
        return {"median": statistics.median(host), "min": min(host), "runs": host, "launches_per_run": N,
                "kernel": "x.add_(1) on a 1-element fp32 tensor",
                "note": "Python loop + PyTorch dispatcher + cudaLaunchKernel, per launch; the GPU idles between "
                        "kernels when this exceeds the kernel's GPU time"}

    def single_events():
        # One tiny kernel between two events (includes the events' own cost and, when the GPU
        # reaches the start event before the kernel is launched, the host's launch latency).
        t = time_events(lambda: x.add_(1), reps=200, warmup=20)
        return {"median": t["median_ms"] * 1e3, "min": t["min_ms"] * 1e3, "reps": t["reps"]}

    def single_prefilled():
        # The same, with the stream held by a sleep kernel so the start event waits for the launch.
        one = []
        for _ in range(50):
            torch.cuda.synchronize()
            s = torch.cuda.Event(enable_timing=True)
            e = torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(2000000)  # ~1 ms
            s.record()
            x.add_(1)
            e.record()
            torch.cuda.synchronize()
            one.append(s.elapsed_time(e) * 1e3)
        return {"median": statistics.median(one), "min": min(one), "reps": 50,
                "note": "one kernel between two events, enqueued behind a sleep kernel"}

    def back_to_back_prefilled():
        # A long sleep kernel holds the stream while the host enqueues M tiny kernels; the events
        # time the M kernels alone, GPU-bound.
        M = 500
        pre = []
        for _ in range(10):
            torch.cuda.synchronize()
            s = torch.cuda.Event(enable_timing=True)
            e = torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(100000000)  # ~50 ms at ~2 GHz, longer than enqueuing M kernels
            s.record()
            for _ in range(M):
                x.add_(1)
            e.record()
            torch.cuda.synchronize()
            pre.append(s.elapsed_time(e) / M * 1e3)
        return {"median": statistics.median(pre), "min": min(pre), "runs": pre, "kernels_per_run": M,
                "note": "GPU time per tiny kernel (its duration + the gap to the next) when the host is ahead"}

    def cuda_graph():
        # A CUDA graph of G tiny kernels, replayed.
        G = 1000
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                x.add_(1)
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(G):
                x.add_(1)
        t = time_events(lambda: g.replay(), reps=30, warmup=3)
        return {"median": t["median_ms"] * 1e3 / G, "min": t["min_ms"] * 1e3 / G, "kernels_per_graph": G,
                "reps": t["reps"], "note": "GPU time per kernel inside one graph replay"}

    guard("host_wall_per_launch_us", host_wall)
    guard("gpu_single_tiny_kernel_events_us", single_events)
    guard("gpu_single_tiny_kernel_prefilled_us", single_prefilled)
    guard("gpu_back_to_back_prefilled_queue_per_kernel_us", back_to_back_prefilled)
    guard("gpu_cuda_graph_per_kernel_us", cuda_graph)
    log("launch done")
    return res


def summarize(doc):
    s = {}

    def agg(rows, pred=lambda r: True):
        sel = [r for r in rows if pred(r)]
        if not sel:
            return None
        fl = sum(r["flops"] for r in sel)
        ms = sum(r["median_ms"] for r in sel)
        best = max(sel, key=lambda r: r["fraction_of_peak"])
        worst = min(sel, key=lambda r: r["fraction_of_peak"])
        return {
            "gemms": len(sel),
            "flop_weighted_fraction": fl / (ms * 1e-3) / 1e12 / PEAK_TFLOPS[sel[0]["dtype"]],
            "median_fraction": statistics.median(r["fraction_of_peak"] for r in sel),
            "median_implied_base_efficiency": statistics.median(r["implied_base_efficiency"] for r in sel),
            "best": {"fraction": best["fraction_of_peak"], "tflops": best["tflops"],
                     "shape": "%s %s m=%d k=%d n=%d" % (best["model"], best["gemm"], best["m"], best["k"], best["n"])},
            "worst": {"fraction": worst["fraction_of_peak"], "tflops": worst["tflops"],
                      "shape": "%s %s m=%d k=%d n=%d" % (worst["model"], worst["gemm"], worst["m"], worst["k"],
                                                         worst["n"])},
        }

    for dt in ("bf16", "fp16"):
        rows = doc["gemm"].get(dt)
        if not isinstance(rows, list):
            continue
        d = {"all": agg(rows)}
        sq = [r for r in rows if r["model"] == "square"]
        if sq:
            d["square_8192"] = {"fraction": sq[0]["fraction_of_peak"], "tflops": sq[0]["tflops"],
                                "implied_base_efficiency": sq[0]["implied_base_efficiency"]}
        for mdl in ("gpt3-xl", "llama3-8b", "llama3-70b-tp8"):
            d[mdl] = agg(rows, lambda r, mdl=mdl: r["model"] == mdl)
            d[mdl + "_tokens_16384"] = agg(rows, lambda r, mdl=mdl: r["model"] == mdl and r["m"] == 16384)
        s[dt] = d
    fp8 = doc["gemm"].get("fp8")
    if isinstance(fp8, dict) and fp8.get("available") and fp8.get("rows"):
        d = {}
        for fast in (False, True):
            rows = [r for r in fp8["rows"] if r["use_fast_accum"] == fast]
            key = "fast_accum" if fast else "split_accum"
            d[key] = {"all": agg(rows)}
            sq = [r for r in rows if r["model"] == "square"]
            if sq:
                d[key]["square_8192"] = {"fraction": sq[0]["fraction_of_peak"], "tflops": sq[0]["tflops"],
                                         "implied_base_efficiency": sq[0]["implied_base_efficiency"]}
        s["fp8"] = d
    fp32 = doc["gemm"].get("fp32")
    if isinstance(fp32, list):
        s["fp32"] = {r["gemm"]: {"fraction": r["fraction_of_peak"], "tflops": r["tflops"],
                                 "implied_base_efficiency": r["implied_base_efficiency"]} for r in fp32}
    mem = doc.get("memory")
    if isinstance(mem, list):
        s["memory"] = {r["kernel"]: r["fraction_of_4.8e12"] for r in mem}
    ln = doc.get("launch")
    if isinstance(ln, dict):
        s["launch_us"] = {k: (v.get("median") if isinstance(v, dict) else v) for k, v in ln.items()}
    s["catalog_placeholders"] = CATALOG
    return s


def run_section(doc, key, fn, sub=None):
    try:
        val = fn()
    except Exception as e:  # noqa: BLE001
        val = {"error": repr(e)}
        log("%s failed: %r" % (key if sub is None else sub, e))
    if sub is None:
        doc[key] = val
    else:
        doc[key][sub] = val


def main():
    # Explicit matmul precision settings.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    props = torch.cuda.get_device_properties(0)
    doc = {
        "benchmark": "bench/device/h200_kernels.py",
        "utc_start": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "env": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "torch_cuda": torch.version.cuda,
            "cudnn": torch.backends.cudnn.version(),
            "gpu_name": props.name,
            "compute_capability": "%d.%d" % (props.major, props.minor),
            "sm_count": props.multi_processor_count,
            "total_memory_bytes": props.total_memory,
            "nvidia_smi": nvidia_smi("name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,"
                                     "power.limit,power.draw,temperature.gpu"),
            "nvidia_smi_brief_query": nvidia_smi("name,clocks.sm,clocks.max.sm,power.limit"),
        },
        "settings": {
            "torch.backends.cuda.matmul.allow_tf32": torch.backends.cuda.matmul.allow_tf32,
            "torch.backends.cudnn.allow_tf32": torch.backends.cudnn.allow_tf32,
            "allow_bf16_reduced_precision_reduction":
                getattr(torch.backends.cuda.matmul, "allow_bf16_reduced_precision_reduction", None),
            "allow_fp16_reduced_precision_reduction":
                getattr(torch.backends.cuda.matmul, "allow_fp16_reduced_precision_reduction", None),
            "gemm_layout": "C[m,n] = A[m,k] @ W[n,k]^T via torch.mm(a, w.t(), out=c) (nn.Linear forward); "
                           "fp8: torch._scaled_mm(a8, w8.t()) (TN), e4m3, per-tensor scales, bf16 out",
            "timing": "CUDA events; 5 warm-up calls; median of 20-50 timed calls (fewer for larger GEMMs); "
                      "256 MiB L2 flush before each timed GEMM call, outside the events; "
                      "back_to_back_hot_l2 = 20 calls between one event pair without flushes",
            "peak_tflops": PEAK_TFLOPS,
            "peak_memory_bandwidth_bytes_per_s": PEAK_BW,
            "simgpt_shape_factor": "compute_cost.cpp gemm_efficiency/catalog figure: wave_eff * pad_eff * "
                                   "k/(k+tile/4), tile %d, sms %d, m=tokens, n=output features, k=reduction"
                                   % (CATALOG["gemm_tile"], CATALOG["sms"]),
        },
        "gemm": {},
    }
    log("start on %s, torch %s, cuda %s" % (props.name, torch.__version__, torch.version.cuda))
    run_section(doc, "gemm", lambda: bench_gemm("bf16", torch.bfloat16), "bf16")
    run_section(doc, "gemm", lambda: bench_gemm("fp16", torch.float16), "fp16")
    run_section(doc, "gemm", bench_fp8, "fp8")
    run_section(doc, "gemm", bench_fp32, "fp32")
    run_section(doc, "gemm", bench_sustained_bf16, "bf16_sustained_8192")
    run_section(doc, "memory", bench_memory)
    run_section(doc, "launch", bench_launch)
    doc["env"]["nvidia_smi_end"] = nvidia_smi("clocks.sm,clocks.max.sm,power.draw,temperature.gpu")
    doc["elapsed_s"] = time.time() - T_START
    try:
        doc["summary"] = summarize(doc)
    except Exception as e:  # noqa: BLE001
        doc["summary"] = {"error": repr(e)}
    text = json.dumps(doc, indent=1, sort_keys=False)
    out_dir = os.environ.get("OUT")
    if out_dir:
        with open(os.path.join(out_dir, "h200_kernels.json"), "w") as f:
            f.write(text + "\n")
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()

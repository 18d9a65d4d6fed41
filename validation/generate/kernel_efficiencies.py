#!/usr/bin/env python3
"""Prints the GEMM and grouped-GEMM efficiencies a measured kernel table implies under simgpt's own
GEMM model, the figures platforms/gpus.yaml takes for shapes no table holds.

    validation/generate/kernel_efficiencies.py GPU [--check]

GPU is a catalog name with a table in platforms/kernels (e.g. B200-SXM-180GB). For each row of the
table's `gemm` and `grouped_gemm` kinds (each precision apart), the efficiency e is the one with
which simgpt's fallback would price that row at its measured time (src/cost/compute_cost.cpp,
gemm_efficiency and priced_seconds):

    time - gap = 2 m n k groups / (peak x e x waves x padding x k / (k + tile / 4))

and for a grouped GEMM, whose HBM traffic adds to its math (a GEMM per expert, too short to hide
its loads and stores), the same with time - gap - bytes / (memory_bandwidth x memory_efficiency),
the bytes its operands', its output's and, for a weight gradient (NT), the main gradient's it reads
before adding into it (the row's `out` type).

waves = tiles / (ceil(tiles / sms) x sms) with tiles = ceil(m / tile) ceil(n / tile) groups, padding
= m n / (ceil(m / tile) tile ceil(n / tile) tile); peak, sms, tile (gemm_tile) and the gap
(kernel_launch, taken off a `back_to_back` row, whose time includes the gap to the next kernel,
not off an `isolated` one) are the catalog's. Rows that the model would price by their operands'
HBM traffic (the operands' bytes at memory_bandwidth x memory_efficiency take longer than the
measured time, or for a grouped GEMM leave it no time) say nothing of the tensor cores and are left out,
as are rows with a dimension not a whole number of 16-byte vectors where the catalog gives the GPU
an unaligned efficiency at that precision, which the model prices them at instead (compute_cost.cpp,
unaligned). The figure printed per kind and
precision is the median over its rows, rounded to two decimals, with its rows' count, 10th and
90th percentiles: catalog precision of a figure that varies by shape by more than that.

A grouped GEMM is one GEMM a group issued by TransformerEngine's loop, which takes a time of its
own a GEMM (compute_cost.cpp, seconds): grouped_gemm_launch is the least time a group over the
table's grouped rows, rounded to 0.1 us; rows within 10% of it a group take that time whatever
their FLOPs (B200: 8.6-9.4 us a group from 261 to 561 TFLOP/s), say nothing of the tensor cores
and are left out of the grouped efficiency.

--check compares the figures with the GPU's catalog entry (gemm_efficiency and
grouped_gemm_efficiency at each precision the table measures, grouped_gemm_launch) and exits 1
where one differs; ctest (`kernel_efficiencies`) runs it for every GPU with a table.
"""
import math
import os
import statistics
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CATALOG = os.path.join(ROOT, "platforms", "gpus.yaml")
TABLES = os.path.join(ROOT, "platforms", "kernels")
ELEMENT_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2, "fp8": 1}
UNITS = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}


def fail(message):
    sys.exit(f"kernel_efficiencies.py: {message}")


def quantity(text, unit):
    """'8000GBps' -> 8e12, '4us' -> 4e-6 (the catalog's spellings of these two keys)."""
    text = str(text).strip()
    if unit == "s":
        for suffix, scale in (("us", 1e-6), ("ms", 1e-3), ("ns", 1e-9), ("s", 1.0)):
            if text.endswith(suffix):
                return float(text[: -len(suffix)]) * scale
    if unit == "Bps" and text.endswith("Bps"):
        number = text[:-3]
        prefix = number[-1].lower() if number[-1].isalpha() else ""
        return float(number[: len(number) - len(prefix)]) * UNITS[prefix]
    fail(f"{CATALOG}: cannot read {text!r} as {unit}")


def shape_factor(m, n, k, groups, tile, sms):
    tiles_m, tiles_n = math.ceil(m / tile), math.ceil(n / tile)
    tiles = tiles_m * tiles_n * groups
    waves = tiles / (math.ceil(tiles / sms) * sms)
    padding = m * n / (tiles_m * tile * tiles_n * tile)
    return waves * padding * k / (k + tile / 4)


def unaligned_priced(gpu, precision):
    """Whether the model prices an unaligned GEMM of `precision` at the GPU's own measured figure."""
    if precision == "fp8":
        return bool(gpu.get("fp8_unaligned_gemm_efficiency"))
    return bool((gpu.get("unaligned_gemm_efficiency") or {}).get(precision))


def implied(gpu_name):
    with open(CATALOG) as f:
        catalog = yaml.safe_load(f)
    if gpu_name not in catalog:
        fail(f"{gpu_name} is not in {CATALOG}")
    gpu = catalog[gpu_name]
    path = os.path.join(TABLES, gpu_name + ".yaml")
    if not os.path.isfile(path):
        fail(f"{path}: no kernel table for {gpu_name}")
    with open(path) as f:
        table = yaml.safe_load(f)
    timing = table.get("timing", "back_to_back")
    gap = quantity(gpu["kernel_launch"], "s")
    stream = quantity(gpu["memory_bandwidth"], "Bps") * gpu["memory_efficiency"]
    tile, sms = gpu["gemm_tile"], gpu["sms"]
    figures = {}
    grouped = table.get("grouped_gemm") or []
    launch = min((row["us"] / row["groups"] for row in grouped), default=None)
    if launch is not None:
        figures[("grouped_gemm_launch", "us")] = (round(launch, 1), len(grouped), None, None)
    for kind, count in (("gemm", "batch"), ("grouped_gemm", "groups")):
        kind_timing = timing if isinstance(timing, str) else timing.get(kind, "back_to_back")
        by_precision = {}
        for row in table.get(kind) or []:
            precision = row["precision"]
            peak = gpu["peak_tflops"][precision] * 1e12
            m, n, k, g = row["m"], row["n"], row["k"], row[count]
            seconds = row["us"] * 1e-6 - (gap if kind_timing == "back_to_back" else 0)
            E = ELEMENT_BYTES[precision]
            if unaligned_priced(gpu, precision) and any(d % (16 // E) for d in (m, n, k)):
                continue  # priced at unaligned_gemm_efficiency, not gemm_efficiency
            hbm = (m * k + k * n + m * n) * g * E / stream
            if kind == "grouped_gemm" and row["us"] / g <= 1.1 * launch:
                continue  # the loop's time a group, not the tensor cores'
            if kind == "grouped_gemm":
                # A grouped GEMM's HBM traffic adds to its math (compute_cost.cpp, priced_seconds),
                # a weight gradient's (NT) reading and writing the main gradient it accumulates into.
                if row["layout"] == "NT":
                    hbm += m * n * g * (2 * ELEMENT_BYTES[row["out"]] - E) / stream
                seconds -= hbm
                if seconds <= 0:
                    continue
            elif hbm >= seconds:
                continue
            e = 2 * m * n * k * g / (peak * shape_factor(m, n, k, g, tile, sms) * seconds)
            by_precision.setdefault(precision, []).append(e)
        for precision, values in sorted(by_precision.items()):
            values.sort()
            figures[(kind, precision)] = (round(statistics.median(values), 2), len(values),
                                          values[len(values) // 10], values[(len(values) * 9) // 10])
    # Pooled rows (an operation's time summed over several shapes): the memory_op_efficiency e with
    # which simgpt prices that operation's kernels at the summed time, bytes / (memory_bandwidth x e)
    # plus a gap each (compute_cost.cpp; model.cpp, head_forward, moe_block_forward, backward_of):
    # the fused cross-entropy's forward reads the logits twice and writes them once, its backward
    # reads and writes them once; the permutation and the unpermutation each read and write the
    # copies, forward, and again in their backward.
    bandwidth = quantity(gpu["memory_bandwidth"], "Bps")
    pooled = {}
    for row in table.get("pooled") or []:
        E = ELEMENT_BYTES[row["precision"]]
        n, shapes = row["elements"], row["shapes"]
        if row["op"] == "te_cross_entropy":
            passes = {"forward": [3], "backward": [2], "both": [3, 2]}[row["pass"]]
            kernels_bytes = [p * n * E for p in passes]
        else:
            kernels_bytes = [2 * n * E, 2 * n * E]  # the permutation's and the unpermutation's
        seconds = row["us"] * 1e-6 - len(kernels_bytes) * shapes * gap
        total = pooled.setdefault(row["op"], [0.0, 0.0, 0])
        total[0] += sum(kernels_bytes)
        total[1] += seconds
        total[2] += 1
    for op, (total_bytes, seconds, rows) in sorted(pooled.items()):
        figures[("memory_op", op)] = (round(total_bytes / (bandwidth * seconds), 2), rows, None, None)
    return gpu, figures


def main(argv):
    args = [a for a in argv if a != "--check"]
    if len(args) != 1:
        fail("usage: validation/generate/kernel_efficiencies.py GPU [--check]")
    gpu, figures = implied(args[0])
    status = 0
    for (kind, precision), (median, rows, low, high) in figures.items():
        if kind == "grouped_gemm_launch":
            print(f"{args[0]} grouped_gemm_launch: {median:.1f}us (the least time a group over {rows} grouped rows)")
            have = str(gpu.get("grouped_gemm_launch", ""))
            if "--check" in argv and have != f"{median:.1f}us":
                print(f"FAIL: platforms/gpus.yaml {args[0]}.grouped_gemm_launch is {have or 'missing'}, the table "
                      f"implies {median:.1f}us")
                status = 1
            continue
        key = f"{kind}_efficiency"
        if low is None:
            print(f"{args[0]} {key}.{precision}: {median:.2f} (over {rows} pooled rows)")
        else:
            print(f"{args[0]} {key}.{precision}: {median:.2f} (median of {rows} rows; 10th-90th percentile "
                  f"{low:.3f}-{high:.3f})")
        if "--check" in argv:
            have = (gpu.get(key) or {}).get(precision)
            if have != median:
                print(f"FAIL: platforms/gpus.yaml {args[0]}.{key}.{precision} is {have}, the table implies {median:.2f}")
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

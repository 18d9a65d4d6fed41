#!/usr/bin/env python3
"""Writes the kernel tables platforms/kernels/B200-SXM-180GB.yaml and H200-SXM-141GB.yaml
(format: platforms/kernels/README.md) from measured kernel timings.

    validation/generate/kernel_tables.py [SHARED_MEASURED_DIR [OUTPUT_DIR]]

SHARED_MEASURED_DIR defaults to ../shared/measured beside this checkout, OUTPUT_DIR to
platforms/kernels in this checkout. Reads:

- SHARED_MEASURED_DIR/simumax-b200/system_b200_bf16_ceperm.json (MooreThreads/SimuMax
  4dcaae513ba7679d56c116a17cd4a691ec41e252, configs/system/b200_bf16_ceperm.json): only the
  measured sections, accelerator.op matmul, group_matmul, sdp_fwd and sdp_bwd, whose
  `accurate_efficient_factor` f per shape is SimuMax's achieved TFLOP/s / `tflops` (2250); a row's
  time is FLOPs / (f x tflops x 1e12), with FLOPs as SimuMax counts them (matmul 2bmnk; grouped
  2 ng M N K; attention batch x seq^2 x max(heads, kv_heads) x (qk_dim + v_dim) x 2 forward, x 5
  backward, without the causal half). matmul -> `gemm`, group_matmul -> `grouped_gemm` (the GEMM
  each stage runs: fwd TN m=M n=N k=K, bwd_grad_act NN m=M n=K k=N, bwd_grad_w NT m=N n=K k=M into
  main_grad_dtype), sdp_fwd / sdp_bwd -> `attention`. SimuMax timed the forward and input-gradient
  grouped GEMMs of 16 shapes twice, in a pass with fp32 main gradients and in one with bf16 ones;
  the main gradient's type does not touch those kernels, so both figures are one row's, and the
  fp32 pass's is taken (PREFERRED_MAIN_GRAD below; the method says so). Any other two figures for
  one row are refused, with both named.
- validation/device/h200-kernels.json in this checkout (simgpt's own measurement, written by
  bench/device/h200_kernels.py): its `gemm` rows (bf16, fp16, fp8 with split accumulation, fp32;
  us = median_ms x 1000) and its LayerNorm forward `memory` rows.
- validation/device/h200-table-*.yaml listed in H200_MEASURED: tables bench/device/measure_kernels.py
  wrote on the same kind of H200 at the shapes `simgpt kernels` listed for simgpt's own GPT-2 steps
  and for workloads/llama3_8b, llama3_70b, deepseek_v3 and mixtral_8x7b (validation/device/h200-shapes),
  copied byte for byte; all `timing: isolated`; their GEMMs, attention and norms (their grouped GEMMs
  ran two implementations and stay in the files). A shape h200-kernels.json times too keeps that
  file's figure (the README compares the two).

Writes each table whole (a temporary file renamed over it). The output is deterministic: rows
sorted by kind, then their keys; `us` to 6 significant figures (at least one decimal). ctest
(`kernel_tables`, tests/validation/kernel_tables.sh) checks that the committed tables are what
this script writes.
"""
import json
import math
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.join(ROOT, "..", "shared", "measured")
OUTPUT = os.path.join(ROOT, "platforms", "kernels")
B200_FILE = os.path.join("simumax-b200", "system_b200_bf16_ceperm.json")
H200_FILE = os.path.join(ROOT, "validation", "device", "h200-kernels.json")
# measure_kernels.py's tables, each with the shape listings it timed (validation/device/README.md).
H200_MEASURED = ("h200-table-gpt2-steps.yaml", "h200-table-llama-moe.yaml")
SIMUMAX = "MooreThreads/SimuMax 4dcaae513ba7679d56c116a17cd4a691ec41e252"
# SimuMax measured the grouped GEMMs' fwd and bwd_grad_act stages in both of its main-gradient
# passes; the figure of this pass is kept (the pass its test_grouped_gemm_efficiency.py runs at that
# commit, grad_reduce_in_bf16=False, and the fp32 accumulation of its Megatron-LM runs).
PREFERRED_MAIN_GRAD = "fp32"

KINDS = ("gemm", "grouped_gemm", "attention", "memory")
# A pooled row: an operation's time summed over `shapes` shapes (`elements` summed over them too),
# the passes it covers (forward, backward or both), `us` last.
POOLED_FIELDS = ("op", "precision", "pass", "shapes", "elements")
# SimuMax's simu_tools/efficency_test/test_ce_permute_efficiency.py at that commit: the shapes it
# times, its byte counts, and how it turns the summed time into the factor the system file keeps
# (efficiency_from_bytes_time over weighted_efficiency: bytes / (gbps x 2^30 x (time - latency x
# launches x rows))).
CE_VOCABS = (102400, 129280, 128256, 64128, 32128, 16128, 128512)  # batch 1, sequence 4096
CE_TOKENS = 4096
PERMUTE_CASES = ((4096, 5120, 160, 6), (4096, 7168, 256, 8))  # tokens, hidden, experts, top-k; capacity 1
# SimuMax's collectives (its system file's networks.high_intra_node.op, as
# tools/b200/build_current_machine_system_config.py wrote them at that commit): each op's name
# there, the scale and offset its time formula multiplies the per-step latency and the carried
# bytes by (steps = (n + offset) x scale, bytes x (n - 1) / n x scale), and the name a table row
# gives it. nccl-tests ran from 1 MiB (--nccl-begin) and the line was fitted to its first 11 sizes
# (one_click_common.fit_bw_latency, fit_count=11: 1 MiB to 1 GiB); the call latency was timed at
# world sizes 2, 4 and 8 (--fixed-latency-ws).
COLLECTIVES = (("all_gather", 1, -1, "all_gather"), ("reduce_scatter", 1, -1, "reduce_scatter"),
               ("all_reduce", 2, -1, "all_reduce"), ("all2all", 1, -1, "all_to_all"))
COLLECTIVE_FROM_BYTES = 1 << 20
COLLECTIVE_RANKS = (2, 4, 8)
COLLECTIVE_FIELDS = ("op", "fabric", "ranks", "bus_GBps", "step_us", "call_us", "from_bytes")
# Each kind's keys in the order a row is written (`us` last); rows sort by these, words in ORDER.
FIELDS = {
    "gemm": ("precision", "layout", "out", "batch", "m", "n", "k"),
    "grouped_gemm": ("precision", "layout", "out", "groups", "m", "n", "k"),
    "attention": ("precision", "pass", "causal", "qkv", "batch", "seq", "heads", "kv_heads", "qk_dim", "v_dim"),
    "memory": ("op", "precision", "pass", "elements"),
}
ORDER = {w: i for i, w in enumerate(("bf16", "fp16", "fp8", "fp32", "TN", "NN", "NT", "forward", "backward",
                                     "contiguous", "strided", "layernorm", "rmsnorm"))}


def fail(where, message):
    sys.exit(f"{where}: {message}")


def load_json(path, what):
    if not os.path.isfile(path):
        fail(path, f"not found: {what} (usage: {os.path.relpath(__file__, ROOT)} [SHARED_MEASURED_DIR [OUTPUT_DIR]])")
    try:
        with open(path) as f:
            return json.load(f)
    except ValueError as e:
        fail(path, f"not JSON: {e}")


def format_us(where, us):
    if not (isinstance(us, float) and math.isfinite(us) and us > 0):
        fail(where, f"time {us!r} us is not a positive number")
    digits = math.floor(math.log10(us)) + 1
    return f"{us:.{max(1, 6 - digits)}f}"


def yaml_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def sort_key(kind, row):
    return tuple(ORDER.get(row[f], 0) if isinstance(row[f], str) else row[f] for f in FIELDS[kind])


def folded(key, text, width=100):
    """A folded block scalar (`key: >-`), text wrapped at `width` columns."""
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width - 2:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return f"{key}: >-\n" + "".join(f"  {l}\n" for l in lines)


def timing_line(timing):
    """One word for every kind, or a mapping of kind to word where the kinds were timed apart."""
    if isinstance(timing, str):
        return f"timing: {timing}\n"
    return "timing: {" + ", ".join(f"{k}: {timing[k]}" for k in KINDS if k in timing) + "}\n"


def render(gpu, source_dir, source, method, timing, tables):
    """tables: kind -> list of (row dict, us)."""
    out = [f"# Written by validation/generate/kernel_tables.py from\n# {source_dir}: do not edit; change the\n"
           "# script and rerun it.\n",
           f"gpu: {gpu}\n", folded("source", source), folded("method", method), timing_line(timing)]
    for kind in KINDS:
        rows = tables.get(kind)
        if not rows:
            continue
        out.append(f"{kind}:\n")
        for row, us in sorted(rows, key=lambda r: sort_key(kind, r[0])):
            fields = ", ".join(f"{f}: {yaml_scalar(row[f])}" for f in FIELDS[kind])
            out.append(f"  - {{{fields}, us: {format_us(row, us)}}}\n")
    return "".join(out)


def render_section(name, rows, fields, us=True):
    """A section of rows written by their keys (`pooled`: measurements given only as a sum over
    several shapes, `us` last; `collectives`: a collective's measured line, no `us`)."""
    if not rows:
        return ""
    out = [f"{name}:\n"]
    for row in rows:
        values = ", ".join(f"{f}: {yaml_scalar(row[f])}" for f in fields)
        out.append(f"  - {{{values}, us: {row['us']:.1f}}}\n" if us else f"  - {{{values}}}\n")
    return "".join(out)


def write_whole(path, text):
    temporary = path + ".tmp"
    with open(temporary, "w") as f:
        f.write(text)
    os.replace(temporary, path)


# ---------------------------------------------------------------------------------------------
# B200: SimuMax's measured factors


def parse_key(where, key, names):
    """"b=1, m=4096, ..." -> dict, its fields exactly `names`."""
    fields = {}
    for part in key.split(","):
        name, eq, value = part.strip().partition("=")
        if not eq or name in fields:
            fail(where, f"'{key}': not 'name=value, ...'")
        fields[name] = value
    if tuple(fields) != names:
        fail(where, f"'{key}': expected the fields {', '.join(names)}")
    return fields


def whole(where, key, fields, name):
    v = fields[name]
    if not re.fullmatch(r"[1-9][0-9]*", v):
        fail(where, f"'{key}': {name}={v} is not a whole number of at least 1")
    return int(v)


def one_of(where, key, fields, name, allowed):
    v = fields[name]
    if v not in allowed:
        fail(where, f"'{key}': {name}={v} is not one of {', '.join(allowed)}")
    return v


def factors(where, op, section):
    s = op.get(section)
    if not isinstance(s, dict) or not isinstance(s.get("accurate_efficient_factor"), dict):
        fail(where, f"accelerator.op.{section}.accurate_efficient_factor missing")
    peak = s.get("tflops")
    if not isinstance(peak, (int, float)) or not peak > 0:
        fail(where, f"accelerator.op.{section}.tflops is not a positive number")
    items = list(s["accurate_efficient_factor"].items())
    if not items:
        fail(where, f"accelerator.op.{section}.accurate_efficient_factor is empty")
    for key, f in items:
        if not isinstance(f, (int, float)) or isinstance(f, bool) or not f > 0:
            fail(where, f"accelerator.op.{section}: '{key}': factor {f!r} is not a positive number")
    return float(peak), items


def us_of(flops, factor, peak_tflops):
    return flops / (factor * peak_tflops * 1e12) * 1e6


def b200_gemm(where, op):
    peak, items = factors(where, op, "matmul")
    names = ("b", "m", "k", "n", "layout", "accumulate", "out_dtype")
    rows = []
    for key, f in items:
        fl = parse_key(where, key, names)
        b, m, k, n = (whole(where, key, fl, x) for x in ("b", "m", "k", "n"))
        layout = one_of(where, key, fl, "layout", ("TN", "NN", "NT"))
        out = one_of(where, key, fl, "out_dtype", ("bf16", "fp32"))
        # test_gemm_efficiency.py: the weight gradient (NT) accumulates into its output (Megatron's
        # main gradient), the forward and the input gradient overwrite theirs.
        accumulate = one_of(where, key, fl, "accumulate", ("True", "False"))
        if (accumulate == "True") != (layout == "NT") or (out == "fp32" and layout != "NT"):
            fail(where, f"matmul '{key}': accumulation or fp32 output on a layout other than NT's")
        rows.append(({"precision": "bf16", "layout": layout, "out": out, "batch": b, "m": m, "n": n, "k": k},
                     us_of(2 * b * m * n * k, f, peak), key))
    return peak, rows


GROUPED_STAGES = {
    # stage: (layout, grad, accumulate, use_split_accumulator, single_output) as
    # test_grouped_gemm_efficiency.py runs it
    "fwd": ("TN", "False", "False", "False", "True"),
    "bwd_grad_act": ("NN", "True", "False", "True", "False"),
    "bwd_grad_w": ("NT", "True", "True", "True", "False"),
}


def b200_grouped(where, op):
    peak, items = factors(where, op, "group_matmul")
    names = ("ng", "M", "N", "K", "dtype", "out_dtype", "main_grad_dtype", "stage", "grad", "accumulate",
             "use_split_accumulator", "single_output")
    rows = []
    for key, f in items:
        fl = parse_key(where, key, names)
        ng, M, N, K = (whole(where, key, fl, x) for x in ("ng", "M", "N", "K"))
        one_of(where, key, fl, "dtype", ("bf16",))
        one_of(where, key, fl, "out_dtype", ("bf16",))
        main_grad = one_of(where, key, fl, "main_grad_dtype", ("fp32", "bf16"))
        stage = one_of(where, key, fl, "stage", tuple(GROUPED_STAGES))
        layout, *flags = GROUPED_STAGES[stage]
        if [fl[x] for x in ("grad", "accumulate", "use_split_accumulator", "single_output")] != flags:
            fail(where, f"group_matmul '{key}': grad/accumulate/split accumulator/single output are not "
                        f"those of test_grouped_gemm_efficiency.py's {stage}")
        # The forward's shape in the key: x [M, K] per group, W [N, K], y [M, N].
        if stage == "fwd":
            m, n, k, out = M, N, K, "bf16"
        elif stage == "bwd_grad_act":
            m, n, k, out = M, K, N, "bf16"  # dx [M, K] = dy [M, N] W [N, K]
        else:
            m, n, k, out = N, K, M, main_grad  # dW [N, K] += dy^T [N, M] x [M, K]
        rows.append(({"precision": "bf16", "layout": layout, "out": out, "groups": ng, "m": m, "n": n, "k": k},
                     us_of(2 * ng * M * N * K, f, peak), key, stage, main_grad))
    return peak, rows


def b200_attention(where, op):
    rows = []
    peaks = set()
    for section, passname, multiple in (("sdp_fwd", "forward", 2), ("sdp_bwd", "backward", 5)):
        peak, items = factors(where, op, section)
        peaks.add(peak)
        names = ("batch", "seq_len", "head_num", "kv_head_num", "qk_head_dim", "v_head_dim", "qkv_contiguous")
        for key, f in items:
            fl = parse_key(where, key, names)
            batch, seq, heads, kv_heads, qk_dim, v_dim = (
                whole(where, key, fl, x) for x in names[:-1])
            contiguous = one_of(where, key, fl, "qkv_contiguous", ("True", "False"))
            if heads % kv_heads:
                fail(where, f"{section} '{key}': kv_head_num does not divide head_num")
            flops = multiple * batch * seq * seq * max(heads, kv_heads) * (qk_dim + v_dim)
            rows.append(({"precision": "bf16", "pass": passname, "causal": True,
                          "qkv": "contiguous" if contiguous == "True" else "strided", "batch": batch, "seq": seq,
                          "heads": heads, "kv_heads": kv_heads, "qk_dim": qk_dim, "v_dim": v_dim},
                         us_of(flops, f, peak), f"{section} '{key}'"))
    return peaks, rows


def key_of(kind, row):
    return (kind,) + tuple(row[f] for f in FIELDS[kind])


def unique(where, kind, rows, describe):
    """rows: (row, us, provenance...) -> {key: (row, us)}, refusing two figures for one key."""
    seen = {}
    for r in rows:
        seen.setdefault(key_of(kind, r[0]), []).append(r)
    bad = [(k, rs) for k, rs in seen.items() if len(rs) > 1]
    if bad:
        lines = [f"{where}: {len(bad)} {kind} rows have more than one figure:"]
        for k, rs in bad:
            lines.append(f"  {dict(zip(FIELDS[kind], k[1:]))}:")
            lines += [f"    {r[1]:.6g} us from {describe(r)}" for r in rs]
        sys.exit("\n".join(lines))
    return [(rs[0][0], rs[0][1]) for rs in seen.values()]


def b200(shared):
    path = os.path.join(shared, B200_FILE)
    d = load_json(path, "SimuMax's B200 system description (MooreThreads/SimuMax configs/system/b200_bf16_ceperm.json)")
    op = (d.get("accelerator") or {}).get("op")
    if not isinstance(op, dict):
        fail(path, "no accelerator.op")
    gemm_peak, gemm = b200_gemm(path, op)
    grouped_peak, grouped = b200_grouped(path, op)
    attention_peaks, attention = b200_attention(path, op)
    peaks = {gemm_peak, grouped_peak} | attention_peaks
    if len(peaks) != 1:
        fail(path, f"the sections' tflops differ ({sorted(peaks)}); the method names one")
    peak = peaks.pop()

    # The forward and input-gradient grouped GEMMs measured in both main-gradient passes: one row,
    # the preferred pass's figure; the other pass's figures are reported in the method.
    by_key = {}
    for r in grouped:
        by_key.setdefault(key_of("grouped_gemm", r[0]), []).append(r)
    kept, spread = [], []
    for rs in by_key.values():
        if len(rs) > 1 and all(r[3] != "bwd_grad_w" for r in rs):
            preferred = [r for r in rs if r[4] == PREFERRED_MAIN_GRAD]
            if len(preferred) == 1:
                kept.append(preferred[0])
                spread += [r[1] / preferred[0][1] - 1 for r in rs if r is not preferred[0]]
                continue
        kept += rs  # refused below if still more than one
    tables = {
        "gemm": unique(path, "gemm", gemm, lambda r: f"matmul '{r[2]}'"),
        "grouped_gemm": unique(path, "grouped_gemm", kept, lambda r: f"group_matmul '{r[2]}'"),
        "attention": unique(path, "attention", attention, lambda r: r[2]),
    }
    if spread:
        twice = (f" SimuMax timed {len(spread)} of these rows, forward and input-gradient GEMMs, twice, in a pass with fp32 main gradients and in one with bf16 ones (its key carries "
                 f"main_grad_dtype; the figures merged from separate runs): the main gradient's type does "
                 f"not touch those kernels, so both are one row's; the row takes the {PREFERRED_MAIN_GRAD} "
                 f"pass's figure (the pass test_grouped_gemm_efficiency.py runs at that commit, and the fp32 "
                 f"gradient accumulation of SimuMax's Megatron-LM runs). The other pass's times differ from "
                 f"it by {100 * min(spread):+.1f}% to {100 * max(spread):+.1f}% (median "
                 f"{100 * statistics.median(spread):+.1f}%), a measure of these figures' run-to-run spread.")
    else:
        twice = ""
    pooled = b200_pooled(path, d)
    collectives = b200_collectives(path, d)
    p = f"{peak:g}"
    source = (f"{SIMUMAX}, configs/system/b200_bf16_ceperm.json (../shared/measured/{B200_FILE}): the "
              f"accurate_efficient_factor of accelerator.op matmul ({len(gemm)} shapes), group_matmul "
              f"({len(grouped)}), sdp_fwd and sdp_bwd ({len(attention) // 2} each), and of accelerator.bandwidth "
              f"ce_fusion, permute_fwd and permute_bwd, and the collectives of networks.high_intra_node, which SimuMax's "
              f"tools/b200/build_current_machine_system_config.py measured on a B200 with its "
              f"simu_tools/efficency_test scripts (the file's other figures are not measurements and are "
              f"not read)")
    method = (
        f"A factor f is SimuMax's achieved TFLOP/s / {p} for that shape, so a row's time is FLOPs / (f x {p}e12) "
        f"with FLOPs as SimuMax counts them. GEMM (test_gemm_efficiency.py): TransformerEngine's general_gemm "
        f"through cuBLASLt, bf16 randn operands, 100 calls of which the last 75 are timed by the host's wall "
        f"clock between two device synchronisations, time per call = elapsed / 75, so a row includes the gap "
        f"between kernels; FLOPs 2 b m n k. TN is the forward, NN the input gradient and NT the weight "
        f"gradient (grad and use_split_accumulator set for NN and NT), each row's m, n, k as SimuMax's key "
        f"gives them; the NT rows accumulate into their output (accumulate=True: out fp32 is Megatron-LM's "
        f"fused fp32 main-gradient accumulation, out bf16 a bf16 main gradient), the others overwrite it. "
        f"Grouped GEMM (test_grouped_gemm_efficiency.py): TransformerEngine's general_grouped_gemm over ng "
        f"groups of M tokens each (the balanced split, ceil(tokens x topk / experts) a group), bf16 randn "
        f"operands, 50 calls of which the last 40 are timed by the host's wall clock between two "
        f"synchronisations; FLOPs 2 ng M N K with SimuMax's key giving the forward's shape (x [M, K], W [N, "
        f"K] per group); each row is the GEMM its stage runs: fwd TN m=M n=N k=K into one bf16 output, "
        f"bwd_grad_act NN m=M n=K k=N, bwd_grad_w NT m=N n=K k=M accumulated into main gradients of its "
        f"main_grad_dtype (out).{twice} Attention (test_fa_efficiency.py, FA_TIMING_MODE=trace_kernel): "
        f"Megatron-LM's TEDotProductAttention (TransformerEngine's DotProductAttention; which of its "
        f"backends ran is not recorded) with the causal mask, dropout 0, sbhd bf16 randn inputs; 10 warm-up "
        f"iterations, then 20 under torch.profiler with a synchronisation after each, each iteration's span "
        f"from its first kernel's start to its last kernel's end, the first dropped and the median of the "
        f"other 19 taken; the backward is out.backward(), all its kernels. qkv contiguous: q, k, v tensors of "
        f"their own; strided (SimuMax's qkv_contiguous=False): every second batch entry of [s, 2b, h, d] "
        f"tensors, not views into one projection's output. FLOPs batch x seq^2 x max(heads, kv_heads) x "
        f"(qk_dim + v_dim) x 2 (forward) or x 5 (backward) without the causal half, so a factor above 1 is "
        f"possible. The attention rows are kernel spans, without the gap to a next kernel that the GEMM rows "
        f"include. Software versions and clocks are not recorded with the figures (SimuMax's B200 step-time "
        f"runs used TransformerEngine 2.11); the figures were merged from SimuMax's measurement cache "
        f"(EFFICIENCY_CACHE_MODE supplement), so not all from one run. Pooled rows "
        f"(test_ce_permute_efficiency.py, CUDA events around each op's span, 2 warm-up and 5 timed calls, the "
        f"median): SimuMax keeps only a factor over the summed time of several shapes, bytes / (gbps x 2^30 x "
        f"(time - latency_us x launches x shapes)) with its own byte counts, so a row is that summed time, "
        f"inverted from the factor: TransformerEngine's parallel_cross_entropy on bf16 logits, forward and "
        f"backward (the gradient a tensor of ones), batch 1, sequence {CE_TOKENS}, vocabularies "
        f"{', '.join(str(v) for v in CE_VOCABS)} (elements: the logits; bytes 2 x (2 x logits x 2 + tokens x 4), "
        f"2 launches a shape); moe_permute_with_probs then moe_unpermute, forward and apart the backward of their "
        f"sum, bf16 tokens, {' and '.join(f'{t} tokens of {h} to {e} experts top-{k}' for t, h, e, k in PERMUTE_CASES)}, "
        f"capacity factor 1 (elements: the permuted copies' values, ceil(tokens x top-k / experts) x experts x "
        f"hidden; bytes (2 tokens x hidden + 6 copies x hidden) x 2 a pass, 4 launches a shape). Collectives "
        f"(networks.high_intra_node.op: all_gather, reduce_scatter, all_reduce, all2all): nccl-tests at world "
        f"size 8 on the node's NVLink, bf16, 2 warm-up and 10 timed iterations, 3 repeats, from 1 MiB; a "
        f"straight line fitted to the time of its first 11 sizes (1 MiB to 1 GiB) against the bytes a rank's "
        f"link carries, its slope the bus bandwidth (efficient_factor x gbps x 2^30 bytes a second) and its "
        f"intercept spread over the ring's steps (latency_us a step); then each collective of 32 MiB timed "
        f"through torch.distributed in a loop at world sizes 2, 4 and 8, and what it took beyond the line kept "
        f"as the call's own latency (fixed_latency_us, one figure where the three agree within 25 us, else "
        f"one a world size). The line was fitted at world size 8 only: the rows of 2 and 4 ranks are that "
        f"line with the call latency measured at their size, as SimuMax applies it.")
    return render("B200-SXM-180GB", f"../shared/measured/{B200_FILE}", source, method,
                  # test_fa_efficiency.py times one iteration's kernel span between synchronisations:
                  # no gap to a next kernel, unlike the GEMMs' calls back to back.
                  {"gemm": "back_to_back", "grouped_gemm": "back_to_back", "attention": "isolated"}, tables) + \
        render_section("pooled", pooled, POOLED_FIELDS) + \
        render_section("collectives", collectives, COLLECTIVE_FIELDS, us=False)


def b200_pooled(path, d):
    """The summed times behind SimuMax's ce_fusion, permute_fwd and permute_bwd factors."""
    bandwidth = (d.get("accelerator") or {}).get("bandwidth")
    if not isinstance(bandwidth, dict):
        fail(path, "no accelerator.bandwidth")

    def summed_us(name, total_bytes, launches, shapes):
        entry = bandwidth.get(name)
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), (int, float)) for k in
                                                  ("efficient_factor", "gbps", "latency_us")):
            fail(path, f"accelerator.bandwidth.{name}: expected efficient_factor, gbps and latency_us")
        seconds = total_bytes / (entry["gbps"] * 1024**3 * entry["efficient_factor"])
        return 1e6 * seconds + entry["latency_us"] * launches * shapes

    logits = [CE_TOKENS * v for v in CE_VOCABS]
    ce_bytes = sum(2 * (2 * n * 2 + CE_TOKENS * 4) for n in logits)
    rows = [{"op": "te_cross_entropy", "precision": "bf16", "pass": "both", "shapes": len(logits),
             "elements": sum(logits), "us": summed_us("ce_fusion", ce_bytes, 2, len(logits))}]
    copies = [math.ceil(t * k / e) * e * h for t, h, e, k in PERMUTE_CASES]
    permute_bytes = sum((2 * t * h + 6 * c) * 2 for (t, h, e, k), c in zip(PERMUTE_CASES, copies))
    for name, pass_ in (("permute_fwd", "forward"), ("permute_bwd", "backward")):
        rows.append({"op": "moe_permute", "precision": "bf16", "pass": pass_, "shapes": len(copies),
                     "elements": sum(copies), "us": summed_us(name, permute_bytes, 4, len(copies))})
    return rows


def b200_collectives(path, d):
    """The lines SimuMax fitted to nccl-tests on the B200 node, with their measured call latency."""
    net = (d.get("networks") or {}).get("high_intra_node")
    if not isinstance(net, dict):
        fail(path, "no networks.high_intra_node")
    bandwidth = net.get("bandwidth") or {}
    if bandwidth.get("efficient_factor") != 1.0 or not isinstance(bandwidth.get("gbps"), (int, float)):
        fail(path, "networks.high_intra_node.bandwidth: expected gbps and an efficient_factor of 1.0 "
                   "(each op's own factor then carries its fitted bandwidth)")
    rows = []
    for name, scale, offset, op in COLLECTIVES:
        where = f"{path}: networks.high_intra_node.op.{name}"
        entry = (net.get("op") or {}).get(name)
        if not isinstance(entry, dict):
            fail(where, "missing")
        if entry.get("scale") != scale or entry.get("offset") != offset:
            fail(where, f"scale {entry.get('scale')}, offset {entry.get('offset')}: expected {scale} and {offset}, "
                        "the ring's steps and bytes this table's rows take")
        for key in ("efficient_factor", "latency_us", "fixed_latency_us"):
            if not isinstance(entry.get(key), (int, float)) or entry[key] < 0:
                fail(where, f"{key} is not a number of at least 0")
        by_ranks = entry.get("fixed_latency_us_by_comm_num") or {}
        for ranks in COLLECTIVE_RANKS:
            call = by_ranks.get(str(ranks), entry["fixed_latency_us"]) if by_ranks else entry["fixed_latency_us"]
            rows.append({"op": op, "fabric": "nvlink", "ranks": ranks,
                         "bus_GBps": round(entry["efficient_factor"] * bandwidth["gbps"] * 1024**3 / 1e9, 2),
                         "step_us": entry["latency_us"], "call_us": call, "from_bytes": COLLECTIVE_FROM_BYTES})
    return rows


# ---------------------------------------------------------------------------------------------
# H200: simgpt's own measurement


def h200():
    path = H200_FILE
    d = load_json(path, "simgpt's H200 kernel measurements (bench/device/h200_kernels.py's JSON)")
    env, settings, gemm = d.get("env") or {}, d.get("settings") or {}, d.get("gemm") or {}
    if settings.get("torch.backends.cuda.matmul.allow_tf32") is not False:
        fail(path, "settings: TF32 was not off for matmul; the fp32 rows would not be fp32")
    if "256 MiB L2 flush before each timed GEMM call" not in settings.get("timing", ""):
        fail(path, "settings.timing no longer says the GEMMs were timed after an L2 flush; update the method")

    rows, reps = [], []

    def gemm_rows(precision, out, items):
        for i, r in enumerate(items):
            where = f"{path}: gemm.{precision}[{i}]"
            if r.get("dtype") != precision:
                fail(where, f"dtype {r.get('dtype')!r}, expected {precision}")
            for x in ("m", "n", "k"):
                if not (isinstance(r.get(x), int) and r[x] >= 1):
                    fail(where, f"{x} is not a whole number of at least 1")
            ms = r.get("median_ms")
            if not (isinstance(ms, float) and ms > 0):
                fail(where, "median_ms is not a positive number")
            reps.append(r["reps"])
            rows.append(({"precision": precision, "layout": "TN", "out": out, "batch": 1,
                          "m": r["m"], "n": r["n"], "k": r["k"]}, ms * 1000.0,
                         f"gemm.{precision}[{i}] ({r.get('model')} {r.get('gemm')})"))

    for precision in ("bf16", "fp16", "fp32"):
        if not isinstance(gemm.get(precision), list):
            fail(path, f"gemm.{precision}: no list of rows")
        gemm_rows(precision, precision, gemm[precision])
    fp8 = gemm.get("fp8") or {}
    if not fp8.get("available") or not isinstance(fp8.get("rows"), list):
        fail(path, "gemm.fp8: not available, or no rows")
    fp8_rows = fp8["rows"]
    if any(r.get("use_fast_accum") not in (True, False) for r in fp8_rows):
        fail(path, "gemm.fp8: a row without use_fast_accum true or false")
    if any("bf16 output" not in r.get("operands", "") or "e4m3 x e4m3" not in r.get("operands", "")
           for r in fp8_rows):
        fail(path, "gemm.fp8: a row whose operands are not e4m3 x e4m3 with a bf16 output")
    split = [r for r in fp8_rows if r["use_fast_accum"] is False]
    fast = len(fp8_rows) - len(split)
    gemm_rows("fp8", "bf16", split)
    # Both variants of each shape in the JSON; the index names the row in the split list.

    memory = []
    for i, r in enumerate(d.get("memory") or []):
        name = r.get("kernel", "")
        if "layernorm" not in name.lower():
            continue
        where = f"{path}: memory[{i}] ({name})"
        m = re.fullmatch(r"layernorm forward \((\d+), (\d+)\) bf16", name)
        if not m:
            fail(where, "a LayerNorm row whose shape and type cannot be read from its name")
        elements = int(m.group(1)) * int(m.group(2))
        # What was counted: x read and y written, 2 bytes each, nothing else.
        if r.get("bytes_moved") != 4 * elements or not r.get("note", "").startswith("read x + write y"):
            fail(where, "bytes_moved is not x read plus y written in bf16; the row's elements are unclear")
        ms = r.get("median_ms")
        if not (isinstance(ms, float) and ms > 0):
            fail(where, "median_ms is not a positive number")
        memory.append(({"op": "layernorm", "precision": "bf16", "pass": "forward", "elements": elements},
                       ms * 1000.0, f"memory[{i}] ({name})", int(m.group(2)), r["reps"]))
    if not memory:
        fail(path, "no LayerNorm rows in memory")

    tables = {
        "gemm": unique(path, "gemm", rows, lambda r: r[2]),
        "memory": unique(path, "memory", memory, lambda r: r[2]),
    }
    measured, measured_method = h200_measured(tables)
    widths = sorted({r[3] for r in memory})
    ln_reps = sorted({r[4] for r in memory})
    smi = (env.get("nvidia_smi") or {}).get("stdout", "").splitlines()
    smi_fields = [x.strip() for x in smi[1].split(",")] if len(smi) == 2 else []
    if len(smi_fields) < 4 or not smi_fields[0].startswith("NVIDIA"):
        fail(path, "env.nvidia_smi.stdout: no name, driver and clocks line")
    date = d.get("utc_start", "")[:10]
    if not re.fullmatch(r"\d{4}-\d\d-\d\d", date):
        fail(path, "utc_start is not a date")
    counts = {p: sum(1 for r in rows if r[0]["precision"] == p) for p in ("bf16", "fp16", "fp8", "fp32")}
    source = (f"simgpt's own measurement: validation/device/h200-kernels.json, which "
              f"{d.get('benchmark', 'bench/device/h200_kernels.py')} wrote on {date} (utc_start "
              f"{d.get('utc_start')}) on one {env.get('gpu_name')} (compute capability "
              f"{env.get('compute_capability')}, {env.get('sm_count')} SMs, driver {smi_fields[1]}, SM clock "
              f"up to {smi_fields[3]}, power limit {smi_fields[6] if len(smi_fields) > 6 else 'not recorded'}); "
              f"validation/device/README.md describes the run")
    method = (
        f"torch {env.get('torch')} (CUDA {env.get('torch_cuda')}), cuDNN {env.get('cudnn')}, Python "
        f"{env.get('python')}; TF32 off for matmul and cuDNN, torch's reduced-precision reductions for bf16 and "
        f"fp16 left at its default (on); clocks not locked. GEMMs: C[m, n] = A[m, k] W[n, k]^T through "
        f"torch.mm(a, w.t(), out=c), nn.Linear's forward (layout TN: m tokens, k in, n out), randn operands, "
        f"out the operands' type ({counts['bf16']} bf16, {counts['fp16']} fp16 and {counts['fp32']} fp32 "
        f"rows); fp8 ({counts['fp8']} rows): torch._scaled_mm with e4m3 operands, per-tensor fp32 scales of 1 "
        f"and a bf16 output, with split accumulation (use_fast_accum False; the JSON's {fast} fast-accumulation "
        f"rows are not used). Each GEMM: 5 warm-up calls, then {min(reps)} to {max(reps)} timed calls (fewer "
        f"for larger GEMMs), each one call between two CUDA events after a 256 MiB write has flushed the L2 "
        f"outside them; us = the median. LayerNorm: torch.nn.LayerNorm({', '.join(map(str, widths))}) forward "
        f"in bf16 (bf16 weight and bias) under no_grad, elements = the input's (rows x {', '.join(map(str, widths))}), "
        f"the median of {', '.join(map(str, ln_reps))} calls each between two CUDA events after 5 warm-ups, "
        f"without an L2 flush (its inputs exceed the L2). One run, not repeated: the median repetition is 1.8% "
        f"slower than the fastest over the GEMM rows (validation/device/README.md). {measured_method}")
    source += (f"; and {measured} more rows that bench/device/measure_kernels.py measured on 2026-11-30 "
               f"(validation/device/{', validation/device/'.join(H200_MEASURED)})")
    return render("H200-SXM-141GB", "validation/device/h200-kernels.json and h200-table-*.yaml", source, method,
                  "isolated", tables)


def h200_measured(tables):
    """Adds the rows of measure_kernels.py's H200 tables (H200_MEASURED) that `tables` lacks, refusing
    a shape two of those files time; returns how many rows it added and a sentence for `method`."""
    import yaml  # python3-yaml: scripts/setup.sh installs it
    added, seen, parts = 0, {}, []
    timed = {key_of(kind, row) for kind, rows in tables.items() for row, _ in rows}  # h200-kernels.json's
    for name in H200_MEASURED:
        path = os.path.join(ROOT, "validation", "device", name)
        if not os.path.isfile(path):
            fail(path, "not found: a table bench/device/measure_kernels.py wrote (validation/device/README.md)")
        with open(path) as f:
            t = yaml.safe_load(f)
        if t.get("gpu") != "H200-SXM-141GB" or t.get("timing") != "isolated":
            fail(path, "not an H200 table timed isolated")
        if "measure_kernels.py --timer torch on NVIDIA H200" not in t.get("method", ""):
            fail(path, "method: not measure_kernels.py's torch timer on an H200")
        counts = []
        for kind in KINDS:
            n = 0
            for i, r in enumerate(t.get(kind) or []):
                where = f"{path}: {kind}[{i}]"
                if set(r) != set(FIELDS[kind]) | {"us"}:
                    fail(where, f"keys {sorted(r)}, expected {list(FIELDS[kind]) + ['us']}")
                if not (isinstance(r["us"], (int, float)) and r["us"] > 0):
                    fail(where, "us is not a positive number")
                key = key_of(kind, r)
                if key in seen:
                    fail(where, f"this shape is in {seen[key]} too")
                seen[key] = name
                if key in timed:
                    continue  # h200-kernels.json times it: that figure stays
                if kind == "grouped_gemm":
                    # torch._grouped_mm (one kernel) ran the bf16 rows and a loop of single GEMMs the
                    # fp32-output ones: two implementations, where the catalog's grouped figures
                    # (grouped_gemm_launch, grouped_gemm_efficiency) are one GPU's for one of them.
                    # They stay in the measured file.
                    continue
                tables.setdefault(kind, []).append(({f: r[f] for f in FIELDS[kind]}, float(r["us"])))
                n += 1
            if n:
                counts.append(f"{n} {kind.replace('_', ' ')}")
            added += n
        parts.append(f"{name}: {', '.join(counts)}")
    method = ("Further rows (GEMMs TN, NN and NT with bf16 or fp32 outputs, SDPA attention forward and backward, "
              "norms forward and backward; the files' grouped GEMMs left out), bench/device/measure_kernels.py's "
              "torch timer (torch.mm, SDPA's cuDNN backend, torch layer_norm / rms_norm; "
              "no TransformerEngine) at the shapes simgpt kernels listed in validation/device/h200-shapes; its "
              "method is in each file: " + "; ".join(parts) + ".")
    return added, method


def main():
    if len(sys.argv) > 3:
        sys.exit(f"usage: {sys.argv[0]} [SHARED_MEASURED_DIR [OUTPUT_DIR]]")
    shared = sys.argv[1] if len(sys.argv) > 1 else SHARED
    output = sys.argv[2] if len(sys.argv) > 2 else OUTPUT
    if not os.path.isdir(shared):
        fail(shared, "not a directory: the shared measurements (../shared/measured beside the checkout)")
    if not os.path.isdir(output):
        fail(output, "not a directory to write the kernel tables into")
    texts = {"B200-SXM-180GB.yaml": b200(shared), "H200-SXM-141GB.yaml": h200()}
    for name, text in texts.items():
        write_whole(os.path.join(output, name), text)


if __name__ == "__main__":
    main()

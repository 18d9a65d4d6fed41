#!/usr/bin/env python3
"""Writes validation/tables/torchtitan-h100-*.yaml from torchtitan's Llama 3.1 runs on H100.

    validation/generate/torchtitan_h100.py [SOURCE_DIR [OUTPUT_DIR]]

SOURCE_DIR defaults to ../shared/measured/torchtitan-h100 beside this checkout (pytorch/torchtitan
benchmarks/llama3_h100_202412_torchtitan.md, added by 820504e2, runs of 2024-12 with torchtitan
9dec370, torch 1963fc8, torchao eab345c), OUTPUT_DIR to validation/tables in this checkout. One
table per table of the page (each ran on one number of GPUs: one platform), one row per table row,
its `row` the table and row as printed, its `column` the measured cells as printed. Measured:
tokens per second per GPU, as a step time (global batch x sequence length / (TPS/GPU x GPUs)), and
the peak memory in GiB (torchtitan's GPUMemoryMonitor: torch.cuda.max_memory_reserved, the maximum
over ranks). The output is deterministic; ctest (`torchtitan_h100_tables`) checks that the
committed tables are what this script writes.
"""
import os
import re
import sys

import table_yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SOURCE = os.path.join(ROOT, "..", "shared", "measured", "torchtitan-h100")
OUTPUT = os.path.join(ROOT, "validation", "tables")
PAGE = "llama3_h100_202412_torchtitan.md"
HEADING = ("pytorch/torchtitan 820504e2, benchmarks/llama3_h100_202412_torchtitan.md (runs with torchtitan "
           "9dec370, torch 1963fc8, torchao eab345c)")
GPUS_PER_HOST = 8

# torchtitan/models/llama/__init__.py, llama3_configs at 9dec370; the FFN width as
# torchtitan/models/llama/model.py's FeedForward computes it: int(2 x 4 dim / 3), times
# ffn_dim_multiplier, rounded up to multiple_of. Vocabulary: the Llama 3 tiktoken tokenizer's 128,256.
# Untied output projection, RMSNorm, rotary positions, no biases, grouped-query attention.
MODELS = {
    "8B": {"dim": 4096, "n_layers": 32, "n_heads": 32, "n_kv_heads": 8, "ffn_dim_multiplier": 1.3,
           "multiple_of": 1024},
    "70B": {"dim": 8192, "n_layers": 80, "n_heads": 64, "n_kv_heads": 8, "ffn_dim_multiplier": 1.3,
            "multiple_of": 4096},
    "405B": {"dim": 16384, "n_layers": 126, "n_heads": 128, "n_kv_heads": 8, "ffn_dim_multiplier": 1.2,
             "multiple_of": 4096},
}
VOCAB = 128256
# train_configs/llama3_{8b,70b,405b}.toml at 9dec370: training.seq_len 8192 (Tables 2 and 6 give theirs).
SEQ_LEN = 8192


def ffn_width(c):
    hidden = int(2 * 4 * c["dim"] / 3)
    hidden = int(c["ffn_dim_multiplier"] * hidden)
    m = c["multiple_of"]
    return m * ((hidden + m - 1) // m)


def fail(where, message):
    sys.exit(f"{where}: {message}")


def number(text):
    return float(text.replace(",", ""))


def page_tables(path):
    """{table number: (caption, header cells, [(row index, cells)])} from the page's markdown."""
    tables, current = {}, None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"\*\*Table (\d+)\*\* (.*)", line)
            if m:
                current = int(m.group(1))
                tables[current] = [m.group(2), None, []]
                continue
            if current is None or not line.startswith("|"):
                if current is not None and tables[current][2] and not line.startswith("|"):
                    current = None
                continue
            cells = [c.strip() for c in line.strip("|").split("|")]
            if all(set(c) <= set("-: ") for c in cells):
                continue
            if tables[current][1] is None:
                tables[current][1] = cells
            else:
                tables[current][2].append((len(tables[current][2]), cells))
    return tables


def split(layers, stages):
    """torchtitan's generate_split_points (torchtitan/parallelisms/pipelining_utils.py at 9dec370):
    layers // stages each, the remainder one each to the middle stages from the second on."""
    base, extra = divmod(layers, stages)
    sizes = []
    for i in range(stages - 1):
        if i > 0 and extra > 0:
            sizes.append(base + 1)
            extra -= 1
        else:
            sizes.append(base)
    sizes.append(layers - sum(sizes))
    return sizes


# What each table's caption states, and what torchtitan does by default where it is silent:
# model, GPUs, local batch (per data-parallel rank), global batch (None: local x data-parallel
# ranks, as Table 2 and 6's runs have no global batch given), activation checkpointing, and what
# every row of the table runs (compile, Float8, AsyncTP, tensor and pipeline degrees).
TABLES = {
    1: {"id": "torchtitan-h100-8b-fsdp-8gpu", "model": "8B", "gpus": 8, "local": 2, "global": 16,
        "recompute": "selective", "tp": 1, "pp": 1},
    2: {"id": "torchtitan-h100-8b-cp-8gpu", "model": "8B", "gpus": 8, "local": 1, "global": None,
        "recompute": "full", "tp": 1, "pp": 1, "compile": True, "float8": True},
    3: {"id": "torchtitan-h100-8b-fsdp-128gpu", "model": "8B", "gpus": 128, "local": 2, "global": 256,
        "recompute": "selective", "tp": 1, "pp": 1},
    4: {"id": "torchtitan-h100-70b-fsdp-tp-256gpu", "model": "70B", "gpus": 256, "local": 16, "global": 512,
        "recompute": "full", "tp": 8, "pp": 1, "compile": True, "float8": True},
    5: {"id": "torchtitan-h100-405b-3d-512gpu", "model": "405B", "gpus": 512, "local": 32, "global": 256,
        "recompute": "full", "tp": 8, "pp": 8, "compile": True, "float8": True, "async_tp": True},
    6: {"id": "torchtitan-h100-405b-4d-512gpu", "model": "405B", "gpus": 512, "local": 8, "global": None,
        "recompute": "full", "tp": 8, "pp": 8, "compile": True, "float8": True, "async_tp": True,
        "schedule": "1F1B"},
}
CAPTION_CHECKS = {1: "8B model. 8 GPUs", 2: "8B model. 8 GPUs", 3: "8B model. 128 GPUs",
                  4: "70B model. 256 GPUs", 5: "405B model. 512 GPUs", 6: "405B model. 512 GPUs"}

DESCRIPTION = """\
  torchtitan's Llama 3.1 runs on Meta's Grand Teton H100 hosts (H100 SXM 96 GB HBM2e at a 500 W
  power limit, NVLink inside a host, 400 Gb/s RDMA per GPU: the grand-teton-h100 preset, whose
  tensor peaks are the datasheet's NVL and SXM peaks interpolated to 500 W), by the
  page's table {table}: {caption} Settings from torchtitan 9dec370 where the page is silent:
  sequence length 8192 (train_configs/llama3_*.toml) unless the table gives it; AdamW; bf16
  parameters with fp32 gradient reduction (config_manager.py, mixed_precision_param and _reduce);
  FSDP2 on every transformer block and the root, reshard_after_forward unless pipelined
  (parallelize_llama.py, apply_fsdp); F.scaled_dot_product_attention (flash); RMSNorm, rotary
  positions, no biases, untied output, no dropout (torchtitan/models/llama/model.py); tensor
  parallelism with SequenceParallel on the norms (the sequence-parallel split); pipeline micro-batches
  = pp (pipeline_llama.py: pipeline_parallel_microbatches or pp) and the layer split of
  generate_split_points (pipelining_utils.py: 2 stages per rank for interleaved schedules); context
  parallelism's rotate method allgather (config_manager.py) run here as simgpt's ring (p2p: the same
  key/value bytes, exchanged step by step, not gathered at once); Float8 as torchao's dynamic
  tensorwise casts (training.fp8 hybrid: e4m3 inputs and weights, e5m2 gradients); torch.compile as
  fused elementwise kernels (the torchtitan profile's eager fp32 chains otherwise); selective
  checkpointing as its op policy (the profile's compute.selective_recompute). Not modelled, and said
  in each row's note: AsyncTP (parallelism.tp_comm_overlap, TransformerEngine's overlap, would make
  Table 4's AsyncTP row 20% faster than its 2D row, measured 5.7%), Float8 all-gathers under FSDP
  (llama3_405b.toml: enable_fsdp_float8_all_gather), the 500 W limit's clock beyond the interpolated
  peaks. Memory is torch.cuda.max_memory_reserved
  (torchtitan/metrics.py, reserved_bytes.all.peak; the maximum over ranks), compared with simgpt's
  live tensors and allocator cache."""


def row_sets(t, cells, header):
    """The row's overrides and its note, from its table's settings and its own cells."""
    spec = MODELS[t["model"]]
    columns = dict(zip(header, cells))
    technique = columns.get("Techniques", columns.get("Schedule", columns.get("Parallelism", "")))
    compile_ = t.get("compile", False) or "torch.compile" in technique
    float8 = t.get("float8", False) or "Float8" in technique
    async_tp = t.get("async_tp", False) or "AsyncTP" in technique
    seq = int(number(columns["Sequence Length"])) if "Sequence Length" in columns else SEQ_LEN
    dp, cp = t["gpus"] // (t["tp"] * t["pp"]), 1
    m = re.match(r"FSDP (\d+), CP (\d+)$", columns.get("Parallelism", ""))
    if m:
        dp, cp = int(m.group(1)), int(m.group(2))
        if dp * cp * t["tp"] * t["pp"] != t["gpus"]:
            raise ValueError(f"FSDP {dp} x CP {cp} x TP {t['tp']} x PP {t['pp']} is not {t['gpus']} GPUs")
    global_batch = t["global"] if t["global"] is not None else t["local"] * dp
    if global_batch != t["local"] * dp:
        raise ValueError(f"global batch {global_batch} is not local {t['local']} x FSDP {dp}")
    micro_batches = t["pp"] if t["pp"] > 1 else 1
    schedule = t.get("schedule", technique)
    sets = [("model.layers", spec["n_layers"]), ("model.hidden", spec["dim"]), ("model.heads", spec["n_heads"]),
            ("model.kv_heads", spec["n_kv_heads"]), ("model.ffn_hidden", ffn_width(spec)),
            ("model.seq_len", seq), ("training.global_batch", global_batch),
            ("training.micro_batch", t["local"] // micro_batches), ("training.recompute", t["recompute"]),
            ("parallelism.dp", dp), ("parallelism.tp", t["tp"]), ("parallelism.pp", t["pp"]),
            ("parallelism.zero", 3 if dp * cp > 1 else 0),
            ("parallelism.sequence_parallel", "true" if t["tp"] > 1 else "false")]
    if cp > 1:
        sets += [("parallelism.cp", cp), ("parallelism.cp_comm_type", "p2p")]
    if t["pp"] > 1:
        interleaved = schedule == "Interleaved 1F1B"
        if not interleaved and schedule != "1F1B":
            raise ValueError(f"unknown schedule {schedule!r}")
        chunks = 2 if interleaved else 1
        sets += [("parallelism.schedule", "interleaved" if interleaved else "1f1b")]
        if interleaved:
            sets += [("parallelism.chunks", chunks)]
        sizes = split(spec["n_layers"], t["pp"] * chunks)
        sets += [("parallelism.partition", '"' + ",".join(str(n) for n in sizes) + '"')]
    if float8:
        sets += [("training.fp8", "hybrid"), ("training.fp8_recipe", "tensorwise")]
    # AsyncTP is not run as parallelism.tp_comm_overlap: TransformerEngine's overlap of every
    # sequence-parallel collective with its GEMM would make Table 4's AsyncTP row 20% faster than
    # its 2D row where it measured 5.7% faster; what torch's micro-pipelined TP of 2024-12 overlaps
    # (which backward collectives) is not established.
    sets += [("framework_options.compute.fused_elementwise", "true" if compile_ else "false")]
    unmodelled = []
    if async_tp:
        unmodelled.append("AsyncTP's overlap of tensor-parallel collectives")
    if float8 and t["model"] == "405B":
        unmodelled.append("Float8 all-gathers (llama3_405b.toml)")
    if cp > 1:
        unmodelled.append("context parallelism's all-gather rotation (run as a ring)")
    note = "not modelled: " + "; ".join(unmodelled) if unmodelled else None
    return sets, note


def table_text(number_, caption, header, rows):
    t = TABLES[number_]
    if CAPTION_CHECKS[number_] not in caption:
        fail(PAGE, f"Table {number_}: caption {caption!r} lacks {CAPTION_CHECKS[number_]!r}")
    nodes = t["gpus"] // GPUS_PER_HOST
    spec = MODELS[t["model"]]
    base = (f"  model: {{layers: {spec['n_layers']}, hidden: {spec['dim']}, heads: {spec['n_heads']}, "
            f"kv_heads: {spec['n_kv_heads']}, ffn_hidden: {ffn_width(spec)}, mlp: swiglu, norm: rmsnorm, "
            f"position: rope, bias: false, tie_embeddings: false, seq_len: {SEQ_LEN}, vocab: {VOCAB}, "
            f"attention: flash}}\n"
            f"  training: {{global_batch: {t['local'] * t['gpus'] // (t['tp'] * t['pp'])}, micro_batch: 1, "
            f"precision: bf16, recompute: {t['recompute']}, optimizer: adam}}\n"
            f"  parallelism: {{dp: {t['gpus'] // (t['tp'] * t['pp'])}, tp: 1, pp: 1, zero: 3}}\n"
            f"  framework: torchtitan\n")
    text = (f"# Written by validation/generate/torchtitan_h100.py from ../shared/measured/torchtitan-h100: do\n"
            f"# not edit; change the script and rerun it.\n"
            f"table: {t['id']}\n"
            f"source:\n"
            f"  seed: shared/measured/torchtitan-h100/{PAGE}\n"
            f"  heading: \"{HEADING}: Table {number_}\"\n"
            f"description: >-\n{DESCRIPTION.format(table=number_, caption=caption)}\n"
            f"platform: grand_teton_h100_x{nodes}.yaml\n"
            f"peak_memory: reserved\n"
            f"workload:\n{base}"
            f"rows:\n")
    for index, cells in rows:
        columns = dict(zip(header, cells))
        where = f"{PAGE}: Table {number_}, row {index + 1}"
        try:
            sets, note = row_sets(t, cells, header)
        except ValueError as e:
            fail(where, str(e))
        settings = dict(sets)
        tokens = settings["training.global_batch"] * settings["model.seq_len"]
        tps = number(columns["TPS/GPU"])
        step = tokens / (tps * t["gpus"])
        ident = re.sub(r"[^a-z0-9]+", "-", cells[0].lower()).strip("-")
        if "Sequence Length" in columns:
            ident += "-" + columns["Sequence Length"]
        fields = [("id", ident), ("row", f'"Table {number_}, row {index + 1}: {cells[0]}"'),
                  ("column", '"' + ", ".join(f"{h}: {c}" for h, c in zip(header[1:], cells[1:])) + '"'),
                  ("set", "{" + ", ".join(f"{k}: {v}" for k, v in sets) + "}"),
                  ("measured", f"{{step_time_s: {step:.6g}, peak_mem_gb: {number(columns['Memory(GiB)'])!r}}}"),
                  ("flags", "[]")]
        if note:
            fields.append(("note", f'"{note}"'))
        text += table_yaml.row(fields)
    return t["id"], text


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else SOURCE
    output = sys.argv[2] if len(sys.argv) > 2 else OUTPUT
    path = os.path.join(source, PAGE)
    tables = page_tables(path)
    if sorted(tables) != sorted(TABLES):
        fail(path, f"expected tables {sorted(TABLES)}, found {sorted(tables)}")
    os.makedirs(output, exist_ok=True)
    for number_, (caption, header, rows) in sorted(tables.items()):
        ident, text = table_text(number_, caption, header, rows)
        table_yaml.write_whole(os.path.join(output, ident + ".yaml"), text)


if __name__ == "__main__":
    main()

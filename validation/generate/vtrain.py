#!/usr/bin/env python3
"""Writes validation/tables/vtrain-single-node.yaml from vTrain's one-node measurements.

    validation/generate/vtrain.py [CSV [OUTPUT]]

CSV defaults to ../shared/measured/vtrain/single_node_2_4_gpus.csv beside this checkout (the 720
rows with 2 and 4 GPUs of VIA-Research/vTrain f8dda8473a48b373b1d25f51f52d685bff5150c5,
data/ground_truth_single.csv); OUTPUT to the table in this checkout. Each row keeps its line in the
CSV (its provenance) and its iteration time exactly as printed. The output is deterministic; ctest
(`vtrain_table`) checks that the committed table is what this script writes.
"""
import csv
import os
import sys

import table_yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CSV = os.path.join(ROOT, "..", "shared", "measured", "vtrain", "single_node_2_4_gpus.csv")
OUTPUT = os.path.join(ROOT, "validation", "tables", "vtrain-single-node.yaml")
COLUMNS = ["# GPUs", "global batch", "micro batch", "hidden size", "attention heads", "# layers",
           "sequence length", "tensor parallelism", "data parallelism", "pipeline parallelism",
           "iteration time (ms)"]

HEADER = """\
# Written by validation/generate/vtrain.py from ../shared/measured/vtrain/single_node_2_4_gpus.csv:
# do not edit; change the script and rerun it.
table: vtrain-single-node
source:
  seed: shared/measured/vtrain/single_node_2_4_gpus.csv
  heading: "VIA-Research/vTrain f8dda8473a48b373b1d25f51f52d685bff5150c5, data/ground_truth_single.csv: the rows with 2 and 4 GPUs"
description: >-
  Megatron-DeepSpeed step times of small GPT models on one A100 node, 2 and 4 of its GPUs (vTrain's
  data/README.md: "All data points here are collected using Megatron-DeepSpeed codebase"), by model
  size, global batch, micro-batch and tensor x data x pipeline split. What vTrain's simulator inputs
  for these rows (config/validation/single/*.json) state: GPU "A100", activation checkpointing on,
  1F1B, no gradient bucketing, 8 GPUs per node. Not stated, so assumed: the A100 variant (the
  DGX A100 preset's 80 GB SXM4, whose NVSwitch joins the GPUs), fp16 (Megatron-DeepSpeed's GPT
  examples), GPT-2's vocabulary of 50257, Adam. Each row's `row` is its line in the CSV (line 1 is
  the header); iteration time is converted from milliseconds to seconds, nothing else changed.
platform: dgx_a100.xml
workload:
  model: {layers: 24, hidden: 1024, heads: 16, seq_len: 1024, vocab: 50257}
  training: {global_batch: 16, micro_batch: 1, precision: fp16, recompute: full, optimizer: adam}
  parallelism: {dp: 1, tp: 1, pp: 1, schedule: 1f1b}
  framework: deepspeed
rows:
"""


def row_yaml(line, r):
    gpus, gb, mb, h, a, layers, seq, tp, dp, pp = (int(v) for v in r[:10])
    ms = r[10]
    if gpus != tp * dp * pp:
        sys.exit(f"{CSV}:{line}: {gpus} GPUs is not tp x dp x pp")
    ident = f"l{layers}-h{h}-gb{gb}-mb{mb}-tp{tp}-dp{dp}-pp{pp}"
    seconds = float(ms) / 1000
    sets = (f"{{model.layers: {layers}, model.hidden: {h}, model.heads: {a}, model.seq_len: {seq}, "
            f"training.global_batch: {gb}, training.micro_batch: {mb}, parallelism.tp: {tp}, "
            f"parallelism.dp: {dp}, parallelism.pp: {pp}}}")
    return table_yaml.row([("id", ident), ("row", f'"{line}"'), ("column", f'"iteration time (ms): {ms}"'), ("set", sets),
                ("measured", f"{{step_time_s: {seconds:.9g}}}"), ("flags", "[]")])


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else CSV
    output = sys.argv[2] if len(sys.argv) > 2 else OUTPUT
    with open(source, newline="") as f:
        rows = list(csv.reader(f))
    if rows[0] != COLUMNS:
        sys.exit(f"{source}:1: expected the columns {COLUMNS}")
    table_yaml.write_whole(output, HEADER + "".join(row_yaml(i + 2, r) for i, r in enumerate(rows[1:])))


if __name__ == "__main__":
    main()

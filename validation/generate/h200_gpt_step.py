#!/usr/bin/env python3
"""Writes validation/tables/h200-gpt-step.yaml from simgpt's own measurement of eager PyTorch GPT
training steps on one H200 (validation/device/h200-gpt-step.json, written by
bench/device/gpt_step.py; how it was measured: validation/device/README.md).

    validation/generate/h200_gpt_step.py [SOURCE [OUTPUT]]

SOURCE defaults to that JSON, OUTPUT to the table in this checkout. The run with PyTorch's fused
attention (validation/device/h200-gpt-step-sdpa.json, `gpt_step.py --attention sdpa`) is the table
h200-gpt-step-sdpa, its rows the model's attention: flash. One row per model and
micro-batch, in the JSON's order, its `row` the model and its `column` the micro-batch: the median
step time (seconds, to the microsecond) and the peak of allocated memory (torch.cuda.max_memory_allocated,
in GiB to 4 decimals, compared with simgpt's peak of allocated tensors). The output is deterministic; ctest (`h200_gpt_step_table`) checks that the committed table
is what this script writes.
"""
import json
import os
import sys

import table_yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SOURCE = os.path.join(ROOT, "validation", "device", "h200-gpt-step.json")


def names(source, doc):
    """The table's name and its source's path in this checkout: h200-gpt-step, or -sdpa for the run
    with PyTorch's fused attention."""
    sdpa = doc["settings"]["attention"].startswith("sdpa")
    return ("h200-gpt-step-sdpa" if sdpa else "h200-gpt-step"), "validation/device/" + os.path.basename(source), sdpa


def header(doc, table, seed, sdpa):
    env, settings = doc["env"], doc["settings"]
    attention = ("F.scaled_dot_product_attention (causal, dropout " + str(settings['dropout']) +
                 "; FlashAttention's kernels on the H200)" if sdpa else
                 "eager attention with scale, causal mask, softmax and dropout " + str(settings['dropout']))
    return f"""\
# Written by validation/generate/h200_gpt_step.py from {seed}: do not
# edit; change the script and rerun it.
table: {table}
source:
  seed: {seed}
  heading: "simgpt's device measurement {doc['utc_start']}: {doc['benchmark']}, {env['gpu']}, torch {env['torch']} (CUDA {env['cuda']})"
description: >-
  Training steps of GPT-2 small, medium and large (12, 24, 36 layers; hidden 768, 1024, 1280) in
  eager PyTorch on one H200, sequence {settings['seq_len']}, vocabulary {settings['vocab']}, micro-batch 1, 4 and 16
  (one micro-batch a step): a GPT-2-style model as a user writes it (pre-norm LayerNorm, fused QKV,
  {attention}, GELU MLP, dropout on both
  residual branches, the LM head tied to the word embedding), bf16 weights and activations,
  gradients cast to an fp32 master copy that a fused AdamW updates, no activation checkpointing, no
  CUDA graphs, no torch.compile. The step time is the median of {settings['timed_steps']} steps after {settings['warmup_steps']} warm-up ones,
  wall clock between synchronisations; memory is torch.cuda.max_memory_allocated. Replayed with the
  pytorch profile (eager kernels, one Python call each) on one GPU of a DGX H200; the profile's host
  time per kernel is fitted on the eager table's three micro-batch 1 rows, left out of its statistics.
  How it was measured: validation/device/README.md.
platform: dgx_h200.xml
peak_memory: allocated
workload:
  model: {{layers: 12, hidden: 768, heads: 12, seq_len: {settings['seq_len']}, vocab: {settings['vocab']}, head: lm{", attention: flash" if sdpa else ""}}}
  training: {{global_batch: 1, micro_batch: 1, precision: bf16, recompute: none, optimizer: adam}}
  parallelism: {{dp: 1, tp: 1, pp: 1}}
  placement: {{gpus: 1}}
  framework: pytorch
rows:
"""


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else SOURCE
    with open(source) as f:
        doc = json.load(f)
    table, seed, sdpa = names(source, doc)
    output = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "validation", "tables", table + ".yaml")
    text = header(doc, table, seed, sdpa)
    for r in doc["rows"]:
        mb = r["micro_batch"]
        sets = (f"{{model.layers: {r['layers']}, model.hidden: {r['hidden']}, model.heads: {r['heads']}, "
                f"training.global_batch: {mb}, training.micro_batch: {mb}}}")
        gib = r["peak_allocated_bytes"] / 2**30
        text += table_yaml.row([
            ("id", f"{r['model']}-mb{mb}"),
            ("row", f"\"{r['model']}\""),
            ("column", f"\"micro-batch {mb}: {r['step_s_median'] * 1e3:.2f} ms, {gib:.2f} GiB\""),
            ("set", sets),
            ("measured", f"{{step_time_s: {round(r['step_s_median'], 7)!r}, peak_mem_gb: {round(gib, 4)!r}}}"),
            ("flags", "[]"),
        ])
    table_yaml.write_whole(output, text)


if __name__ == "__main__":
    main()

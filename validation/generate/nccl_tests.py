#!/usr/bin/env python3
"""Writes validation/tables/nccl-tests-ndv4.yaml from nccl-tests all-reduce logs on Azure ND A100 v4.

    validation/generate/nccl_tests.py [LOG_DIR [OUTPUT]]

LOG_DIR defaults to ../shared/measured/nccl-tests-ndv4 beside this checkout (NetX-lab/Echo
15f0d12c417459d7a1b3b66abeaa28eca0b841a2, nccl-test-log/: `all_reduce_perf` on 1 to 128 GPUs);
OUTPUT to the table in this checkout. One row per size of each log on 2 or more GPUs (nccl_1.log is
left out: on one GPU an all-reduce is a local copy, which simgpt does not model); each row's note
keeps its log file and line (its provenance), its measured time is the out-of-place time as
printed, in seconds. The output is deterministic; ctest (`nccl_tests_table`) checks that the
committed table is what this script writes.
"""
import os
import re
import sys

import table_yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LOGS = os.path.join(ROOT, "..", "shared", "measured", "nccl-tests-ndv4")
OUTPUT = os.path.join(ROOT, "validation", "tables", "nccl-tests-ndv4.yaml")
GPU_COUNTS = [2, 4, 8, 16, 32, 64, 128]
# mpirun prefixes each line of rank 0's output with its rank and stream.
MPI_PREFIX = re.compile(r"^\[\d+,\d+\]<stdout>:")
COLUMN_HEADING = "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error"

HEADER = """\
# Written by validation/generate/nccl_tests.py from ../shared/measured/nccl-tests-ndv4: do not
# edit; change the script and rerun it.
table: nccl-tests-ndv4
kind: transfer
source:
  seed: shared/measured/nccl-tests-ndv4
  heading: "NetX-lab/Echo 15f0d12c417459d7a1b3b66abeaa28eca0b841a2, nccl-test-log/nccl_N.log: all_reduce_perf, N = 2 to 128"
description: >-
  nccl-tests' all_reduce_perf (float sum) on the first N GPUs of up to 16 Azure ND A100 v4 servers
  (8 A100-SXM4-40GB on NVSwitch, one 200 Gb/s HDR InfiniBand per GPU), one row per buffer size:
  the out-of-place time (nccl-tests' mean over its timed iterations), replayed as one all-reduce over
  the platform's first N GPUs, laid out as a training step's all-reduce is (NCCL's rings, with the
  latency and protocol NCCL 2.18.3's tuning picks), and at least as long as the benchmark thread
  takes to launch the call on its GPUs (gpus_per_thread, the log's nGpus). The logs on 2 to 8 GPUs (one process) run 8 B to 1 GiB with 5 warm-up and
  20 timed iterations; those on 16 to 128 (one MPI rank per GPU) 1 KiB to 16 GiB (16 GPUs) or 4 GiB
  with 20 and 50. Each row's `row` is its GPU count, `column` its size, `note` its log file and line.
platform: nd_a100_v4_x16.xml
rows:
"""


def size_label(size):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def rows_of(log_dir, gpus):
    name = f"nccl_{gpus}.log"
    path = os.path.join(log_dir, name)
    with open(path) as f:
        lines = [MPI_PREFIX.sub("", line.rstrip("\n")) for line in f]
    header = re.match(r"^# nThread (\d+) nGpus (\d+) ", lines[0]) if lines else None
    if not header:
        sys.exit(f"{path}:1: expected nccl-tests' header (# nThread T nGpus G ...)")
    # One thread of the benchmark drives nGpus GPUs: it launches each call's kernel on each in turn.
    per_thread = int(header.group(2))
    ranks = sum(1 for line in lines if re.match(r"^#\s+Rank\s+\d+ ", line))
    if ranks != gpus:
        sys.exit(f"{path}: {ranks} ranks listed, expected {gpus}")
    if COLUMN_HEADING not in lines:
        sys.exit(f"{path}: no nccl-tests column heading (size count type redop time algbw busbw error ...)")
    out = []
    for number, line in enumerate(lines, start=1):
        if line.startswith("#") or not line.strip():
            continue
        fields = line.split()
        if len(fields) != 12 or fields[2] != "float" or fields[3] != "sum":
            sys.exit(f"{path}:{number}: expected size count float sum and two (time algbw busbw error) columns")
        size, time_us = int(fields[0]), fields[4]
        out.append((size, time_us, per_thread, f"{name} line {number}"))
    if not out:
        sys.exit(f"{path}: no measurements")
    return out


def row_yaml(gpus, size, time_us, per_thread, provenance):
    seconds = float(time_us) / 1e6
    return table_yaml.row([("id", f"allreduce-{gpus}gpus-{size}b"), ("row", f'"{gpus} GPUs"'),
                ("column", f'"{size_label(size)}: {time_us} us"'), ("collective", "allreduce"), ("gpus", gpus),
                ("gpus_per_thread", per_thread), ("bytes", f"{size}B"), ("profile", "nccl"),
                ("measured", f"{{transfer_s: {seconds:.9g}}}"), ("note", f'"{provenance}"')])


def main():
    log_dir = sys.argv[1] if len(sys.argv) > 1 else LOGS
    output = sys.argv[2] if len(sys.argv) > 2 else OUTPUT
    text = HEADER
    for gpus in GPU_COUNTS:
        for size, time_us, per_thread, provenance in rows_of(log_dir, gpus):
            text += row_yaml(gpus, size, time_us, per_thread, provenance)
    table_yaml.write_whole(output, text)


if __name__ == "__main__":
    main()

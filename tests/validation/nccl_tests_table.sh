#!/usr/bin/env bash
# validation/generate/nccl_tests.py writes the committed nccl-tests table byte for byte from the
# all_reduce_perf logs in ../shared/measured/nccl-tests-ndv4 (which every checkout of the project
# has beside it).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! validation/generate/nccl_tests.py "$(pwd)/../shared/measured/nccl-tests-ndv4" "$tmp/table.yaml" 2> "$tmp/err"; then
  echo "FAIL: validation/generate/nccl_tests.py:"; cat "$tmp/err"; exit 1
fi
if ! cmp -s validation/tables/nccl-tests-ndv4.yaml "$tmp/table.yaml"; then
  echo "FAIL: validation/tables/nccl-tests-ndv4.yaml is not what the generator writes:"
  diff validation/tables/nccl-tests-ndv4.yaml "$tmp/table.yaml" | head -20; exit 1
fi
rows=$(grep -c '^  - id: ' "$tmp/table.yaml")
# 28 sizes (8 B to 1 GiB) on 2, 4 and 8 GPUs, 25 (1 KiB to 16 GiB) on 16, 23 (1 KiB to 4 GiB) on 32, 64, 128.
[ "$rows" -eq 178 ] || { echo "FAIL: $rows rows, expected the logs' 178 on 2 to 128 GPUs"; exit 1; }
echo "nccl-tests-ndv4.yaml: $rows rows, as the generator writes them"

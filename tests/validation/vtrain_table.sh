#!/usr/bin/env bash
# validation/generate/vtrain.py writes the committed vTrain table byte for byte from the measured
# CSV in ../shared/measured/vtrain (which every checkout of the project has beside it).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! validation/generate/vtrain.py "$(pwd)/../shared/measured/vtrain/single_node_2_4_gpus.csv" "$tmp/table.yaml" 2> "$tmp/err"; then
  echo "FAIL: validation/generate/vtrain.py:"; cat "$tmp/err"; exit 1
fi
if ! cmp -s validation/tables/vtrain-single-node.yaml "$tmp/table.yaml"; then
  echo "FAIL: validation/tables/vtrain-single-node.yaml is not what the generator writes:"
  diff validation/tables/vtrain-single-node.yaml "$tmp/table.yaml" | head -20; exit 1
fi
rows=$(grep -c '^  - id: ' "$tmp/table.yaml")
[ "$rows" -eq 720 ] || { echo "FAIL: $rows rows, expected vTrain's 720 with 2 and 4 GPUs"; exit 1; }
echo "vtrain-single-node.yaml: $rows rows, as the generator writes them"

#!/usr/bin/env bash
# Clusters not listed GPU by GPU: DGX H100 clusters of 16,384 and 131,072 GPUs as compact platforms
# (simgpt platform --preset dgx-h100 --nodes N -o NAME.yaml), each running a GPT-3 175B-shaped
# job (workloads/gpt3_175b.yaml at tp 8 x pp 16, the rest data parallel, 12 micro-batches per
# replica): wall time (hyperfine, one run) and peak RSS (/usr/bin/time) of the replayed step
# (symmetric fidelity) and of its estimate. Prints a Markdown table.
# Usage: bench/clusters.sh [SIMGPT] [NODES ...] (default build/simgpt, 2048 and 16384 nodes); run from the checkout.
set -euo pipefail
simgpt="${1:-build/simgpt}"
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(2048 16384)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export SIMGPT_DATA="$PWD"

echo "| cluster | fidelity | wall s | peak RSS MB | step time s |"
echo "| --- | --- | ---: | ---: | ---: |"
for nodes in "${sizes[@]}"; do
  gpus=$((nodes * 8))
  dp=$((gpus / 128))
  "$simgpt" platform --preset dgx-h100 --nodes "$nodes" -o "$out/cluster.yaml" >/dev/null
  for fidelity in symmetric estimate; do
    run=("$simgpt" --platform "$out/cluster.yaml" --workload workloads/gpt3_175b.yaml --set parallelism.tp=8
         --set parallelism.pp=16 --set parallelism.dp="$dp" --set training.global_batch=$((dp * 12))
         --fidelity "$fidelity")
    hyperfine --runs 1 --export-json "$out/h.json" "${run[*]}" >/dev/null 2>&1
    /usr/bin/time -f '%M' -o "$out/rss" "${run[@]}" >"$out/report"
    wall=$(python3 -c "import json; print(f\"{json.load(open('$out/h.json'))['results'][0]['mean']:.1f}\")")
    echo "| $gpus GPUs (dp $dp) | $fidelity | $wall | $(awk '{printf "%.0f", $1 / 1024}' "$out/rss") | $(awk '/^  step time/ {print $3}' "$out/report") |"
  done
done

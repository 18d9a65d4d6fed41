#!/usr/bin/env bash
# Scale: wall time (hyperfine) and peak RSS (/usr/bin/time) of one simulated step as the cluster
# grows, on DGX A100 nodes (simgpt platform --preset dgx-a100): GPT-3 175B split tp 8 x pp 16 (pp 1
# and 8 below 128 GPUs) with 2 x pp micro-batches per replica, so that the work per GPU stays fixed
# from 128 GPUs on; then the two published configurations (GPT-3 175B on 1,024 GPUs with its global
# batch of 1536, also with --fidelity full; Megatron's 1T on 3,072) and `simgpt validate`. Prints a
# Markdown table. The default fidelity is symmetric (README, "Speed").
# Usage: bench/scale.sh [SIMGPT] [GPUS ...] (default build/simgpt, all sizes); run from the checkout.
set -euo pipefail
simgpt="${1:-build/simgpt}"
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(8 64 512 1024 3072 8192 1024-paper 1024-paper-full 3072-1t 3072-1t-compact validate)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export SIMGPT_DATA="$PWD"

# measure NAME RUNS COMMAND...: one table row from hyperfine's mean and one /usr/bin/time run's RSS.
measure() {
  local name=$1 runs=$2
  shift 2
  hyperfine --runs "$runs" --export-json "$out/h.json" --command-name "$name" "$*" >/dev/null 2>&1
  /usr/bin/time -f '%M' -o "$out/rss" "$@" >"$out/report" 2>/dev/null || true
  local mean rss step
  mean=$(python3 -c "import json; r=json.load(open('$out/h.json'))['results'][0]; print(f\"{r['mean']:.2f} ± {r.get('stddev') or 0:.2f}\")")
  rss=$(awk '{printf "%.0f", $1 / 1024}' "$out/rss")
  step=$(awk '/^  step time/ {print $3}' "$out/report")
  echo "| $name | $mean | $rss | ${step:--} |"
}

echo "| run | wall s (mean ± sd) | peak RSS MB | step time s |"
echo "| --- | ---: | ---: | ---: |"
for size in "${sizes[@]}"; do
  case $size in
  validate)
    measure "simgpt validate --jobs 2" 3 "$simgpt" validate --jobs 2
    continue
    ;;
  1024-paper)
    "$simgpt" platform --preset dgx-a100 --nodes 128 -o "$out/p.xml" >/dev/null
    measure "GPT-3 175B, 1,024 GPUs, batch 1536 (workloads/gpt3_175b.yaml)" 1 \
      "$simgpt" --platform "$out/p.xml" --workload workloads/gpt3_175b.yaml
    continue
    ;;
  1024-paper-full)
    "$simgpt" platform --preset dgx-a100 --nodes 128 -o "$out/p.xml" >/dev/null
    measure "the same, --fidelity full" 1 \
      "$simgpt" --platform "$out/p.xml" --workload workloads/gpt3_175b.yaml --fidelity full
    continue
    ;;
  3072-1t)
    "$simgpt" platform --preset dgx-a100 --nodes 384 -o "$out/p.xml" >/dev/null
    measure "Megatron 1T, 3,072 GPUs, batch 3072 (workloads/megatron_1t.yaml)" 5 \
      "$simgpt" --platform "$out/p.xml" --workload workloads/megatron_1t.yaml
    continue
    ;;
  3072-1t-compact)
    "$simgpt" platform --preset dgx-a100 --nodes 384 -o "$out/p.yaml" >/dev/null
    measure "the same on the compact platform (-o p.yaml)" 5 \
      "$simgpt" --platform "$out/p.yaml" --workload workloads/megatron_1t.yaml
    continue
    ;;
  esac
  pp=16
  [ "$size" -ge 128 ] || pp=$((size / 8))
  dp=$((size / 8 / pp))
  batch=$((dp * 2 * pp))
  runs=3
  [ "$size" -lt 1024 ] || runs=1
  "$simgpt" platform --preset dgx-a100 --nodes $((size / 8)) -o "$out/p.xml" >/dev/null
  measure "$size GPUs: tp 8 pp $pp dp $dp, batch $batch" "$runs" \
    "$simgpt" --platform "$out/p.xml" --workload workloads/gpt3_175b.yaml --set parallelism.pp=$pp \
    --set parallelism.dp=$dp --set training.global_batch=$batch
done

#!/usr/bin/env bash
# What conditions cost in simulation time (README, "Speed"): a 4,096-GPU Llama 3 70B job (128 DGX
# H100 x 4, workloads/llama3_70b_straggler.yaml at dp 128) with one slow GPU, which makes every
# replica simulated, beside the same job without it (symmetric); 100 seeded draws of the 1,024-GPU
# job with 1% of its GPUs slow (workloads/llama3_70b_straggler_random.yaml --draws 100, 2 at once);
# and the two Llama 3 8B neighbours replayed together on a 64-node fat tree. Wall time (hyperfine,
# one run) and peak RSS (/usr/bin/time; for --draws the parent's, each draw a process of its own).
# Prints a Markdown table. Usage: bench/stragglers.sh [SIMGPT] (default build/simgpt); run from the checkout.
set -euo pipefail
simgpt="${1:-build/simgpt}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export SIMGPT_DATA="$PWD"

measure() { # NAME COMMAND...: one table row
  local name=$1
  shift
  hyperfine --runs 1 --export-json "$out/h.json" --command-name "$name" "$*" >/dev/null 2>&1
  /usr/bin/time -f '%M' -o "$out/rss" "$@" >/dev/null 2>&1 || true
  local wall rss
  wall=$(python3 -c "import json; print(f\"{json.load(open('$out/h.json'))['results'][0]['mean']:.2f}\")")
  rss=$(awk '{printf "%.0f", $1 / 1024}' "$out/rss")
  echo "| $name | $wall | $rss |"
}

echo "| job | wall s | peak RSS MB |"
echo "| --- | ---: | ---: |"
"$simgpt" platform --preset dgx-h100 --nodes 512 -o "$out/h512.yaml" >/dev/null
big=(--platform "$out/h512.yaml" --workload workloads/llama3_70b_straggler.yaml --set parallelism.dp=128
     --set training.global_batch=2048)
measure "4,096 H100, one GPU 1.2x slow (every replica simulated)" "$simgpt" "${big[@]}"
measure "4,096 H100, no slow GPU (symmetric)" "$simgpt" "${big[@]}" --set conditions.gpu_slowdown=100:1
measure "1,024 H100, 1% slow: 100 draws, --jobs 2" "$simgpt" --platform platforms/dgx_h100_x128.yaml \
  --workload workloads/llama3_70b_straggler_random.yaml --draws 100 --jobs 2
"$simgpt" platform --preset dgx-h100 --nodes 64 --topology fat-tree:8:16 -o "$out/ft.xml" >/dev/null
measure "two Llama 3 8B jobs of 160 GPUs on one fat tree" "$simgpt" --platform "$out/ft.xml" \
  --workload workloads/llama3_8b_straggler_neighbour_a.yaml --workload workloads/llama3_8b_straggler_neighbour_b.yaml

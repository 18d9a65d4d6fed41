#!/usr/bin/env bash
# What conditions cost in simulation time (README, "Speed"): a 4,096-GPU Llama 3 70B job (128 DGX
# H100 x 4, workloads/llama3_70b_straggler.yaml at dp 128) with one slow GPU, which makes every
# replica simulated, beside the same job without it (symmetric); 100 seeded draws of the 1,024-GPU
# job with 1% of its GPUs slow (workloads/llama3_70b_straggler_random.yaml --draws 100, 2 at once);
# and the two Llama 3 8B neighbours replayed together on a 64-node fat tree. Wall time (hyperfine,
# one run), peak RSS (/usr/bin/time; for --draws the parent's, each draw a process of its own) and
# the step time (the first job's for the neighbours).
# Prints a Markdown table. Usage: bench/stragglers.sh [SIMGPT] (default build/simgpt); run from the checkout.
set -euo pipefail
simgpt="${1:-build/simgpt}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export SIMGPT_DATA="$PWD"

. "$(dirname "$0")/one_run_row.sh"

echo "| job | wall s | peak RSS MB | step time s |"
echo "| --- | ---: | ---: | ---: |"
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

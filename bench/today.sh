#!/usr/bin/env bash
# The jobs users plan today, each one step (README, "Speed"): DeepSeek-V3 as shipped on 256 DGX
# H100 (2,048 GPUs, ep 64) and on 32 DGX B200 at ep 16 (dp 16, its 960 micro-batches), Llama 3
# 70B under ZeRO-3 on 64 DGX H100 (dp 512, micro-batch 8, full recompute, the fsdp profile),
# Grok-1 (workloads/grok1.yaml) on 32 and 256 DGX H100, and the GPT-3 175B-shaped job of
# bench/clusters.sh (tp 8, pp 16, the rest data parallel, 12 micro-batches a replica) with every
# GPU simulated (--fidelity full) on 1,024 and 16,384 GPUs. Wall time (hyperfine, one run) and
# peak RSS (/usr/bin/time) of the default (symmetric) replay unless the row says full.
# Prints a Markdown table.
# Usage: bench/today.sh [SIMGPT] (default build/simgpt); run from the checkout.
set -euo pipefail
simgpt="${1:-build/simgpt}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export SIMGPT_DATA="$PWD"

. "$(dirname "$0")/one_run_row.sh"

platform() { # PRESET NODES: the compact platform's path
  "$simgpt" platform --preset "$1" --nodes "$2" -o "$out/$1_x$2.yaml" >/dev/null
  echo "$out/$1_x$2.yaml"
}

echo "| job | wall s | peak RSS MB | step time s |"
echo "| --- | ---: | ---: | ---: |"
h256=$(platform dgx-h100 256)
measure "DeepSeek-V3 on 2,048 H100 (workloads/deepseek_v3.yaml, ep 64)" \
  "$simgpt" --platform "$h256" --workload workloads/deepseek_v3.yaml
b32=$(platform dgx-b200 32)
measure "DeepSeek-V3 on 256 B200, ep 16, dp 16" \
  "$simgpt" --platform "$b32" --workload workloads/deepseek_v3.yaml --set parallelism.ep=16 --set parallelism.dp=16
h64=$(platform dgx-h100 64)
measure "Llama 3 70B, ZeRO-3 on 512 H100 (dp 512, micro-batch 8, full recompute)" \
  "$simgpt" --platform "$h64" --workload workloads/llama3_70b.yaml --set framework=fsdp --set parallelism.dp=512 \
  --set parallelism.tp=1 --set parallelism.pp=1 --set parallelism.zero=3 --set parallelism.sequence_parallel=false \
  --set parallelism.schedule=1f1b --set parallelism.chunks=1 --set training.micro_batch=8 \
  --set training.global_batch=4096 --set training.recompute=full
h32=$(platform dgx-h100 32)
measure "Grok-1 on 256 H100 (workloads/grok1.yaml)" "$simgpt" --platform "$h32" --workload workloads/grok1.yaml
measure "Grok-1 on 2,048 H100" "$simgpt" --platform "$h256" --workload workloads/grok1.yaml
for nodes in 128 2048; do
  gpus=$((nodes * 8))
  dp=$((gpus / 128))
  cluster=$(platform dgx-h100 "$nodes")
  measure "GPT-3 175B-shaped on $gpus H100, --fidelity full" \
    "$simgpt" --platform "$cluster" --workload workloads/gpt3_175b.yaml --set parallelism.tp=8 --set parallelism.pp=16 \
    --set parallelism.dp="$dp" --set training.global_batch=$((dp * 12)) --fidelity full
done

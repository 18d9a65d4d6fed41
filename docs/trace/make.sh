#!/usr/bin/env bash
# A Chrome trace of a 1F1B step: GPT-3 XL in fp32 with Megatron's profile on one p3.16xlarge,
# 4 pipeline stages x 2 data-parallel replicas, 8 micro-batches of 1 per replica.
# Usage: docs/trace/make.sh [SIMGPT] [OUT_DIR]; run from the checkout.
set -euo pipefail
simgpt="${1:-build/simgpt}"
out="${2:-docs/trace}"
"$simgpt" --platform platforms/p3_16xlarge.xml --workload workloads/gpt3xl.yaml --set framework=megatron \
  --set parallelism.pp=4 --set parallelism.dp=2 --set parallelism.schedule=1f1b --set training.global_batch=16 \
  --trace "$out/1f1b.json" > "$out/1f1b.txt"

#!/usr/bin/env bash
# Planning time at scale: GPT-3 175B (workloads/gpt3_175b.yaml, global batch 1536) on 1,024 A100
# (simgpt platform --preset dgx-a100 --nodes 128), every valid dp x tp x pp, micro-batch 1, 2, 4
# and 8, the three recompute modes, 1F1B and interleaved (every chunk count; Megatron-LM has no
# GPipe schedule), ZeRO 0 and 1, sequence parallelism on and off; timed once by hyperfine on
# 2 jobs, the peak RSS of the command and its largest child by /usr/bin/time, then the plan's
# summary and winner. MARGIN (default: simgpt plan's own) is passed as --margin.
# Usage: bench/plan_175b.sh [SIMGPT] [MARGIN] (default build/simgpt); run from the checkout.
set -euo pipefail
simgpt="${1:-build/simgpt}"
margin="${2:-}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$simgpt" platform --preset dgx-a100 --nodes 128 -o "$out/dgx128.xml" >/dev/null
plan="$simgpt plan --platform $out/dgx128.xml --workload workloads/gpt3_175b.yaml --jobs 2 --top 3 \
  --search parallelism.zero=0,1 --search training.micro_batch=1,2,4,8 ${margin:+--margin $margin}"
SIMGPT_DATA="$PWD" hyperfine --runs 1 "$plan -o $out/plan.csv"
SIMGPT_DATA="$PWD" /usr/bin/time -f 'peak RSS %M KB (the command or its largest child)' $plan -o "$out/plan.csv" | head -8

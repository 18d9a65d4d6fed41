#!/usr/bin/env bash
# The README's Monte Carlo study of slow GPUs ("Stragglers, degraded links and neighbours"):
# workloads/llama3_70b_straggler_random.yaml's Llama 3 70B job on 1,024 H100s under two plans (4
# interleaved pipeline stages and 32 replicas, or 8 stages and 16 replicas), with a random share of
# its GPUs each slowed by a factor from 1.05 to 1.3, each share simulated over 10 seeded draws.
# One sweep and one plot. Usage: docs/stragglers/make.sh [SIMGPT] [OUT_DIR]; run from the checkout.
set -euo pipefail
simgpt="${1:-build/simgpt}"
out="${2:-docs/stragglers}"
rm -f "$out/stragglers.csv"
"$simgpt" sweep --platform platforms/dgx_h100_x128.yaml --workload workloads/llama3_70b_straggler_random.yaml \
  --grid parallelism.pp=4,8 --zip parallelism.dp=32,16 \
  --grid conditions.random_fraction=0,0.002,0.005,0.01,0.02 --draws 10 -o "$out/stragglers.csv"
"$simgpt" plot "$out/stragglers.csv" --x conditions.random_fraction --y draws.p90_s --series parallelism.pp \
  --title "Llama 3 70B on 1,024 H100, slow GPUs 1.05-1.3x, 90th percentile of 10 draws" -o "$out/stragglers.svg"

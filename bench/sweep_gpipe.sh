#!/usr/bin/env bash
# Sweep throughput: 200 configurations of seed 001's GPipe case (GPT-3 XL over 12 p3.2xlarge),
# 20 network delays x 10 bandwidths, each simulated in its own process, timed by hyperfine.
# Usage: bench/sweep_gpipe.sh [SIMGPT] (default build/simgpt); run from the checkout.
set -euo pipefail
simgpt="${1:-build/simgpt}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
delays=$(seq -s, 0 19 | sed 's/\([0-9]*\)/\1ms/g')
bandwidths=$(seq -s, 1 10 | sed 's/\([0-9]*\)/\1Gbps/g')
SIMGPT_DATA="$PWD" hyperfine --warmup 1 --runs 5 --prepare "rm -f $out/sweep.csv" \
  "$simgpt sweep --platform platforms/p3_2xlarge_x12.xml --workload workloads/gpt3xl_gpipe.yaml \
   --grid network.delay=$delays --grid network.bandwidth=$bandwidths --jobs 2 -o $out/sweep.csv"
echo "configurations per minute = 200 * 60 / the mean above"

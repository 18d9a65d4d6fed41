#!/usr/bin/env bash
# Seed 001's network study with simgpt: GPT-3 XL under DT-FM's GPipe over 12 p3.2xlarge, alone
# (dp 1) and with 4 data-parallel pipelines (dp 4, 48 nodes, parameter server), under the five
# tc netem settings of seed 001's tables. One sweep and one plot, as docs/network-study/README.md
# shows them. Usage: docs/network-study/make.sh [SIMGPT] [OUT_DIR]; run from the checkout.
set -euo pipefail
simgpt="${1:-build/simgpt}"
out="${2:-docs/network-study}"
rm -f "$out/network.csv"
"$simgpt" sweep --platform platforms/p3_2xlarge_x48.xml --workload workloads/gpt3xl_gpipe.yaml \
  --set parallelism.dp_algorithm=parameter_server \
  --grid parallelism.dp=1,4 --zip training.global_batch=64,256 --zip placement.gpus=12,default \
  --grid network.delay=default,1ms,5ms,10ms,50ms --zip network.bandwidth=default,5Gbps,2Gbps,1Gbps,1Gbps \
  -o "$out/network.csv"
"$simgpt" plot "$out/network.csv" --x network.delay --y step_time_s --series parallelism.dp \
  --measured seed001-gpipe-dp --title "GPT-3 XL, GPipe over 12 p3.2xlarge per pipeline" -o "$out/network.svg"

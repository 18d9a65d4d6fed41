#!/usr/bin/env bash
# Planning time: GPT-3 XL with Megatron-LM on 6 p3.16xlarge (48 V100), seed 001's configuration
# (workloads/gpt3xl_megatron.yaml), timed by hyperfine on 2 jobs.
#  - splits: every valid dp x tp x pp, micro-batch 1-8, the three recompute modes, 1F1B and
#    interleaved (every chunk count), with the workload's ZeRO stage, sequence parallelism and
#    placement (README's example);
#  - gpipe: the same with GPipe's schedule too, which Megatron-LM does not have (its profile's
#    supports.schedules is widened for this run, as a what-if): the space the target of 60 s is for;
#  - default: simgpt plan's whole default space within what Megatron runs, ZeRO 0-1 and sequence
#    parallelism besides (timed once).
# Usage: bench/plan_gpt3xl.sh [SIMGPT] [splits|gpipe|default|all] (default build/simgpt splits); run from the checkout.
set -euo pipefail
simgpt="${1:-build/simgpt}"
which="${2:-splits}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
plan="$simgpt plan --platform platforms/p3_16xlarge_x6.xml --workload workloads/gpt3xl_megatron.yaml --jobs 2"
splits="--search training.micro_batch=1,2,3,4,5,6,7,8 --search parallelism.zero=0 \
       --search parallelism.sequence_parallel=false"
gpipe="--set framework_options.supports.schedules=[gpipe,1f1b,interleaved]"
if [ "$which" = splits ] || [ "$which" = all ]; then
  SIMGPT_DATA="$PWD" hyperfine --warmup 1 --runs 3 "$plan $splits -o $out/splits.csv"
  SIMGPT_DATA="$PWD" $plan $splits -o "$out/splits.csv" | head -2
fi
if [ "$which" = gpipe ] || [ "$which" = all ]; then
  SIMGPT_DATA="$PWD" hyperfine --warmup 1 --runs 3 "$plan $splits $gpipe -o $out/gpipe.csv"
  SIMGPT_DATA="$PWD" $plan $splits $gpipe -o "$out/gpipe.csv" | head -2
fi
if [ "$which" = default ] || [ "$which" = all ]; then
  SIMGPT_DATA="$PWD" hyperfine --runs 1 "$plan -o $out/default.csv"
  SIMGPT_DATA="$PWD" $plan -o "$out/default.csv" | head -2
fi

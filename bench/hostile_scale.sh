#!/usr/bin/env bash
# Inputs whose handling must stay linear (README, "Exit status and limits"): a plot of 10,000
# categorical x values, and a sweep grid of 30,000 --zip keys refused for a repeated key (the
# grid is built, then the repeat found). Each timed by hyperfine.
# Usage: bench/hostile_scale.sh [SIMGPT] (default build/simgpt); run from the checkout.
set -euo pipefail
simgpt="${1:-build/simgpt}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
{ echo 'config,x,status,step_time_s,reason'; seq 0 9999 | sed 's/.*/&,v&,ok,&.5,/'; } > "$out/many.csv"
zips=()
for i in $(seq 0 29999); do zips+=(--zip "framework_options.k$i=1"); done
zips+=(--zip framework_options.k0=2) # the repeat, found once every key is in the grid
printf '%s\n' "${zips[@]}" > "$out/zips"
SIMGPT_DATA="$PWD" hyperfine --warmup 1 --runs 5 -i \
  "$simgpt plot $out/many.csv --x x --y step_time_s -o $out/many.svg" \
  "xargs -a $out/zips -d '\n' $simgpt sweep --platform platforms/p3_16xlarge.xml --workload workloads/gpt3xl.yaml \
   --grid network.delay=1ms -o $out/s.csv"

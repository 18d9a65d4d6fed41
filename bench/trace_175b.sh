#!/usr/bin/env bash
# Traces at scale: GPT-3 175B (workloads/gpt3_175b.yaml, global batch 1536) on 512 A100s (simgpt
# platform --preset dgx-a100 --nodes 64; dp 4 x tp 8 x pp 16, 384 micro-batches per replica): the
# step alone, a trace of one node's 8 GPUs as JSON and gzip-compressed, and of all 512 GPUs over
# 2 s of the step; wall time (hyperfine), peak RSS (/usr/bin/time) and the trace's size, as a
# Markdown table; then the whole job's trace, which simgpt refuses before the replay.
# Usage: bench/trace_175b.sh [SIMGPT] (default build/simgpt); run from the checkout.
set -euo pipefail
simgpt="${1:-build/simgpt}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export SIMGPT_DATA="$PWD"
"$simgpt" platform --preset dgx-a100 --nodes 64 -o "$out/dgx64.xml" >/dev/null
job=("$simgpt" --platform "$out/dgx64.xml" --workload workloads/gpt3_175b.yaml --set parallelism.dp=4)

# measure NAME TRACE ARGS...: one table row from hyperfine's mean and one /usr/bin/time run's RSS.
measure() {
  local name=$1 trace=$2
  shift 2
  hyperfine --runs 3 --export-json "$out/h.json" --command-name "$name" "${job[*]} $*" >/dev/null 2>&1
  /usr/bin/time -f '%M' -o "$out/rss" "${job[@]}" "$@" >/dev/null
  local mean rss size=-
  mean=$(python3 -c "import json; r=json.load(open('$out/h.json'))['results'][0]; print(f\"{r['mean']:.2f} ± {r.get('stddev') or 0:.2f}\")")
  rss=$(awk '{printf "%.0f", $1 / 1024}' "$out/rss")
  [ -z "$trace" ] || size=$(du -m --apparent-size "$trace" | cut -f1)
  echo "| $name | $mean | $rss | $size |"
}

echo "| run | wall s (mean ± sd) | peak RSS MB | trace MB |"
echo "| --- | ---: | ---: | ---: |"
measure "no trace" ""
measure "trace of GPUs 0-7 (.json)" "$out/t.json" --trace "$out/t.json" --trace-gpus 0-7
measure "trace of GPUs 0-7 (.json.gz)" "$out/t.json.gz" --trace "$out/t.json.gz" --trace-gpus 0-7
measure "trace of all 512 GPUs, 10 s to 12 s (.json.gz)" "$out/w.json.gz" --trace "$out/w.json.gz" --trace-window 10s:12s
echo
/usr/bin/time -o "$out/time" -f '%e s, %M KB peak' "${job[@]}" --trace "$out/all.json" >/dev/null 2>"$out/err" || true
echo "Every GPU, after $(cat "$out/time" | tail -1): $(cat "$out/err")"

#!/usr/bin/env bash
# The straggler workloads simulate as their comments say, and README's study quotes what they give:
# each row of its table names a workload, its step time and its baseline (the same job without its
# condition), and this reruns both.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"
platform=platforms/dgx_h100_x128.yaml
step_of() { python3 -c 'import json, sys; print("%.3f" % json.load(open(sys.argv[1]))["step_time_s"])' "$1"; }
for spec in "llama3_70b_straggler conditions.gpu_slowdown=100:1" "llama3_70b_straggler_pp8 conditions.gpu_slowdown=100:1" \
            "llama3_70b_straggler_nic conditions.link_bandwidth=nic-100:1" \
            "llama3_70b_straggler_random conditions.random_fraction=0"; do
  read -r name baseline <<< "$spec"
  "$simgpt" --platform "$platform" --workload "workloads/$name.yaml" --format json > "$tmp/$name.json" 2> "$tmp/err"; status=$?
  check "$name runs ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
  check "... and fits in memory" grep -Eq '"oom": *false' "$tmp/$name.json"
  "$simgpt" --platform "$platform" --workload "workloads/$name.yaml" --set "$baseline" --format json > "$tmp/base.json"
  step=$(step_of "$tmp/$name.json"); base=$(step_of "$tmp/base.json")
  check "README's study quotes $name.yaml: $step s, $base s without its condition" \
    grep -Eq "^\| \`$name.yaml\`.*\| $step \| $base \|" README.md
done
# Two jobs on one fat tree: each alone, then together.
"$simgpt" platform --preset dgx-h100 --nodes 64 --topology fat-tree:8:16 -o "$tmp/fat_tree.xml" > /dev/null
a=workloads/llama3_8b_straggler_neighbour_a.yaml
b=workloads/llama3_8b_straggler_neighbour_b.yaml
"$simgpt" --platform "$tmp/fat_tree.xml" --workload $a --format json > "$tmp/a.json" 2> "$tmp/err"; status=$?
check "neighbour_a runs alone ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
"$simgpt" --platform "$tmp/fat_tree.xml" --workload $b --format json > "$tmp/b.json" 2> "$tmp/err"; status=$?
check "neighbour_b runs alone ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
"$simgpt" --platform "$tmp/fat_tree.xml" --workload $a --workload $b --format json > "$tmp/ab.json" 2> "$tmp/err"; status=$?
check "both run together ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"]
for r in j: print("%.3f" % r["step_time_s"])' "$tmp/ab.json" > "$tmp/together"
alone=$(step_of "$tmp/a.json")
together=$(head -1 "$tmp/together")
check "... each slower for the other's traffic ($alone s alone, $together together)" \
  python3 -c 'import sys; sys.exit(not float(sys.argv[2]) > float(sys.argv[1]))' "$alone" "$together"
check "README's study quotes the neighbours: $together s together, $alone s alone" \
  grep -Eq "^\| \`llama3_8b_straggler_neighbour_a.yaml\` with \`_b\`.*\| $together \| $alone \|" README.md
exit $fail

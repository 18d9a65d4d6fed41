#!/usr/bin/env bash
# The Llama-3 workloads run as their comments say, on the DGX H100 clusters they name,
# and fit in memory: a key they use that the workload reader or the model dropped would fail here.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"
for spec in "llama3_8b 2" "llama3_70b 8" "llama3_405b 128"; do
  read -r name nodes <<< "$spec"
  "$simgpt" platform --preset dgx-h100 --nodes "$nodes" -o "$tmp/$name.xml" > /dev/null
  "$simgpt" --platform "$tmp/$name.xml" --workload "workloads/$name.yaml" --format json > "$tmp/$name.json" 2> "$tmp/err"; status=$?
  check "$name runs ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
  check "$name fits in memory" grep -Eq '"oom": *false' "$tmp/$name.json"
done
# Mixtral as Megatron-LM's example trains it (ep 8) on four DGX H100: each replica's tokens go to
# their experts by all-to-all inside a node, and the experts' weights and optimizer state are split
# over ep: it fits where ep 1 (every expert on every GPU) does not.
"$simgpt" platform --preset dgx-h100 --nodes 4 -o "$tmp/mixtral.xml" > /dev/null
"$simgpt" --platform "$tmp/mixtral.xml" --workload workloads/mixtral_8x7b.yaml --format json > "$tmp/mixtral.json" 2> "$tmp/err"; status=$?
check "mixtral_8x7b at ep 8 runs ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
# 4 stages x 8 layers x 32 micro-batches x (dispatch + combine, forward and backward)
check "... exchanging tokens by all-to-all" python3 -c 'import json, sys
sys.exit(json.load(open(sys.argv[1]))["collectives"]["alltoall"]["count"] != 4096)' "$tmp/mixtral.json"
check "... and fits in memory" grep -Eq '"oom": *false' "$tmp/mixtral.json"
"$simgpt" --platform "$tmp/mixtral.xml" --workload workloads/mixtral_8x7b.yaml --set parallelism.ep=1 \
  --format json > "$tmp/mixtral1.json" 2> "$tmp/err"; status=$?
check "mixtral_8x7b at ep 1 runs ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
check "... and does not fit" grep -Eq '"oom": *true' "$tmp/mixtral1.json"
# At dp 16 the first expert-parallel group of 8 replicas stands for the second, whose transfers and
# all-to-alls use alike routes of their own nodes, and the group's first replica for its 8 (each
# on NICs of its own): the same step as simulating all 16.
"$simgpt" platform --preset dgx-h100 --nodes 8 -o "$tmp/mixtral8.xml" > /dev/null
for fidelity in symmetric full; do
  "$simgpt" --platform "$tmp/mixtral8.xml" --workload workloads/mixtral_8x7b.yaml --set parallelism.dp=16 \
    --set training.global_batch=512 --fidelity $fidelity --format json > "$tmp/mixtral16_$fidelity.json"
done
check "mixtral_8x7b at dp 16 simulates 1 replica for 16, its expert-parallel group of 8 as one" python3 -c 'import json, sys
f = json.load(open(sys.argv[1]))["fidelity"]
sys.exit(f["replicas_simulated"] != 1 or f["expert_group_folded"] != 8)' "$tmp/mixtral16_symmetric.json"
check "... and steps as all 16 simulated" python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
sys.exit(a["step_time_s"] != b["step_time_s"] or a["peak_memory_gib"] != b["peak_memory_gib"])' \
  "$tmp/mixtral16_symmetric.json" "$tmp/mixtral16_full.json"
# Grok-1 on 256 DGX H100 (dp 32 derived): it fits, its expert-parallel groups of 4 run as one.
"$simgpt" platform --preset dgx-h100 --nodes 256 -o "$tmp/grok.yaml" > /dev/null
"$simgpt" --platform "$tmp/grok.yaml" --workload workloads/grok1.yaml --format json > "$tmp/grok.json" 2> "$tmp/err"; status=$?
check "grok1 on 2048 H100 runs ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
check "... fits, dp 32 derived, each expert-parallel group of 4 as one" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(r["oom"] or r["dp"] != 32 or not r["dp_derived"] or r["fidelity"]["expert_group_folded"] != 4)' "$tmp/grok.json"
exit $fail

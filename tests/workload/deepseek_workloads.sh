#!/usr/bin/env bash
# The DeepSeek workloads run as their comments say: DeepSeek-V2 as shipped (expert parallelism as
# published, its all-to-alls simulated for one block of 8 replicas standing for the others), with
# ep 1 every expert on every GPU; their multi-head latent attention reaches the simulation.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"
"$simgpt" platform --preset dgx-h100 --nodes 128 -o "$tmp/x128.xml" > /dev/null
"$simgpt" --platform "$tmp/x128.xml" --workload workloads/deepseek_v2.yaml --format json > "$tmp/v2ep.json" 2> "$tmp/err"; status=$?
check "deepseek_v2 at ep 8 runs ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
check "... its dispatch and combine all-to-alls for 8 of 64 replicas" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(r["fidelity"]["replicas_simulated"] != 8 or r["collectives"]["alltoall"]["count"] == 0)' "$tmp/v2ep.json"
"$simgpt" --platform "$tmp/x128.xml" --workload workloads/deepseek_v2.yaml --set parallelism.ep=1 \
  --format json > "$tmp/v2.json" 2> "$tmp/err"; status=$?
check "deepseek_v2 at ep 1 runs ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
check "... out of memory, as its comment says" grep -Eq '"oom": *true' "$tmp/v2.json"
check "... with its latent attention" python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))['resolved_workload']['model']
sys.exit(0 if m['latent_attention'] and m['q_lora_rank'] == 1536 and m['kv_lora_rank'] == 512 else 1)" "$tmp/v2.json"
# DeepSeek-V3's 2048 GPUs at ep 64 simulate 64 replicas: too long for a test; half its replicas,
# ep 8 and ep 1 here.
"$simgpt" --platform "$tmp/x128.xml" --workload workloads/deepseek_v3.yaml --set parallelism.ep=8 \
  --set parallelism.dp=64 --set training.global_batch=1024 --format json > "$tmp/v3ep.json" 2> "$tmp/err"; status=$?
check "deepseek_v3 at ep 8 runs ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
"$simgpt" --platform "$tmp/x128.xml" --workload workloads/deepseek_v3.yaml --set parallelism.ep=1 \
  --set parallelism.dp=64 --set training.global_batch=1024 --format json > "$tmp/v3.json" 2> "$tmp/err"; status=$?
check "deepseek_v3 at ep 1 runs ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
exit $fail

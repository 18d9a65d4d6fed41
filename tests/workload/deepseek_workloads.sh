#!/usr/bin/env bash
# The DeepSeek workloads run as their comments say: DeepSeek-V2 as shipped (expert parallelism as
# published: one replica's stream stands for its expert-parallel group of 8 and the group for the
# others, its all-to-alls replayed whole), DeepSeek-V3 on its 2048 GPUs at ep 64 likewise, with
# ep 1 every expert on every GPU; their multi-head latent attention reaches the simulation.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"
"$simgpt" platform --preset dgx-h100 --nodes 128 -o "$tmp/x128.xml" > /dev/null
"$simgpt" --platform "$tmp/x128.xml" --workload workloads/deepseek_v2.yaml --format json > "$tmp/v2ep.json" 2> "$tmp/err"; status=$?
check "deepseek_v2 at ep 8 runs ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
check "... one replica simulated for 64, its expert-parallel group of 8 as one, the all-to-alls counted" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
f = r["fidelity"]
sys.exit(f["replicas_simulated"] != 1 or f["expert_group_folded"] != 8 or r["collectives"]["alltoall"]["count"] == 0)' "$tmp/v2ep.json"
"$simgpt" --platform "$tmp/x128.xml" --workload workloads/deepseek_v2.yaml --set parallelism.ep=1 \
  --format json > "$tmp/v2.json" 2> "$tmp/err"; status=$?
check "deepseek_v2 at ep 1 runs ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
check "... out of memory, as its comment says" grep -Eq '"oom": *true' "$tmp/v2.json"
check "... with its latent attention" python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))['resolved_workload']['model']
sys.exit(0 if m['latent_attention'] and m['q_lora_rank'] == 1536 and m['kv_lora_rank'] == 512 else 1)" "$tmp/v2.json"
"$simgpt" platform --preset dgx-h100 --nodes 256 -o "$tmp/x256.yaml" > /dev/null
"$simgpt" --platform "$tmp/x256.yaml" --workload workloads/deepseek_v3.yaml --format json > "$tmp/v3ep64.json" 2> "$tmp/err"; status=$?
check "deepseek_v3 as shipped, ep 64 on 2048 GPUs, runs ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
check "... each all-to-all of its 16 stages' expert-parallel groups of 64 counted for both groups a stage has" python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
# dispatch and combine, forward and backward, for 58 MoE layers and 120 micro-batches, per stage
# group (dp 128 / ep 64 = 2 groups a stage)
sys.exit(r["fidelity"]["expert_group_folded"] != 64 or r["collectives"]["alltoall"]["count"] != 4 * 58 * 120 * 2)' "$tmp/v3ep64.json"
# Half its replicas, ep 8 and ep 1.
"$simgpt" --platform "$tmp/x128.xml" --workload workloads/deepseek_v3.yaml --set parallelism.ep=8 \
  --set parallelism.dp=64 --set training.global_batch=1024 --format json > "$tmp/v3ep.json" 2> "$tmp/err"; status=$?
check "deepseek_v3 at ep 8 runs ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
"$simgpt" --platform "$tmp/x128.xml" --workload workloads/deepseek_v3.yaml --set parallelism.ep=1 \
  --set parallelism.dp=64 --set training.global_batch=1024 --format json > "$tmp/v3.json" 2> "$tmp/err"; status=$?
check "deepseek_v3 at ep 1 runs ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
exit $fail

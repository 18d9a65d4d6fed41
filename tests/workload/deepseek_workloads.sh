#!/usr/bin/env bash
# The DeepSeek workloads run as their comments say: as shipped (expert parallelism as published)
# they are refused until its all-to-alls are simulated; with ep 1 they simulate, every expert on
# every GPU, out of memory; their multi-head latent attention reaches the simulation.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"
"$simgpt" platform --preset dgx-h100 --nodes 128 -o "$tmp/x128.xml" > /dev/null
"$simgpt" --platform "$tmp/x128.xml" --workload workloads/deepseek_v2.yaml > /dev/null 2> "$tmp/err"; status=$?
check "deepseek_v2 at ep 8 is refused (exit $status: $(head -c 300 "$tmp/err"))" [ "$status" -eq 2 ]
check "... naming parallelism.ep" grep -q "parallelism.ep: ep 8: expert parallelism's all-to-alls are not simulated yet" "$tmp/err"
"$simgpt" --platform "$tmp/x128.xml" --workload workloads/deepseek_v2.yaml --set parallelism.ep=1 \
  --format json > "$tmp/v2.json" 2> "$tmp/err"; status=$?
check "deepseek_v2 at ep 1 runs ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
check "... out of memory, as its comment says" grep -Eq '"oom": *true' "$tmp/v2.json"
check "... with its latent attention" python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))['resolved_workload']['model']
sys.exit(0 if m['latent_attention'] and m['q_lora_rank'] == 1536 and m['kv_lora_rank'] == 512 else 1)" "$tmp/v2.json"
# DeepSeek-V3's 2048 GPUs take 40 s to simulate: half its data-parallel replicas here.
"$simgpt" --platform "$tmp/x128.xml" --workload workloads/deepseek_v3.yaml > /dev/null 2> "$tmp/err"; status=$?
check "deepseek_v3 at ep 64 is refused (exit $status)" [ "$status" -eq 2 ]
"$simgpt" --platform "$tmp/x128.xml" --workload workloads/deepseek_v3.yaml --set parallelism.ep=1 \
  --set parallelism.dp=64 --set training.global_batch=1024 --format json > "$tmp/v3.json" 2> "$tmp/err"; status=$?
check "deepseek_v3 at ep 1 runs ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
exit $fail

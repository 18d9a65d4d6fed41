#!/usr/bin/env bash
# A compact platform (simgpt platform -o NAME.yaml): the spec written once, its nodes built when
# simgpt loads it. The same cluster written both ways simulates the same step (its report but
# the file's name), through the same route checks; plan reads its GPUs; a file that is not one is
# one line and exit status 2 (3 past the GPU limit); it stays a few hundred bytes at any size.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"

# the report's JSON without what names the file
report() { "$simgpt" --format json "$@" | python3 -c '
import json, sys
r = json.load(sys.stdin)
for key in ("platform", "inputs"):
    r.pop(key, None)
print(json.dumps(r, sort_keys=True))'; }

same_step() { # same_step PRESET NODES WORKLOAD ARGS... (FLOW_CAP=RATE: simgpt platform --flow-cap)
  local preset=$1 nodes=$2 workload=$3
  shift 3
  "$simgpt" platform --preset "$preset" --nodes "$nodes" ${FLOW_CAP:+--flow-cap $FLOW_CAP} -o "$tmp/$preset.xml" > /dev/null
  "$simgpt" platform --preset "$preset" --nodes "$nodes" ${FLOW_CAP:+--flow-cap $FLOW_CAP} -o "$tmp/$preset.yaml" > /dev/null
  report --platform "$tmp/$preset.xml" --workload "$workload" "$@" > "$tmp/xml.json"
  report --platform "$tmp/$preset.yaml" --workload "$workload" "$@" > "$tmp/yaml.json"
  check "$preset x $nodes: the XML and compact forms simulate the same step ($*)" \
    [ -s "$tmp/xml.json" ] && cmp -s "$tmp/xml.json" "$tmp/yaml.json"
}
# One NIC a node, the cube-mesh's NVLink and PCIe paths, the AWS flow cap: pipeline stages and
# data-parallel rings across nodes; then DGX nodes (NVSwitch, a NIC per GPU) under tensor,
# pipeline and data parallelism, a network what-if, full fidelity and the estimate.
same_step p3.16xlarge 2 workloads/gpt3xl_megatron.yaml --set training.global_batch=64 --set model.layers=8 \
  --set parallelism.dp=4 --set parallelism.pp=4 --set parallelism.tp=1
same_step p3.16xlarge 2 workloads/gpt3xl_megatron.yaml --set training.global_batch=64 --set model.layers=8 \
  --set parallelism.dp=2 --set parallelism.pp=2 --set parallelism.tp=4 --set network.delay=5ms --fidelity full
same_step dgx-h100 4 workloads/llama3_8b.yaml --set parallelism.dp=2 --set parallelism.pp=2 \
  --set training.global_batch=32 --set model.layers=8 --set placement.gpus=8
same_step dgx-a100 2 workloads/gpt3xl_megatron.yaml --set training.global_batch=64 --set model.layers=8 \
  --set parallelism.dp=2 --set parallelism.pp=8 --set parallelism.tp=1 --fidelity estimate
# A flow cap that binds (1 Gbps, below each flow's share of the NIC) is on the compact form's
# routes too: the step is the XML form's, and slower than without it.
FLOW_CAP=1Gbps same_step p3.16xlarge 2 workloads/gpt3xl_megatron.yaml --set training.global_batch=64 \
  --set model.layers=8 --set parallelism.dp=4 --set parallelism.pp=4 --set parallelism.tp=1
capped=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["step_time_s"])' < "$tmp/yaml.json")
"$simgpt" platform --preset p3.16xlarge --nodes 2 -o "$tmp/uncapped.yaml" > /dev/null
uncapped=$(report --platform "$tmp/uncapped.yaml" --workload workloads/gpt3xl_megatron.yaml --set training.global_batch=64 \
  --set model.layers=8 --set parallelism.dp=4 --set parallelism.pp=4 --set parallelism.tp=1 |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["step_time_s"])')
check "... the binding cap slows the step ($capped s against $uncapped s)" python3 -c "import sys; sys.exit(not $capped > 1.5 * $uncapped)"

# A few hundred bytes whatever the cluster's size; plan finds its GPUs.
"$simgpt" platform --preset dgx-h100 --nodes 16384 -o "$tmp/big.yaml" > "$tmp/out"
check "131,072 GPUs in under 1 KiB ($(wc -c < "$tmp/big.yaml") bytes)" [ "$(wc -c < "$tmp/big.yaml")" -lt 1024 ]
"$simgpt" plan --platform "$tmp/dgx-h100.yaml" --workload workloads/llama3_8b.yaml --set model.layers=8 \
  --set training.global_batch=32 --search parallelism.tp=8 --search parallelism.pp=1 --search training.micro_batch=1 \
  --search training.recompute=none --search parallelism.zero=0 --search parallelism.sequence_parallel=true \
  --jobs 2 > "$tmp/plan.txt" 2>&1
check "plan reads a compact platform's GPUs ($(head -c 300 "$tmp/plan.txt"))" grep -q "(32 x H100-SXM5-80GB)" "$tmp/plan.txt"

# Not a compact platform: one line, exit 2; past the limit, exit 3; never a file written.
run=(--workload workloads/llama3_8b.yaml)
printf 'simgpt_platform:\n  nodes: "2"\n  wheels: "4"\n' > "$tmp/bad_key.yaml"
expect_status 2 "an unknown key" "unknown platform option 'wheels'" --platform "$tmp/bad_key.yaml" "${run[@]}"
sed 's/topology: "star"/topology: "fat-tree:2"/' "$tmp/dgx-h100.yaml" > "$tmp/tree.yaml"
expect_status 2 "a fat tree" "joins its nodes on one switch" --platform "$tmp/tree.yaml" "${run[@]}"
sed 's/nodes: "4"/nodes: "100000"/' "$tmp/dgx-h100.yaml" > "$tmp/huge.yaml"
expect_status 3 "past the GPU limit" "exceed the limit of 131072 GPUs" --platform "$tmp/huge.yaml" "${run[@]}"
sed 's/nic_bandwidth: "400Gbps"/nic_bandwidth: "fast"/' "$tmp/dgx-h100.yaml" > "$tmp/rate.yaml"
expect_status 2 "a rate that is not one" "nic_bandwidth" --platform "$tmp/rate.yaml" "${run[@]}"
printf 'simgpt_platform: [1, 2\n' > "$tmp/broken.yaml"
expect_status 2 "malformed YAML" "" --platform "$tmp/broken.yaml" "${run[@]}"
expect_status 2 "a fat tree written compact" "joins its nodes on one switch" \
  platform --preset dgx-h100 --nodes 4 --topology fat-tree:2 -o "$tmp/tree_out.yaml"
check "no file written for a refused compact platform" [ ! -e "$tmp/tree_out.yaml" ]
exit $fail

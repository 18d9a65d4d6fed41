#!/usr/bin/env bash
# The Llama-3 and Mixtral workloads run as their comments say, on the DGX H100 clusters they name,
# and fit in memory: a key they use that the workload reader or the model dropped would fail here.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"
for spec in "llama3_8b 2" "llama3_70b 8" "llama3_405b 128" "mixtral_8x7b 4"; do
  read -r name nodes <<< "$spec"
  "$simgpt" platform --preset dgx-h100 --nodes "$nodes" -o "$tmp/$name.xml" > /dev/null
  "$simgpt" --platform "$tmp/$name.xml" --workload "workloads/$name.yaml" --format json > "$tmp/$name.json" 2> "$tmp/err"; status=$?
  check "$name runs ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
  check "$name fits in memory" grep -Eq '"oom": *false' "$tmp/$name.json"
done
# Expert parallelism holds experts / ep of each MoE layer's experts: Mixtral's stage 0 at ep 8 holds
# about a sixth of the weights it holds at ep 1 (the attention and embedding stay whole).
"$simgpt" --platform "$tmp/mixtral_8x7b.xml" --workload workloads/mixtral_8x7b.yaml --set parallelism.ep=1 \
  --format json > "$tmp/ep1.json"
weights() { grep -o '"weights": *[0-9.]*' "$1" | head -1 | grep -o '[0-9.]*$'; }
check "ep 8 divides the experts' weights ($(weights "$tmp/mixtral_8x7b.json") vs $(weights "$tmp/ep1.json") GiB)" \
  awk -v a="$(weights "$tmp/mixtral_8x7b.json")" -v b="$(weights "$tmp/ep1.json")" 'BEGIN { exit !(a * 5 < b && a * 7 > b) }'
exit $fail

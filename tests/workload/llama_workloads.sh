#!/usr/bin/env bash
# The Llama-3 workloads run as their comments say, on the DGX H100 clusters they name, and fit in
# memory: a key they use that the workload reader or the model dropped would fail here.
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
exit $fail

#!/usr/bin/env bash
# Bad input: one line on stderr naming the file or key, exit status 2, never a crash.
set -u
simgpt="$1"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp workloads/gpt3xl.yaml "$tmp/ok.yaml"
printf 'model: [1, 2\n' > "$tmp/malformed.yaml"
sed 's/framework: torch-pipe/framework: nosuch/' workloads/gpt3xl.yaml > "$tmp/profile.yaml"
printf '<platform version="4.1"><zone id="z"' > "$tmp/broken.xml"
sed 's|<prop id="role" value="nic"/>|<prop id="role" value="nic"/><prop id="flow_limit" value="10Gbps"/>|' \
  platforms/p3_16xlarge.xml > "$tmp/flow_limit.xml"

expect() { # expect STATUS PATTERN ARGS...
  local status="$1" pattern="$2"
  shift 2
  "$simgpt" "$@" > "$tmp/out" 2> "$tmp/err"
  local got=$?
  local lines
  lines=$(wc -l < "$tmp/err")
  if [ "$got" -ne "$status" ] || { [ -n "$pattern" ] && ! grep -q -- "$pattern" "$tmp/err"; } || { [ "$status" -eq 2 ] && [ "$lines" -ne 1 ]; }; then
    echo "FAIL: simgpt $* -> status $got (want $status), stderr:"; cat "$tmp/err"; fail=1
  fi
}

P=platforms/p3_16xlarge.xml
expect 2 "cannot read the workload file" --platform $P --workload "$tmp/missing.yaml"
expect 2 "malformed YAML" --platform $P --workload "$tmp/malformed.yaml"
expect 2 "unknown framework profile 'nosuch'" --platform $P --workload "$tmp/profile.yaml"
expect 2 "parallelism.pp" --platform $P --workload "$tmp/ok.yaml" --set parallelism.pp=5
expect 2 "needs 16 GPUs" --platform $P --workload "$tmp/ok.yaml" --set parallelism.pp=16 --set model.layers=32
expect 2 "not divisible" --platform $P --workload "$tmp/ok.yaml" --set training.global_batch=63 --set training.micro_batch=2
expect 2 "unknown key 'speed'" --platform $P --workload "$tmp/ok.yaml" --set network.speed=1
expect 2 "network.delay" --platform $P --workload "$tmp/ok.yaml" --set network.delay=soon
expect 2 "expected KEY=VALUE" --platform $P --workload "$tmp/ok.yaml" --set nonsense
expect 2 "does not support bf16" --platform $P --workload "$tmp/ok.yaml" --set training.precision=bf16
expect 2 "cannot read the platform file" --platform "$tmp/none.xml" --workload "$tmp/ok.yaml"
expect 2 "not a valid SimGrid platform" --platform "$tmp/broken.xml" --workload "$tmp/ok.yaml"
expect 2 "FATPIPE" --platform "$tmp/flow_limit.xml" --workload "$tmp/ok.yaml"
expect 2 "framework_options" --platform $P --workload "$tmp/ok.yaml" --set framework_options.compute.fused=true
expect 2 "format" --platform $P --workload "$tmp/ok.yaml" --format yaml
expect 0 "" --platform $P --workload "$tmp/ok.yaml"

# The same inputs give byte-identical JSON.
"$simgpt" --platform $P --workload "$tmp/ok.yaml" --format json > "$tmp/a.json"
"$simgpt" --platform $P --workload "$tmp/ok.yaml" --format json > "$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" || { echo "FAIL: JSON differs between identical runs"; fail=1; }
grep -q '"step_time_s"' "$tmp/a.json" || { echo "FAIL: JSON lacks step_time_s"; fail=1; }
exit $fail

#!/usr/bin/env bash
# simgpt sweep: one line per configuration, in configuration order, whatever the interruption;
# an interrupted sweep rerun, and a sharded sweep merged, give the uninterrupted sweep's file.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"
lines_at_least() { [ -f "$1" ] && [ "$(wc -l < "$1")" -ge "$2" ]; }

# GPipe on 12 nodes under network what-ifs; micro_batch 3 does not divide the batch (invalid),
# and micro-batches of 16 do not fit a 16 GB V100 (oom).
sweep=(sweep --platform platforms/p3_2xlarge_x12.xml --workload workloads/gpt3xl_gpipe.yaml
       --grid network.delay=default,1ms,10ms --zip network.bandwidth=default,5Gbps,1Gbps
       --grid training.micro_batch=1,2,3,16)

"$simgpt" "${sweep[@]}" --jobs 2 -o "$tmp/whole.csv" > "$tmp/out" 2>&1; status=$?
check "a sweep exits 0 ($(cat "$tmp/out"))" [ "$status" -eq 0 ]
check "14 lines: a comment, a header and 12 configurations" [ "$(wc -l < "$tmp/whole.csv")" -eq 14 ]
check "the header names the inputs (a quantity's with its SI column) and the report's fields" \
  grep -qx 'config,network.delay,network.delay_s,network.bandwidth,network.bandwidth_Bps,training.micro_batch,status,step_time_s,samples_per_s,tokens_per_s,tflops_per_gpu,mfu,peak_memory_gib,peak_allocated_gib,oom,critical_path.exposed_comm_s,critical_path.bubble_s,communication.tp.exposed_s,communication.cp.exposed_s,communication.ep.exposed_s,communication.dp.exposed_s,communication.pp.exposed_s,time_to_train.days,time_to_train.gpu_hours,reason,configurations,sweep_digest' "$tmp/whole.csv"
version=$(sed -n 's/^project(simgpt VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
platform_digest=$(sha256sum platforms/p3_2xlarge_x12.xml | cut -d' ' -f1)
catalog_digest=$(sha256sum platforms/gpus.yaml | cut -d' ' -f1)
check "the first line says what the sweep was made with: simgpt's version and its files' SHA-256" \
  grep -q "^# simgpt $version sweep; platform platforms/p3_2xlarge_x12.xml sha256:$platform_digest; .*gpu_catalog platforms/gpus.yaml sha256:$catalog_digest; resolved_workload {\"model\":{\"layers\":24," "$tmp/whole.csv"
check "lines in configuration order" [ "$(tail -n +3 "$tmp/whole.csv" | cut -d, -f1 | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 8 9 10 11 " ]
# Beside each quantity its value in SI units (seconds, bytes per second), empty for `default`.
check "1ms and 5Gbps in SI units" grep -q '^4,1ms,0.001,5Gbps,625000000,1,ok,' "$tmp/whole.csv"
check "10ms and 1Gbps in SI units" grep -q '^8,10ms,0.01,1Gbps,125000000,1,ok,' "$tmp/whole.csv"
check "default has no SI value" grep -q '^0,default,,default,,1,ok,' "$tmp/whole.csv"
check "an invalid configuration is a line with its reason" grep -q '^2,default,,default,,3,invalid,,,,,,,,,,.*micro_batch' "$tmp/whole.csv"
check "an out-of-memory configuration is a line with status oom" grep -q '^3,default,,default,,16,oom,[0-9.]*,.*,true,' "$tmp/whole.csv"
check "the default configuration's step time is simgpt's" \
  [ "$(sed -n 3p "$tmp/whole.csv" | cut -d, -f8)" = \
    "$("$simgpt" --platform platforms/p3_2xlarge_x12.xml --workload workloads/gpt3xl_gpipe.yaml --format json | sed -n 's/^  "step_time_s": \(.*\),$/\1/p')" ]

# Killed after a few lines, then rerun: the same file.
"$simgpt" "${sweep[@]}" --jobs 1 -o "$tmp/killed.csv" > /dev/null 2>&1 &
pid=$!
check "the interrupted sweep wrote some lines" wait_for 20 lines_at_least "$tmp/killed.csv" 4
kill -KILL "$pid"
wait "$pid" 2> /dev/null
check "the kill came before the end" [ "$(wc -l < "$tmp/killed.csv")" -lt 14 ]
# A line cut by the interruption: the start of the next configuration's line.
sed -n "$(($(wc -l < "$tmp/killed.csv") + 1))p" "$tmp/whole.csv" | head -c 12 >> "$tmp/killed.csv"
"$simgpt" "${sweep[@]}" --jobs 2 -o "$tmp/killed.csv" > "$tmp/out" 2>&1
check "the rerun skips the lines written ($(cat "$tmp/out"))" grep -q "12 configurations, [1-9][0-9]* already in" "$tmp/out"
check "killed and rerun = uninterrupted" cmp -s "$tmp/whole.csv" "$tmp/killed.csv"

# Three shards merged = the whole sweep; JSON lines carry the same configurations.
for i in 1 2 3; do "$simgpt" "${sweep[@]}" --shard "$i/3" -o "$tmp/part$i.csv" > /dev/null 2>&1; done
"$simgpt" sweep merge "$tmp/part3.csv" "$tmp/part1.csv" "$tmp/part2.csv" -o "$tmp/merged.csv" > /dev/null
check "merged shards = the whole sweep" cmp -s "$tmp/whole.csv" "$tmp/merged.csv"
"$simgpt" "${sweep[@]}" --format jsonl -o "$tmp/whole.jsonl" > /dev/null 2>&1
check "JSON lines: 12 objects" [ "$(grep -c '^{"config":' "$tmp/whole.jsonl")" -eq 12 ]
check "JSON lines: SI values as numbers, null for default" \
  grep -q '^{"config":4,"network.delay":"1ms","network.delay_s":0.001,"network.bandwidth":"5Gbps","network.bandwidth_Bps":625000000.0,"training.micro_batch":"1",' "$tmp/whole.jsonl"
check "JSON lines: null for default" grep -q '^{"config":0,"network.delay":"default","network.delay_s":null,' "$tmp/whole.jsonl"
"$simgpt" sweep merge "$tmp/whole.jsonl" -o "$tmp/merged.jsonl" > /dev/null
check "JSON lines with SI values merge as written" cmp -s "$tmp/whole.jsonl" "$tmp/merged.jsonl"
# A sweep passes --fidelity on to each simulation, which runs at it; on one GPU a node full and
# symmetric agree.
"$simgpt" "${sweep[@]}" --jobs 2 --fidelity full -o "$tmp/full.csv" > /dev/null 2>&1
# The same results, but of another sweep: the fidelity is part of the sweep_digest (the last column).
check "--fidelity full: the same lines" cmp -s <(sed 's/,[^,]*$//' "$tmp/whole.csv") <(sed 's/,[^,]*$//' "$tmp/full.csv")
check "--fidelity full: another sweep_digest" [ "$(tail -n 1 "$tmp/whole.csv" | sed "s/.*,//")" != "$(tail -n 1 "$tmp/full.csv" | sed "s/.*,//")" ]
if [ -z "${ASAN_OPTIONS:-}" ]; then # AddressSanitizer's allocator exits when a mapping fails
  "$simgpt" platform --preset dgx-a100 --nodes 128 -o "$tmp/dgx128.xml" > /dev/null
  # The full replay (some 700 MB; the symmetric one fits in 32 MiB).
  "$simgpt" sweep --platform "$tmp/dgx128.xml" --workload workloads/gpt3_175b.yaml \
    --grid training.micro_batch=1 --fidelity full --memory-limit 32MiB -o "$tmp/limited.csv" > "$tmp/out" 2>&1
  check "a simulation past --memory-limit is a failed line saying so" \
    grep -q '^0,1,failed,.*memory limit of 0.0312 GiB (--memory-limit)' "$tmp/limited.csv"
fi
check "a point runs at its --fidelity" grep -q '"mode":"full"' \
  <("$simgpt" point --platform platforms/p3_2xlarge_x12.xml --workload workloads/gpt3xl_gpipe.yaml --fidelity full)

# Bad sweeps: one line, exit status 2.
bad() { # bad DESCRIPTION PATTERN ARGS...
  local what="$1" pattern="$2"
  shift 2
  "$simgpt" "$@" > "$tmp/out" 2>&1
  local status=$?
  check "$what -> status $status (want 2): $(cat "$tmp/out")" [ "$status" -eq 2 ]
  check "$what: one line matching '$pattern'" [ "$(wc -l < "$tmp/out")" -eq 1 ]
  check "$what: message" grep -q "$pattern" "$tmp/out"
}
base=(sweep --platform platforms/p3_2xlarge_x12.xml --workload workloads/gpt3xl_gpipe.yaml -o "$tmp/bad.csv")
bad "an unknown key" "unknown key 'delays'" "${base[@]}" --grid network.delays=1ms
bad "a memory limit that is not a size" "expected a size from 16MiB" "${base[@]}" --grid network.delay=1ms --memory-limit 2
bad "a zip of another length" "has 2 values but is zipped with network.delay, which has 3" \
  "${base[@]}" --grid network.delay=1ms,2ms,3ms --zip network.bandwidth=1Gbps,2Gbps
bad "an empty value" "no empty value" "${base[@]}" --grid network.delay=1ms,,2ms
bad "a key swept twice" "is swept twice" "${base[@]}" --grid network.delay=1ms --grid network.delay=2ms
bad "a bad shard" "expected I/N" "${base[@]}" --grid network.delay=1ms --shard 4/3
bad "an unknown fidelity" "not in {symmetric,full,estimate}" "${base[@]}" --grid network.delay=1ms --fidelity half
cp "$tmp/whole.csv" "$tmp/other.csv"
bad "an output of another sweep" "holds another sweep's columns" \
  sweep --platform platforms/p3_2xlarge_x12.xml --workload workloads/gpt3xl_gpipe.yaml --grid network.delay=1ms -o "$tmp/other.csv"
exit $fail

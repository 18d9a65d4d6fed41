#!/usr/bin/env bash
# --trace FILE.json.gz, --trace-gpus and --trace-window on the command line: a gzip file that
# `gzip -t` accepts, holding the JSON trace, the same bytes on every run and no name or time in its
# header; only the selected GPUs' processes drawn; the report the same as without a trace; bad
# values refused with one line naming the option (exit 2); a trace too large to draw refused with
# exit 3, before the step is replayed when it can be, naming the options that draw less; no
# trace file, whole or partial, left by a refusal; otherData records the report's inputs.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"
slowdown=${SIMGPT_TEST_SLOWDOWN:-1}
expect_seconds=20 # expect_status's limit a run

# drawn FILE: the GPUs (process ids) of a trace's events, gzip-compressed or not, one line, ascending;
# the critical path's process (the id after the job's GPUs) as "path".
drawn() {
  python3 - "$1" <<'PY'
import gzip, json, sys
path = sys.argv[1]
with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
    trace = json.load(f)
gpus = trace["otherData"]["gpus"]
pids = sorted({e["pid"] for e in trace["traceEvents"]})
print(",".join(str(p) if p < gpus else "path" for p in pids))
PY
}

job=(--platform platforms/p3_16xlarge.xml --workload workloads/gpt3xl.yaml --set parallelism.pp=4
     --set parallelism.dp=2 --set training.global_batch=16)
some=(--trace-gpus 2-3,6 --trace-window 1s:3s)

# gzip, deterministic, what the uncompressed trace holds; the report unchanged.
"$simgpt" "${job[@]}" > "$tmp/plain.txt" 2>&1
"$simgpt" "${job[@]}" --trace "$tmp/t.json.gz" "${some[@]}" > "$tmp/traced.txt" 2>&1
check "a trace of some GPUs and part of the step leaves the report as it is" cmp -s "$tmp/plain.txt" "$tmp/traced.txt"
check "a .json.gz trace passes gzip -t" gzip -t "$tmp/t.json.gz"
# What the step was made from, as the JSON report's last fields say it.
"$simgpt" "${job[@]}" --format json > "$tmp/report.json"
same_inputs() {
  python3 - "$tmp/t.json.gz" "$tmp/report.json" <<'PY'
import gzip, json, sys
other = json.load(gzip.open(sys.argv[1], "rt"))["otherData"]
report = json.load(open(sys.argv[2]))
keys = ["simgpt_version", "inputs", "overrides", "resolved_workload"]
sys.exit(0 if all(other[k] == report[k] for k in keys) and report["overrides"] else 1)
PY
}
check "the trace's otherData says what the report says it was made from" same_inputs
check "a .json.gz trace holds JSON drawing GPUs 2, 3 and 6 only" [ "$(drawn "$tmp/t.json.gz")" = "2,3,6,path" ]
check "its gzip header names no file and no time (flags 0, mtime 0)" \
  [ "$(od -An -tx1 -j3 -N5 "$tmp/t.json.gz" | tr -d ' \n')" = "0000000000" ]
cp "$tmp/t.json.gz" "$tmp/first.json.gz"
"$simgpt" "${job[@]}" --trace "$tmp/t.json.gz" "${some[@]}" > /dev/null 2>&1
check "the same step gives the same .json.gz, byte for byte" cmp -s "$tmp/t.json.gz" "$tmp/first.json.gz"
"$simgpt" "${job[@]}" --trace "$tmp/t.json" "${some[@]}" > /dev/null 2>&1
check "the .json.gz holds what the .json trace does" cmp -s <(gzip -dc "$tmp/t.json.gz") "$tmp/t.json"
"$simgpt" "${job[@]}" --trace "$tmp/all.json" > /dev/null 2>&1
check "a trace without --trace-gpus draws every GPU" [ "$(drawn "$tmp/all.json")" = "0,1,2,3,4,5,6,7,path" ]
rm -f "$tmp"/*.json "$tmp"/*.gz

# Bad values: one line naming the option and what is valid, exit 2, no file.
expect_status 2 "--trace-gpus past the job's GPUs" "^simgpt: --trace-gpus: GPU 8 is not one of the job's.*0 to 7" \
  "${job[@]}" --trace "$tmp/t.json" --trace-gpus 0-8
expect_status 2 "--trace-gpus of another syntax" "^simgpt: --trace-gpus: '0:3' is not a GPU index or range" \
  "${job[@]}" --trace "$tmp/t.json" --trace-gpus 0:3
expect_status 2 "--trace-gpus with an empty entry" "^simgpt: --trace-gpus: .*empty entry" \
  "${job[@]}" --trace "$tmp/t.json" --trace-gpus 1,,2
expect_status 2 "--trace-window backwards" "^simgpt: --trace-window: .*not before its end" \
  "${job[@]}" --trace "$tmp/t.json" --trace-window 2s:1s
expect_status 2 "--trace-window without units" "^simgpt: --trace-window: '1' has no unit" \
  "${job[@]}" --trace "$tmp/t.json" --trace-window 1:2
expect_status 2 "--trace-window of one time" "^simgpt: --trace-window: '1s' is not a window" \
  "${job[@]}" --trace "$tmp/t.json" --trace-window 1s
expect_status 2 "--trace-window after the step" "^simgpt: --trace-window: starts at 100 s, after the step's end" \
  "${job[@]}" --trace "$tmp/t.json" --trace-window 100s:
expect_status 2 "--trace-gpus without --trace" "^simgpt: --trace-gpus: .*no --trace" "${job[@]}" --trace-gpus 0
expect_status 2 "--trace-window without --trace" "^simgpt: --trace-window: .*no --trace" "${job[@]}" --trace-window 1s:
check "no trace file is left by a refusal" [ -z "$(ls -A "$tmp" | grep -v '^out$\|^err$\|^plain.txt$\|^traced.txt$')" ]

# Too large: GPT-3 175B on 512 GPUs, 128 micro-batches (about 5 M slices in all) is refused
# before its replay; its 8 GPUs of a node, or a short window of all of them, are drawn.
"$simgpt" platform --preset dgx-a100 --nodes 64 -o "$tmp/dgx64.xml" > /dev/null
big=(--platform "$tmp/dgx64.xml" --workload workloads/gpt3_175b.yaml --set parallelism.dp=4
     --set training.global_batch=512)
expect_status 3 "a trace of 512 GPUs" \
  "^simgpt: --trace: the trace would draw [0-9]* slices ([0-9]* per GPU), more than simgpt's limit of 2000000 slices.*--trace-gpus.*--trace-window" \
  "${big[@]}" --trace "$tmp/big.json"
expect_status 3 "a window too long for 512 GPUs" "^simgpt: --trace: the trace would draw more than simgpt's limit of 2000000 slices" \
  "${big[@]}" --trace "$tmp/big.json.gz" --trace-window 1s:
check "no trace file is left by a trace too large" [ -z "$(ls -A "$tmp" | grep -v '^out$\|^err$\|^dgx64.xml$\|.txt$')" ]
expect_status 0 "8 GPUs of 512" "" "${big[@]}" --trace "$tmp/big.json.gz" --trace-gpus 0-7
check "8 GPUs of 512: those drawn" [ "$(drawn "$tmp/big.json.gz")" = "0,1,2,3,4,5,6,7,path" ]
expect_status 0 "512 GPUs over 10 ms" "" "${big[@]}" --trace "$tmp/big.json.gz" --trace-window 10s:10.01s
check "512 GPUs over 10 ms: all drawn" [ "$(drawn "$tmp/big.json.gz" | tr ',' '\n' | grep -vc path)" -eq 512 ]

# An interrupted run leaves no hidden .NAME.simgpt-XXXXXX beside --trace's file (it was left).
long=(--platform platforms/p3_16xlarge_x8.xml --workload workloads/gpt3xl.yaml --set parallelism.dp=8
      --set parallelism.pp=8 --set training.global_batch=4096 --set framework=megatron
      --set parallelism.schedule=1f1b --fidelity full)
mkdir -p "$tmp/interrupted"
"$simgpt" "${long[@]}" --trace "$tmp/interrupted/t.json" > /dev/null 2>&1 &
pid=$!
check "the trace's scratch file is made" wait_for $((10 * slowdown)) sh -c "ls -A '$tmp/interrupted' | grep -q simgpt-"
kill -TERM "$pid"
wait "$pid"
status=$?
check "SIGTERM ends the run (status $status)" [ "$status" -eq 143 ]
check "... and leaves nothing beside the trace's path ($(ls -A "$tmp/interrupted"))" [ -z "$(ls -A "$tmp/interrupted")" ]
exit $fail

#!/usr/bin/env bash
# bench/device/measure_collectives.py with its stand-in timer (no GPU): the lines it fits recover the
# formula's bus bandwidth and per-step latency, a second run at another rank count keeps the first's
# rows, the table is written byte for byte alike from alike runs, a simulation with --data prices
# its collectives with those lines (and says so), and bad input is refused with one line and exit
# status 2, no table written or changed. Run from the repository root: measure_collectives_standin.sh SIMGPT.
set -u
simgpt="$1"
script=bench/device/measure_collectives.py
gpu=H100-SXM5-80GB
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # description, command...
  local what="$1"
  shift
  if ! "$@"; then
    echo "FAIL: $what"
    fail=1
  fi
}

measure() { # out-dir, arguments...: status to out-dir.rc, stderr to out-dir.err
  local out="$1"
  shift
  python3 "$script" --out "$out" "$@" > "$out.stdout" 2> "$out.err"
  echo $? > "$out.rc"
}

table() { echo "$1/platforms/kernels/$gpu.yaml"; }

# The stand-in's formula: us = 20 + steps x 5 + carried bytes / 5e5 (500 GB/s).
measure "$tmp/a" --gpu $gpu --timer standin --ranks 8
check "a run at 8 GPUs succeeds" [ "$(cat "$tmp/a.rc")" = 0 ]
check "... and prints the table's path" [ "$(cat "$tmp/a.stdout")" = "$(table "$tmp/a")" ]
cat > "$tmp/lines.py" <<'PY'
import re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"  - \{op: (\w+), fabric: nvlink, ranks: (\d+), bus_GBps: ([\d.]+), step_us: ([\d.]+), call_us: ([\d.]+), from_bytes: (\d+)\}$", line)
    if m:
        rows[(m.group(1), int(m.group(2)))] = tuple(float(x) for x in m.groups()[2:])
ok = True
for (op, n), (bus, step, call, start) in rows.items():
    steps = 2 * (n - 1) if op == "all_reduce" else n - 1
    ok = ok and abs(bus - 500) < 0.01 and abs(step - (20 + 5 * steps) / steps) < 1e-3 and call == 0 and start == 1 << 20
print(len(rows), ok, ",".join(sorted("%s/%d" % k for k in rows)))
PY
check "... fits the formula's 500 GB/s and per-step latency, four ops at 8 ranks" \
  [ "$(python3 "$tmp/lines.py" "$(table "$tmp/a")")" = "4 True all_gather/8,all_reduce/8,all_to_all/8,reduce_scatter/8" ]
measure "$tmp/a" --gpu $gpu --timer standin --ranks 4 --ops all_gather,all_to_all
check "a second run at 4 GPUs adds its rows and keeps the 8-GPU ones" \
  [ "$(python3 "$tmp/lines.py" "$(table "$tmp/a")")" = "6 True all_gather/4,all_gather/8,all_reduce/8,all_to_all/4,all_to_all/8,reduce_scatter/8" ]
measure "$tmp/b" --gpu $gpu --timer standin --ranks 8
measure "$tmp/b" --gpu $gpu --timer standin --ranks 4 --ops all_gather,all_to_all
check "alike runs write alike tables, byte for byte" cmp -s "$(table "$tmp/a")" "$(table "$tmp/b")"

# A simulation with the folder prices its NVLink collectives with the lines and says so.
cat > "$tmp/job.yaml" <<'YAML'
framework: megatron
model: {layers: 2, hidden: 4096, heads: 32, kv_heads: 8, ffn_hidden: 14336, seq_len: 4096, vocab: 128256,
        mlp: swiglu, norm: rmsnorm, position: rope, bias: false, attention: flash}
parallelism: {dp: 1, tp: 8, pp: 1, sequence_parallel: true, schedule: 1f1b}
training: {global_batch: 2, micro_batch: 1, precision: bf16}
YAML
"$simgpt" --platform platforms/dgx_h100_x1.yaml --workload "$tmp/job.yaml" --format json > "$tmp/nccl.json"
"$simgpt" --data "$tmp/a" --platform platforms/dgx_h100_x1.yaml --workload "$tmp/job.yaml" --format json > "$tmp/lines.json"
json() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }
check "without the table no collective is priced from a line" \
  [ "$(json "$tmp/nccl.json" "'from_table' in j['communication']['tp']")" = False ]
check "with it every tensor-parallel collective is" \
  [ "$(json "$tmp/lines.json" "j['communication']['tp']['from_table'] == j['communication']['tp']['count'] > 0")" = True ]
check "... and the step's time differs" \
  [ "$(python3 -c "import json; print(json.load(open('$tmp/nccl.json'))['step_time_s'] != json.load(open('$tmp/lines.json'))['step_time_s'])")" = True ]

# Bad input: one line on stderr naming the flag, exit status 2, the table as it was.
before=$(cat "$(table "$tmp/a")")
refused() { # description, expected text, arguments...
  local what="$1" text="$2"
  shift 2
  measure "$tmp/a" "$@"
  check "$what: exit status 2" [ "$(cat "$tmp/a.rc")" = 2 ]
  check "$what: one line naming $text" [ "$(wc -l < "$tmp/a.err")" = 1 ]
  check "$what: ... $text" grep -q -- "$text" "$tmp/a.err"
  check "$what: the table unchanged" [ "$(cat "$(table "$tmp/a")")" = "$before" ]
}
refused "a GPU the catalog lacks" "--gpu" --gpu H100-SXM-80GB --timer standin --ranks 8
refused "a GPU name with a slash" "--gpu" --gpu ../x --timer standin --ranks 8
refused "an unknown op" "--ops" --gpu $gpu --timer standin --ranks 8 --ops all_gather,broadcast
refused "fewer than three sizes" "--from" --gpu $gpu --timer standin --ranks 8 --from 1MiB --to 2MiB
refused "a size that is not one" "--to" --gpu $gpu --timer standin --ranks 8 --to lots
refused "one rank" "--ranks" --gpu $gpu --timer standin --ranks 1
mkdir -p "$tmp/k/platforms/kernels"
printf 'gpu: %s\nsource: "s"\nmethod: "m"\ntiming: isolated\ngemm:\n  - {precision: bf16, layout: TN, out: bf16, batch: 1, m: 1, n: 1, k: 1, us: 1}\n' $gpu \
  > "$(table "$tmp/k")"
cp "$(table "$tmp/k")" "$tmp/k.before"
measure "$tmp/k" --gpu $gpu --timer standin --ranks 8
check "a folder whose table has kernel rows: exit status 2" [ "$(cat "$tmp/k.rc")" = 2 ]
check "... naming the file" grep -q "$(table "$tmp/k")" "$tmp/k.err"
check "... and the table unchanged" cmp -s "$(table "$tmp/k")" "$tmp/k.before"
exit $fail

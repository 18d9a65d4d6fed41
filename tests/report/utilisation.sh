#!/usr/bin/env bash
# A report's model and hardware FLOPs utilisation (MFU, HFU) and its time to train
# (training.tokens, training.gpu_hour_price), in text, JSON and a sweep's CSV, are what their
# definitions give from the report's own figures; bad values of the two keys are refused.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"
slowdown=${SIMGPT_TEST_SLOWDOWN:-1}

job=(--platform platforms/p3_16xlarge.xml --workload workloads/gpt3xl.yaml --set training.precision=fp16)
"$simgpt" "${job[@]}" --set training.recompute=none --set training.tokens=300B --set training.gpu_hour_price=3.06 \
  --format json > "$tmp/none.json"
check "a step with a time to train runs" [ -s "$tmp/none.json" ]
"$simgpt" "${job[@]}" --set training.recompute=full --format json > "$tmp/full.json"
check "a step with full recompute runs" [ -s "$tmp/full.json" ]
python3 - "$tmp/none.json" "$tmp/full.json" <<'PY' || fail=1
import json, re, sys
none, full = (json.load(open(f)) for f in sys.argv[1:3])
ok = True
def expect(what, cond):
    global ok
    if not cond:
        print("FAIL:", what); ok = False
def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b))
# V100's fp16 dense peak in platforms/gpus.yaml.
peak = float(re.search(r'V100-SXM2-16GB:.*?fp16: ([0-9.]+)', open('platforms/gpus.yaml').read(), re.S).group(1))
for r in (none, full):
    expect("peak is the fp16 dense peak of gpus.yaml", r["peak_precision"] == "fp16" and close(r["peak_tflops_per_gpu"], peak))
    expect("mfu = tflops_per_gpu / peak", close(r["mfu"], r["tflops_per_gpu"] / peak, 1e-6))
expect("without recompute hfu = mfu", none["hfu"] == none["mfu"])
# Full recompute: hardware FLOPs are the model's plus every layer's forward again, between 1 and 4/3 of them.
expect(f"with full recompute mfu < hfu < 4/3 mfu ({full['mfu']}, {full['hfu']})", full["mfu"] < full["hfu"] < 4 / 3 * full["mfu"])
t = none["time_to_train"]
seconds = 300e9 / none["tokens_per_s"]
expect("tokens as given (300B)", t["tokens"] == 300e9)
expect("days = tokens / tokens_per_s / 86400", close(t["days"], seconds / 86400, 1e-6))
expect("gpu_hours = days x 24 x GPUs", close(t["gpu_hours"], seconds / 3600 * none["gpus"], 1e-6))
expect("cost = gpu_hours x price", close(t["cost"], t["gpu_hours"] * 3.06, 1e-6))
expect("no time to train unless asked", "time_to_train" not in full)
sys.exit(0 if ok else 1)
PY

"$simgpt" "${job[@]}" --set training.recompute=none --set training.tokens=300B --set training.gpu_hour_price=3.06 > "$tmp/text"
check "the text report gives the MFU" grep -q '^  mfu         [0-9.]*% of the fp16 dense peak (125 TFLOP/s per GPU)$' "$tmp/text"
check "the text report gives the time to train" grep -q '^  to train    300B tokens: [0-9.]* days, [0-9]* GPU-hours, cost [0-9]*$' "$tmp/text"
"$simgpt" "${job[@]}" --set training.recompute=none --train-tokens 300B --set training.gpu_hour_price=3.06 > "$tmp/flag"
check "--train-tokens 300B is training.tokens=300B" cmp -s "$tmp/text" "$tmp/flag"
expect_status 2 "--train-tokens 15X" "training.tokens: '15X' is not valid" "${job[@]}" --train-tokens 15X
"$simgpt" "${job[@]}" --set training.recompute=selective > "$tmp/text"
check "the text report gives the HFU under recompute" grep -q '^  mfu .*, [0-9.]*% counting recompute (hardware FLOPs)$' "$tmp/text"

for value in 0 -5 abc 1e400 15X 2e18 "[1]" 1MK 15TT; do
  expect_status 2 "training.tokens=$value" "training.tokens: '.*' is not valid (expected a number of tokens" \
    "${job[@]}" --set "training.tokens=$value"
done
for value in 0 -1 abc 1e7; do
  expect_status 2 "training.gpu_hour_price=$value" "training.gpu_hour_price: '.*' is not valid (expected a price" \
    "${job[@]}" --set "training.gpu_hour_price=$value"
done

# A sweep's CSV carries them.
"$simgpt" sweep "${job[@]}" --set training.tokens=1T --grid parallelism.pp=1,2 -o "$tmp/sweep.csv" > /dev/null 2>&1
check "a sweep writes its CSV" [ -s "$tmp/sweep.csv" ]
python3 - "$tmp/sweep.csv" <<'PY' || fail=1
import csv, sys
rows = list(csv.DictReader(line for line in open(sys.argv[1]) if not line.startswith("#")))
ok = len(rows) == 2 and all(float(r["mfu"]) > 0 and float(r["time_to_train.days"]) > 0 and
                            float(r["time_to_train.gpu_hours"]) > 0 for r in rows if r["status"] == "ok")
if not ok:
    print("FAIL: the sweep's CSV has mfu and time_to_train columns:", rows[:1])
sys.exit(0 if ok else 1)
PY
exit $fail

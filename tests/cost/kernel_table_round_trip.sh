#!/usr/bin/env bash
# The round trip a user makes to price kernels from their own GPU's timings, without a GPU:
# `simgpt kernels` lists the job's shapes, bench/device/measure_kernels.py times them (here with its
# stand-in timer) into a kernel table in a data folder, and a simulation with --data takes every
# listed kernel's time from that table and says so.
# usage: kernel_table_round_trip.sh SIMGPT (from the repository root)
simgpt=$1
. "$(dirname "$0")/../support/checks.sh"
platform=platforms/dgx_a100.xml
workload=tests/cost/data/kernel_round_trip.yaml
table=$tmp/data/platforms/kernels/A100-SXM4-80GB.yaml
json() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

check "kernels lists the job's shapes" "$simgpt" kernels --platform $platform --workload $workload --format json \
  -o "$tmp/shapes.json"
check "no table for the A100: every shape priced" \
  [ "$(json "$tmp/shapes.json" "sorted({r['source'] for k in j['kernels'].values() for r in k})")" = "['fallback']" ]
check "every kind a table times is listed" \
  [ "$(json "$tmp/shapes.json" "[k for k, rows in j['kernels'].items() if rows]")" = "['gemm', 'attention', 'memory']" ]
check "the YAML listing names the GPU" bash -c "'$simgpt' kernels --platform $platform --workload $workload | grep -q '^gpu: A100-SXM4-80GB$'"
check "a norm's row gives its width, the model's hidden size, for its measurement" \
  [ "$(json "$tmp/shapes.json" "sorted({r.get('width') for r in j['kernels']['memory']})")" = \
    "[$(python3 -c "import yaml; print(float(yaml.safe_load(open('$workload'))['model']['hidden']))")]" ]
check "the stand-in timer writes the table" python3 bench/device/measure_kernels.py "$tmp/shapes.json" --out "$tmp/data" \
  --timer standin
check "the table is where simgpt looks for it" [ -f "$table" ]

"$simgpt" --platform $platform --workload $workload --format json > "$tmp/before.json"
"$simgpt" --data "$tmp/data" --platform $platform --workload $workload --format json > "$tmp/after.json"
check "without the table no kernel time is measured" \
  [ "$(json "$tmp/before.json" "sum(k['measured_s'] for k in j['kernel_time']['kinds'].values()) == 0")" = True ]
check "with it every GEMM, attention and norm kernel takes the table's time" \
  [ "$(json "$tmp/after.json" "[n for n, k in j['kernel_time']['kinds'].items() if k['measured_s'] > 0]")" = "['gemm', 'attention', 'memory']" ]
check "no GEMM or attention kernel falls back" \
  [ "$(json "$tmp/after.json" "j['kernel_time']['kinds']['gemm']['fallback_s'] + j['kernel_time']['kinds']['attention']['fallback_s']")" = "0.0" ]
check "the report names the table and lists it as an input" \
  [ "$(json "$tmp/after.json" "j['kernel_time']['tables'] == ['platforms/kernels/A100-SXM4-80GB.yaml'] and any(f['role'] == 'kernel_table' for f in j['inputs'])")" = "True" ]
check "the step time moves with the table's times" \
  [ "$(json "$tmp/before.json" "j['step_time_s']")" != "$(json "$tmp/after.json" "j['step_time_s']")" ]
"$simgpt" kernels --data "$tmp/data" --platform $platform --workload $workload --format json > "$tmp/listed.json"
check "kernels now finds every shape in the table" \
  [ "$(json "$tmp/listed.json" "sorted({r['source'] for k in j['kernels'].values() for r in k})")" = "['table']" ]
# The stand-in's GEMM time (measure_kernels.py: 2 us + FLOPs at 500 TFLOP/s) is what the listing
# now gives the first GEMM, the A100's launch gap added to a table timed kernel by kernel.
check "a GEMM's time is the stand-in's, plus the launch gap" python3 - "$tmp/listed.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
g = j["kernels"]["gemm"][0]
want = 2 + 2 * g["batch"] * g["m"] * g["n"] * g["k"] / 500e12 * 1e6 + 4  # us; kernel_launch 4 us
sys.exit(0 if abs(g["us"] - want) < 0.01 else f"{g['us']} us, expected {want}")
PY
# The shipped Llama 3 70B and DeepSeek-V3 jobs, on the platforms their comments name: their GEMMs,
# DeepSeek's experts' grouped GEMMs and latent attention (192-wide queries and keys) listed.
"$simgpt" platform --preset dgx-h100 --nodes 8 -o "$tmp/x8.xml" > /dev/null
"$simgpt" platform --preset dgx-h100 --nodes 256 -o "$tmp/x256.xml" > /dev/null
check "kernels lists Llama 3 70B's shapes" "$simgpt" kernels --platform "$tmp/x8.xml" --workload workloads/llama3_70b.yaml \
  --format json -o "$tmp/l70.json"
check "... its GEMMs at 8192 tokens and its grouped-query attention" \
  [ "$(json "$tmp/l70.json" "any(r['m'] == 8192 for r in j['kernels']['gemm']) and j['kernels']['attention'][0]['kv_heads'] == 1")" = True ]
check "kernels lists DeepSeek-V3's shapes" "$simgpt" kernels --platform "$tmp/x256.xml" --workload workloads/deepseek_v3.yaml \
  --format json -o "$tmp/v3.json"
check "... its experts' grouped GEMMs and latent attention" \
  [ "$(json "$tmp/v3.json" "len(j['kernels']['grouped_gemm']) == 6 and j['kernels']['attention'][0]['qk_dim'] == 192")" = True ]
expect_status 2 "kernels without a workload" "--workload" kernels --platform "$tmp/x8.xml"
expect_status 2 "kernels into a file it reads" "-o" kernels --platform "$tmp/x8.xml" --workload workloads/llama3_70b.yaml \
  -o workloads/llama3_70b.yaml
# A broken table is refused with its file and key named, exit status 2.
sed -i 's/^timing: .*/timing: sometimes/' "$table"
expect_status 2 "a table with a bad timing" "A100-SXM4-80GB.yaml: timing" --data "$tmp/data" --platform $platform \
  --workload $workload
exit $fail

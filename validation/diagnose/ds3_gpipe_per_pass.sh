#!/usr/bin/env bash
# Whether ds3-gpipe's per-micro-batch constant (compute.microbatch_overhead, fitted on GPT-3 XL fp32
# rows) can stand for a mechanism: it would then fit GPT-3 small and GPT-3 XL, fp32 and fp16 alike.
#
# 1. Refit it, with p2p.bandwidth_efficiency, on the default-network GPipe row of each model size and
#    precision the DS3Lab testbed ran (one data folder layered over the checkout's, whose profile
#    declares those rows), and print each row's error at the fitted value.
# 2. Replay the same four rows with the constant at zero and print what each pipeline slot (one
#    micro-batch's forward and backward on a stage) lacks: (measured - predicted) / slots, slots =
#    micro-batches + stages - 1 (GPipe's fill and drain).
#
# Usage: validation/diagnose/ds3_gpipe_per_pass.sh [SIMGPT]; run from the checkout. Deterministic:
# the same checkout prints the same figures.
set -euo pipefail
simgpt="${1:-build/simgpt}"
export SIMGPT_DATA="$PWD"
overlay="$(mktemp -d)"
trap 'rm -rf "$overlay"' EXIT
mkdir -p "$overlay/profiles"
cp -r profiles/collectives "$overlay/profiles/"

rows='ds3lab-xl-gpipe-fp16/default, ds3lab-small-gpipe/fp32-default, ds3lab-small-gpipe/fp16-default'
python3 - "$overlay/profiles/ds3-gpipe.yaml" "$rows" <<'EOF'
import re, sys
out, extra = sys.argv[1], sys.argv[2]
text = open("profiles/ds3-gpipe.yaml").read()
# The declared rows: the p2p rows and seed001-gpipe/default (XL fp32) stay; the XL fp32 network
# variants give way to one default-network row of each other size and precision.
declared = re.search(r"\n  rows: \[(.*?)\]", text, re.S)
keep = [r.strip() for r in declared.group(1).split(",")
        if r.strip().startswith("notes-p2p") or r.strip() == "seed001-gpipe/default"]
text = text[:declared.start()] + "\n  rows: [" + ", ".join(keep + [extra]) + "]" + text[declared.end():]
open(out, "w").write(text)
EOF
echo "== refit on one default-network row of each model size and precision"
"$simgpt" calibrate --profile ds3-gpipe --data "$overlay"

sed -i 's/^  microbatch_overhead: .*/  microbatch_overhead: 0ms/' "$overlay/profiles/ds3-gpipe.yaml"
echo
echo "== the constant at zero: what each pipeline slot lacks"
"$simgpt" validate --data "$overlay" --format json \
--filter gpipe |
  python3 -c '
import json, sys
wanted = ["seed001-gpipe/default", "ds3lab-xl-gpipe-fp16/default", "ds3lab-small-gpipe/fp32-default",
          "ds3lab-small-gpipe/fp16-default"]
report = json.load(sys.stdin)
print("row                                 measured  predicted  missing per slot")
for case in sorted(report["cases"], key=lambda c: wanted.index(c["id"]) if c["id"] in wanted else 9):
    if case["id"] not in wanted or case["metric"] != "step_time_s" or case.get("predicted") is None:
        continue
    case_id = case["id"]
    table, row = case_id.split("/")
    spec = __import__("yaml").safe_load(open(f"validation/tables/{table}.yaml"))
    work = spec["workload"]
    for key, value in next(r for r in spec["rows"] if r["id"] == row).get("set", {}).items():
        section, name = key.split(".", 1)
        work[section][name] = value
    t, p = work["training"], work["parallelism"]
    slots = t["global_batch"] // (t["micro_batch"] * p.get("dp", 1)) + p["pp"] - 1
    measured, predicted = case["measured"], case["predicted"]
    gap = (measured - predicted) / slots
    print(f"{case_id:35s} {measured:7.2f} s {predicted:7.2f} s  {gap * 1e3:+7.1f} ms")
'

#!/usr/bin/env bash
# validate puts another planner's measured runs (tables with planner_search: seed 002's AutoDist)
# beside the plan simgpt plan picks over the same space: one entry per table row, within the
# table's restrictions, outside every error statistic; the same bytes whatever --jobs.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"

"$simgpt" validate --format json --jobs 2 --filter seed002-autodist > "$tmp/two.json" 2> "$tmp/err"; status=$?
check "validate exits 0 ($(head -c 300 "$tmp/err"))" [ "$status" -eq 0 ]
"$simgpt" validate --format json --jobs 1 --filter seed002-autodist > "$tmp/one.json" 2>&1
check "--jobs 1 gives the same report as --jobs 2" cmp -s "$tmp/one.json" "$tmp/two.json"

python3 - "$tmp/two.json" <<'PY' || fail=1
import json, re, sys
r = json.load(open(sys.argv[1]))
c = r["planner_comparisons"]
bad = []
rows = [(e["table"], e["row"]) for e in c]
want = [("seed002-autodist-pipeline", m) for m in ("760M", "1.3B", "2.6B", "6.7B")] + \
       [("seed002-autodist-tensor", m) for m in ("350M", "760M", "1.3B", "2.6B", "6.7B")]
if rows != want:
    bad.append(f"one entry per table row with a measured run, in order: {rows}")
for e in c:
    if not e["plan"] or e["predicted_s"] is None or e["predicted_s"] <= 0:
        bad.append(f"{e['table']} / {e['row']}: no pick ({e.get('message')})")
        continue
    dp, tp, pp = map(int, re.match(r"dp(\d+) tp(\d+) pp(\d+)", e["plan"]).groups())
    if dp * tp * pp != e["gpus"]:
        bad.append(f"{e['row']}: {e['plan']} is not a split of the row's {e['gpus']} GPUs")
    if e["table"].endswith("tensor") and pp != 1:
        bad.append(f"{e['row']}: {e['plan']} pipelines, outside the tensor-only table's space")
    if " 1f1b " not in e["plan"] or "zero" in e["plan"] or " sp " in e["plan"]:
        bad.append(f"{e['row']}: {e['plan']} is outside the table's planner_search")
best = {("seed002-autodist-tensor", "1.3B"): ("1.3B-32-25gb", 47.84), ("seed002-autodist-pipeline", "6.7B"): ("6.7B-2", 45.17)}
for e in c:
    if (e["table"], e["row"]) in best and (e["measured_best"], e["measured_best_s"]) != best[(e["table"], e["row"])]:
        bad.append(f"{e['row']}: measured best {e['measured_best']} {e['measured_best_s']}, want the row's fastest run")
# A comparison, not an error: no statistic counts these rows.
for t in r["tables"]:
    if t["table"].startswith("seed002-autodist-pipeline") or t["table"].startswith("seed002-autodist-tensor"):
        if not t["table"].endswith("(reference)") and t["compared"] != 0:
            bad.append(f"{t['table']} counts {t['compared']} rows")
for line in bad:
    print("FAIL:", line)
sys.exit(1 if bad else 0)
PY

"$simgpt" validate --filter seed002-autodist-tensor/350M-1 > "$tmp/text" 2>&1
check "the text report has the comparison section" grep -q "^another planner's runs beside simgpt plan" "$tmp/text"
check "a filtered run compares only the rows it keeps" \
  [ "$(grep -c '^  seed002-autodist-.* / ' "$tmp/text")" -eq 1 ]
exit $fail

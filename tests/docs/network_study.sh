#!/usr/bin/env bash
# docs/network-study is what its commands make: rerunning docs/network-study/make.sh gives the
# committed CSV and SVG byte for byte, and the CSV's step times are simgpt validate's
# predictions for seed 001's GPipe and GPipe + data-parallel rows.
set -u
simgpt="$1"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
docs=docs/network-study

docs/network-study/make.sh "$simgpt" "$tmp" > "$tmp/make.out" 2>&1 || { echo "FAIL: make.sh: $(cat "$tmp/make.out")"; exit 1; }
for f in network.csv network.svg; do
  cmp -s "$docs/$f" "$tmp/$f" || { echo "FAIL: $docs/$f differs from what make.sh writes now"; fail=1; }
done

# id -> predicted step time, from validate's JSON (one key per line).
"$simgpt" validate --format json --filter seed001-gpipe > "$tmp/validate.json"
awk -F'"' '/"id":/ {id = $4} /"metric":/ {metric = $4}
           /"predicted":/ && metric == "step_time_s" {v = $3; gsub(/[ :,]/, "", v); print id, v}' \
  "$tmp/validate.json" > "$tmp/predicted"
# id -> the CSV's configuration: dp, delay and bandwidth from the row's set (else the table's).
rows() { # rows TABLE DP
  awk -v table="$1" -v dp="$2" '
    /^  - id:/ {id = $3}
    /^    set:/ {
      d = dp; delay = "default"; bw = "default"
      if (match($0, /parallelism\.dp: [0-9]+/)) d = substr($0, RSTART + 16, RLENGTH - 16)
      if (match($0, /network\.delay: [0-9a-z]+/)) delay = substr($0, RSTART + 15, RLENGTH - 15)
      if (match($0, /network\.bandwidth: [0-9a-zA-Z]+/)) bw = substr($0, RSTART + 19, RLENGTH - 19)
      print table "/" id, d, delay, bw
    }' "validation/tables/$1.yaml"
}
{ rows seed001-gpipe 1; rows seed001-gpipe-dp 4; } > "$tmp/rows"
compared=0
while read -r id dp delay bw; do
  predicted=$(awk -v id="$id" '$1 == id {print $2}' "$tmp/predicted")
  # Columns by their header's names: the sweep writes SI columns beside the delay and bandwidth.
  csv=$(awk -F, -v dp="$dp" -v delay="$delay" -v bw="$bw" '
        /^#/ {next}
        !header++ {for (i = 1; i <= NF; i++) col[$i] = i; next}
        $col["parallelism.dp"] == dp && $col["network.delay"] == delay && $col["network.bandwidth"] == bw {
          print $col["step_time_s"]
        }' "$docs/network.csv")
  if [ -z "$predicted" ] || [ -z "$csv" ] ||
     ! awk -v a="$predicted" -v b="$csv" 'BEGIN {exit !(a - b < 1e-6 * a && b - a < 1e-6 * a)}'; then
    echo "FAIL: $id: validate predicts '$predicted', $docs/network.csv has '$csv' (dp $dp, $delay, $bw)"
    fail=1
  fi
  compared=$((compared + 1))
done < "$tmp/rows"
[ "$compared" -eq 13 ] || { echo "FAIL: compared $compared rows, want 13 (5 GPipe, 8 GPipe + dp)"; fail=1; }
exit $fail

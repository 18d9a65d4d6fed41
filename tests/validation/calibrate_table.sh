#!/usr/bin/env bash
# calibrate --table FILE fits a profile's declared parameters to the user's own measured rows: three
# of vTrain's DeepSpeed rows (validation/tables/vtrain-single-node.yaml, their measured times kept)
# in a folder of their own fit deepspeed's compute.op_overhead and report each row's error before
# and after; --write writes the profile and leaves the table as it was. A table of two rows, of
# another framework, or missing is refused with one line and exit status 2. On a terminal, validate
# and calibrate draw a progress bar on stderr; on a pipe, nothing.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"

mkdir -p "$tmp/mine" "$tmp/data"
cp -r platforms profiles "$tmp/data/"
head_rows() { # head_rows N FRAMEWORK: a table of the first N rows
  cat <<YAML
table: my-runs
platform: dgx_a100.xml
workload:
  model: {layers: 24, hidden: 1024, heads: 16, seq_len: 1024, vocab: 50257}
  training: {global_batch: 16, micro_batch: 1, precision: fp16, recompute: full, optimizer: adam}
  parallelism: {dp: 1, tp: 1, pp: 1, schedule: 1f1b}
  framework: $2
rows:
YAML
  cat <<YAML | head -n $((3 * $1))
  - id: l12-h1024-gb8-tp1-dp2
    set: {model.layers: 12, training.global_batch: 8, parallelism.dp: 2}
    measured: {step_time_s: 0.178043799}
  - id: l24-h2048-gb8-tp2
    set: {model.hidden: 2048, training.global_batch: 8, parallelism.tp: 2}
    measured: {step_time_s: 0.698673914}
  - id: l12-h1024-gb16-tp4
    set: {model.layers: 12, parallelism.tp: 4}
    measured: {step_time_s: 0.709985151}
YAML
}
head_rows 3 deepspeed > "$tmp/mine/runs.yaml"
# The row processes read the table's own file, not its folder's other files.
echo "not: a table" > "$tmp/mine/notes.yaml"
cp "$tmp/mine/runs.yaml" "$tmp/runs.before"
cp "$tmp/data/profiles/deepspeed.yaml" "$tmp/profile.before"

"$simgpt" calibrate --profile deepspeed --table "$tmp/mine/runs.yaml" --jobs 2 --write --data "$tmp/data" \
  > "$tmp/out" 2> "$tmp/err"
got=$?
check "calibrate --table exits 0 (got $got: $(head -c 300 "$tmp/err"))" [ "$got" -eq 0 ]
check "nothing on stderr off a terminal" [ ! -s "$tmp/err" ]
check "fitted on the table's 3 rows" grep -q "^profile deepspeed fitted on 3 row(s) of $tmp/mine/runs.yaml:" "$tmp/out"
check "reports the fitted value" grep -Eq "^  compute.op_overhead = [0-9.e+-]+ s$" "$tmp/out"
for row in l12-h1024-gb8-tp1-dp2 l24-h2048-gb8-tp2 l12-h1024-gb16-tp4; do
  check "reports $row's error before and after" grep -Eq "^  my-runs/$row +[+-][0-9.]+% -> [+-][0-9.]+%$" "$tmp/out"
done
check "the table is untouched" cmp -s "$tmp/mine/runs.yaml" "$tmp/runs.before"
# The profile keeps milliseconds to 4 digits (calibrate's write_fitted).
fitted=$(sed -n 's/^  compute.op_overhead = \(.*\) s$/\1/p' "$tmp/out")
written=$(awk -v s="${fitted:-0}" 'BEGIN { printf "%.4g", s * 1000 }')
check "the profile's op_overhead line holds the fit ($written ms)" \
  grep -q "^  op_overhead: ${written}ms$" "$tmp/data/profiles/deepspeed.yaml"
check "the profile was written: it was $(grep '^  op_overhead' "$tmp/profile.before")" \
  test "$(grep -c "^  op_overhead: ${written}ms$" "$tmp/profile.before")" -eq 0

refused() { # refused DESCRIPTION PATTERN ARGS...: exit 2, one line saying PATTERN
  local what="$1" pattern="$2"
  shift 2
  "$simgpt" calibrate --profile deepspeed --jobs 2 "$@" > "$tmp/out" 2> "$tmp/err"
  local got=$?
  check "$what: exit 2 (got $got: $(head -c 300 "$tmp/err"))" [ "$got" -eq 2 ]
  check "$what: one line" [ "$(wc -l < "$tmp/err")" -eq 1 ]
  check "$what: says '$pattern'" grep -q -- "$pattern" "$tmp/err"
}
head_rows 2 deepspeed > "$tmp/two.yaml"
refused "a table of 2 rows" "two.yaml: 2 measured row(s) of 2 configuration(s): calibrate needs at least 3 rows" \
  --table "$tmp/two.yaml"
head_rows 3 megatron > "$tmp/megatron.yaml"
refused "a table of another framework" "framework 'megatron' is not --profile deepspeed" --table "$tmp/megatron.yaml"
refused "a transfer table of another profile" "profile 'ds3-gpipe' is not --profile deepspeed" \
  --table validation/tables/notes-p2p-p3-2xlarge.yaml
refused "a missing table" "$tmp/missing.yaml: cannot read" --table "$tmp/missing.yaml"
refused "one table id twice" "'my-runs' is the id of the table in" --table "$tmp/mine/runs.yaml" --table "$tmp/two.yaml"

# On a terminal (script gives the command one), the progress bar: done/total on stderr.
script -qec "'$simgpt' calibrate --profile deepspeed --table '$tmp/mine/runs.yaml' --check --jobs 2 > '$tmp/out'" \
  /dev/null > "$tmp/tty"
check "calibrate on a terminal draws its progress (6 simulations: 3 rows, then with op_overhead moved)" \
  grep -q "\] 6/6 " "$tmp/tty"
check "calibrate --check --table lists the rows" \
  grep -q "^compute.op_overhead: 3 row(s) of 3 configuration(s)" "$tmp/out"
script -qec "'$simgpt' validate --filter vtrain-single-node/l12-h1024-gb8-mb1-tp1-dp2-pp1 > '$tmp/out'" /dev/null \
  > "$tmp/tty"
check "validate on a terminal draws its progress" grep -q "\] 1/1 " "$tmp/tty"
check "validate's report stays on stdout" grep -q "l12-h1024-gb8-mb1-tp1-dp2-pp1" "$tmp/out"
exit $fail

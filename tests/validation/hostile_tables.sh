#!/usr/bin/env bash
# Bad validation tables and profile values: `simgpt validate` on a data directory DIR (SIMGPT_DATA=DIR) refuses each with one line
# on stderr naming the file and key, exit status 2 (3 past a limit), before any row runs;
# `simgpt row` (validate's row process) answers a bad --profile-set as an input error naming it,
# never a SimGrid abort.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"

# A data directory of simgpt's own platforms and profiles and one table, written by each case; the
# built-in tables join it (--data layers on them), so validate is filtered to its rows.
data="$tmp/data"
mkdir -p "$data/validation/tables"
cp -r platforms profiles "$data/"
echo 'hostile: {median: 100, max: 100}' > "$data/validation/thresholds.yaml"
table="$data/validation/tables/t.yaml"
head_keys='table: hostile
platform: p3_2xlarge_x2.xml
workload:
  model: {layers: 24, hidden: 2048, heads: 16, seq_len: 2048, vocab: 50257}
  training: {global_batch: 64}
  parallelism: {pp: 2}
  framework: generic'
write_table() { # write_table ROWS [EXTRA TABLE KEYS]
  printf '%s\n%s\nrows:\n%s\n' "$head_keys" "${2:-}" "$1" > "$table"
}
row='  - {id: r, set: {}, measured: {step_time_s: 1.5}}'

expect() { # expect STATUS PATTERN: validate on the table as written
  local status="$1" pattern="$2"
  SIMGPT_DATA="$data" timeout 20 "$simgpt" validate --filter hostile/ --format json > "$tmp/out" 2> "$tmp/err"
  local got=$?
  if [ "$got" -ne "$status" ] || [ "$(wc -l < "$tmp/err")" -ne 1 ] || ! grep -q -- "$pattern" "$tmp/err"; then
    echo "FAIL: $(tail -n 1 "$table" | head -c 200) -> status $got (want $status, /$pattern/), stderr:"
    head -c 1000 "$tmp/err"
    fail=1
  fi
}

write_table '  - 5';                                              expect 2 't.yaml: rows: expected a list of mappings'
write_table '  - {id: r, set: [1, 2]}';                           expect 2 'rows\[0\].set: expected a mapping'
write_table '  - {id: r, set: {}, flags: {a: 1}}';                expect 2 'rows\[0\].flags: expected a list'
write_table '  - {id: r, set: {}, measured: {x: [1]}}';           expect 2 'measured.x: unknown metric (known: oom, step_time_s'
write_table '  - {id: r, set: {}, measured: {step_time_s: [1]}}'; expect 2 'measured.step_time_s: .* is not a number'
for value in 0 -1 .nan .inf 1e308; do
  write_table "  - {id: r, set: {}, measured: {step_time_s: $value}}"
  expect 2 'rows\[0\].measured.step_time_s: '
done
write_table "$row
$row";                                                            expect 2 "rows\[1\].id: 'r' is the id of an earlier row"
write_table '  - {id: b/c, set: {}}';                             expect 2 "rows\[0\].id: 'b/c' is not a valid name"
write_table "$row" "source: {seed: s, page: 3}";                  expect 2 'source.page: unknown key'
# Collective rows: a collective simgpt has, over 2 or more GPUs, in a transfer table only.
collective_row() { echo "  - {id: r, bytes: 1MiB, profile: nccl, $1, measured: {transfer_s: 0.001}}"; }
write_table "$(collective_row 'collective: alltoallv, gpus: 2')" 'kind: transfer'
expect 2 "rows\[0\].collective: 'alltoallv' is not a collective (expected allreduce, reducescatter, allgather, broadcast, reduce, alltoall or ringshift)"
write_table "$(collective_row 'collective: allreduce, gpus: 1')" 'kind: transfer'; expect 2 'rows\[0\].gpus: 1 is out of range'
write_table "$(collective_row 'collective: allreduce, gpus: 2.5')" 'kind: transfer'
expect 2 'rows\[0\].gpus: 2.5 is not a whole number of GPUs (expected 2 to 65536)'
write_table "$(collective_row 'collective: allreduce')" 'kind: transfer';          expect 2 'rows\[0\].gpus: '
write_table "$(collective_row 'gpus: 2')" 'kind: transfer';                        expect 2 'rows\[0\].gpus: gpus goes with collective'
write_table "$(collective_row 'gpus_per_thread: 2')" 'kind: transfer'
expect 2 'rows\[0\].gpus_per_thread: gpus_per_thread goes with collective'
write_table "$(collective_row 'collective: allreduce, gpus: 2, gpus_per_thread: 3')" 'kind: transfer'
expect 2 'rows\[0\].gpus_per_thread: 3 is out of range'
write_table "$(collective_row 'collective: allreduce, gpus: 2, gpus_per_thread: 1.5')" 'kind: transfer'
expect 2 'rows\[0\].gpus_per_thread: 1.5 is not a whole number of GPUs'
write_table "  - {id: r, set: {}, collective: allreduce, gpus: 2}"
expect 2 'rows\[0\].collective: collective rows belong in a table of kind: transfer'
# More GPUs than the platform has: the row's simulation refuses it, naming the platform.
write_table "$(collective_row 'collective: allreduce, gpus: 3')" 'kind: transfer'
"$simgpt" row hostile/r --data "$data" > "$tmp/out" 2> "$tmp/err"
check "a collective over more GPUs than the platform has is an input error ($(head -c 300 "$tmp/out"))" \
  grep -q '"input_error":"a collective over 3 GPUs: expected 2 to the 2 GPUs it has' "$tmp/out"
sed -i "s|^platform: .*|platform: $(printf 'p%.0s' $(seq 300))|" "$table"
expect 2 't.yaml: platform: .ppp'
# Two files, one table id.
write_table "$row"
cp "$table" "$data/validation/tables/u.yaml"
expect 2 "u.yaml: table: 'hostile' is the id of the table in"
rm "$data/validation/tables/u.yaml"
# A planner comparison past the planner's candidate limit: refused as a limit, before any row runs.
micro_batches=$(seq -s, 1 2000)
chunks=$(seq -s, 2 2001)
write_table '  - {id: r, row: one, set: {placement.gpus: 2}, measured: {step_time_s: 1.5}}' \
  "planner_search: ['training.micro_batch=$micro_batches', 'parallelism.chunks=$chunks']"
expect 3 't.yaml: planner_search: for row .one.: the search holds more than 2000000 candidate plans'
# A planner comparison's job size that is no number of GPUs: refused naming the key ("abc" and
# past 64 bits were an internal error from stoll, 1e3 was searched as 1 GPU).
for gpus in abc 99999999999999999999 1e3 0; do
  write_table "  - {id: r, row: one, set: {placement.gpus: $gpus}, measured: {step_time_s: 1.5}}" \
    "planner_search: [parallelism.pp=1]"
  expect 2 "t.yaml: rows\[0\].set.placement.gpus: '$gpus' is not a number of GPUs (expected a whole number from 1 to 131072"
done
# A profile that fits a parameter simgpt does not have; a profile name that is no file name.
write_table "$row"
sed -i 's/^  fitted: \[p2p.max_rate, p2p.tcp_window\]/  fitted: [p2p.max_rate, compute.bogus]/' "$data/profiles/gloo.yaml"
expect 2 "profiles/gloo.yaml: calibration.fitted: 'compute.bogus' cannot be fitted"
cp profiles/gloo.yaml "$data/profiles/"
# calibration.rows written as a mapping (was an internal error of yaml-cpp's iterators) or as one name.
python3 - "$data/profiles/gloo.yaml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
open(sys.argv[1], "w").write(re.sub(r"  rows: \[.*?\]\n", "  rows: {first: notes-p2p-p3-2xlarge/gloo-64mb-default}\n", text, flags=re.S))
PY
expect 2 "profiles/gloo.yaml: calibration.rows: expected a list of names, e.g. \[a, b\] (got a mapping)"
sed -i 's|^  rows: {first: \(.*\)}|  rows: \1|' "$data/profiles/gloo.yaml"
expect 2 "profiles/gloo.yaml: calibration.rows: expected a list of names, e.g. \[a, b\] (got a single value)"
cp profiles/gloo.yaml "$data/profiles/"
sed -i "s|^  framework: generic|  framework: $(printf 'f%.0s' $(seq 300))|" "$table"
"$simgpt" row hostile/r --data "$data" > "$tmp/out" 2> "$tmp/err"
check "a 300-character profile name is an input error naming the key ($(head -c 300 "$tmp/out"))" \
  grep -q '"input_error":".fff.*is not a profile name (1 to 64 letters' "$tmp/out"

# validate -o: refused before any row runs when it would overwrite a table it reads or is no
# file; otherwise the file holds what standard output would have, and stdout stays empty.
write_table "$row"
SIMGPT_DATA="$data" "$simgpt" validate --filter hostile/ --format json -o "$table" > "$tmp/out" 2> "$tmp/err"
got=$?
check "validate -o onto its own table is refused with status 2 in one line ($(head -c 300 "$tmp/err"))" \
  test $got -eq 2 -a "$(wc -l < "$tmp/err")" -eq 1
check "... naming -o" grep -q -- '^simgpt: -o .*t.yaml: is also an input of this command' "$tmp/err"
check "... and the table is left as it was" grep -q 'id: r, set' "$table"
SIMGPT_DATA="$data" "$simgpt" validate --filter hostile/ --format json -o "$tmp" > "$tmp/out" 2> "$tmp/err"
got=$?
check "validate -o onto a directory is refused with status 2 ($(head -c 300 "$tmp/err"))" test $got -eq 2
SIMGPT_DATA="$data" "$simgpt" validate --filter hostile/ --format json > "$tmp/stdout.json" 2> /dev/null
SIMGPT_DATA="$data" "$simgpt" validate --filter hostile/ --format json -o "$tmp/file.json" > "$tmp/out" 2> /dev/null
check "validate -o writes what standard output gets" cmp -s "$tmp/stdout.json" "$tmp/file.json"
check "... and prints nothing" test ! -s "$tmp/out"
# --gate with another format than text, or -o: the failed tables go to stderr, status 1.
echo 'hostile: {median: 0.001, max: 0.001}' > "$data/validation/thresholds.yaml"
SIMGPT_DATA="$data" "$simgpt" validate --filter hostile/ --gate --format markdown -o "$tmp/gate.md" > "$tmp/out" 2> "$tmp/err"
got=$?
check "validate --gate -o: status 1, the failure on stderr ($(head -c 300 "$tmp/err"))" \
  test $got -eq 1 -a -s "$tmp/gate.md"
check "... naming the table" grep -q '^GATE FAILED: hostile: median' "$tmp/err"
echo 'hostile: {median: 100, max: 100}' > "$data/validation/thresholds.yaml"

# --spec (the row as validate hands it to its process) that is not one: an input error naming it.
for spec in 'not json' '{"table": {}}' '{"table": {"id": 1}, "row": {}}'; do
  "$simgpt" row hostile/r --data "$data" --spec "$spec" > "$tmp/out" 2> "$tmp/err"
  check "row --spec '$spec' is an input error naming it ($(head -c 300 "$tmp/out"))" \
    grep -q '"input_error":"not a row of row_spec_json (.*","where":"--spec"' "$tmp/out"
done

# --profile-set: a NaN reached SimGrid's clock (abort); every value is checked against its range.
write_table "$row"
for set in compute.microbatch_overhead=nan compute.op_overhead=-1 p2p.bandwidth_efficiency=inf memory.logits_bytes=1e300; do
  timeout 20 "$simgpt" row hostile/r --data "$data" --profile-set "$set" > "$tmp/out" 2> "$tmp/err"
  got=$?
  check "row --profile-set $set is an input error naming it (status $got: $(head -c 300 "$tmp/out") $(head -c 300 "$tmp/err"))" \
    grep -q "\"input_error\":\".* is out of range (expected .*\",\"where\":\"--profile-set ${set%%=*}\"" "$tmp/out"
done
exit $fail

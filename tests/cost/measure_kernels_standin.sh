#!/usr/bin/env bash
# bench/device/measure_kernels.py with its stand-in timer (no GPU): the kernel table it writes from
# `simgpt kernels --format json` shapes (tests/cost/data/kernel_shapes_sample.json), its path, rows,
# formula and byte-for-byte repeatability, --only-missing, several files merged, and its refusals
# of bad input (one line on stderr naming the file and key, exit status 2, no table written).
# Run from the repository root; needs python3 only.
set -u
script=bench/device/measure_kernels.py
sample=tests/cost/data/kernel_shapes_sample.json
gpu=H100-SXM-80GB
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

measure() { # out-dir, arguments...: runs the script, stderr to out-dir.err, status to out-dir.rc
  local out="$1"
  shift
  python3 "$script" "$@" --out "$out" --timer standin > "$out.stdout" 2> "$out.err"
  echo $? > "$out.rc"
}

table() { echo "$1/platforms/kernels/$gpu.yaml"; }

# The shapes of JSON files (merged, a memory row's pass forward when left out) against the rows of a
# table: every shape once, nothing else; with `skip_table`, shapes whose every source is table left out.
cat > "$tmp/rows.py" <<'PY'
import json, re, sys
FIELDS = {
    "gemm": ["precision", "layout", "out", "batch", "m", "n", "k"],
    "grouped_gemm": ["precision", "layout", "out", "groups", "m", "n", "k"],
    "attention": ["precision", "pass", "causal", "qkv", "batch", "seq", "heads", "kv_heads", "qk_dim", "v_dim"],
    "memory": ["op", "precision", "pass", "elements"],
}
table, skip_table, files = sys.argv[1], sys.argv[2] == "1", sys.argv[3:]
sources = {}
for path in files:
    for kind, rows in json.load(open(path))["kernels"].items():
        for r in rows:
            r = dict(r)
            if kind == "memory":
                r.setdefault("pass", "forward")
            key = (kind,) + tuple(str(r[f]).lower() if isinstance(r[f], bool) else str(r[f]) for f in FIELDS[kind])
            sources.setdefault(key, set()).add(r.get("source"))
expected = {k for k, s in sources.items() if not (skip_table and s == {"table"})}
got, kind, problems = [], None, []
for line in open(table):
    m = re.match(r"^(gemm|grouped_gemm|attention|memory):( \[\])?$", line.rstrip("\n"))
    if m:
        kind = m.group(1)
        continue
    m = re.match(r"^  - \{(.*)\}$", line.rstrip("\n"))
    if not m:
        continue
    pairs = [p.split(": ", 1) for p in m.group(1).split(", ")]
    keys = [k for k, _ in pairs]
    if keys != FIELDS[kind] + ["us"]:
        problems.append("row keys %s" % keys)
        continue
    values = dict(pairs)
    if not re.match(r"^[0-9]+\.[0-9]{2}$", values["us"]) or float(values["us"]) <= 0:
        problems.append("us %s" % values["us"])
    got.append((kind,) + tuple(values[f] for f in FIELDS[kind]))
if len(got) != len(set(got)):
    problems.append("a shape twice")
if set(got) != expected:
    problems.append("missing %s, unexpected %s" % (sorted(expected - set(got)), sorted(set(got) - expected)))
for p in problems:
    print("  " + p)
sys.exit(1 if problems else 0)
PY

# 1. The sample: exit 0, the table at DIR/platforms/kernels/<gpu>.yaml (DIR made), every shape once.
measure "$tmp/a" "$sample"
check "the sample exits 0 (got $(cat "$tmp/a.rc"): $(head -c 300 "$tmp/a.err"))" test "$(cat "$tmp/a.rc")" = 0
check "the table is written at DIR/platforms/kernels/$gpu.yaml" test -f "$(table "$tmp/a")"
check "its path is printed on stdout" grep -qx "$(table "$tmp/a")" "$tmp/a.stdout"
check "the table has every shape of the sample, once, and nothing else" \
  python3 "$tmp/rows.py" "$(table "$tmp/a")" 0 "$sample"
check "progress on stderr: shape 1 of 13 ... shape 13 of 13" \
  bash -c "grep -q 'shape 1 of 13: ' '$tmp/a.err' && grep -q 'shape 13 of 13: ' '$tmp/a.err'"
check "the header: gpu, source, method (a stand-in), timing isolated, then the four lists in order" python3 - "$(table "$tmp/a")" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[0] == "gpu: H100-SXM-80GB", lines[0]
assert lines[1].startswith('source: "'), lines[1]
assert lines[2].startswith('method: "stand-in timer: not a measurement'), lines[2]
assert lines[3] == "timing: isolated", lines[3]
heads = [l.split(":")[0] for l in lines if l and not l.startswith(" ")]
assert heads == ["gpu", "source", "method", "timing", "gemm", "grouped_gemm", "attention", "memory"], heads
PY
check "no temporary file is left beside the table" \
  test "$(ls -A "$tmp/a/platforms/kernels")" = "$gpu.yaml"

# 2. The documented stand-in formulas, computed here, for a GEMM, an attention and a memory row.
check "GEMM bf16 TN 4096x10240x8192: us = 2 + 2 m n k / 5e8" python3 - "$(table "$tmp/a")" <<'PY'
import sys
text = open(sys.argv[1]).read()
def row(prefix, us):
    line = "  - {%s, us: %.2f}" % (prefix, us)
    if line not in text.split("\n"):
        sys.exit("expected the line %r" % line)
row("precision: bf16, layout: TN, out: bf16, batch: 1, m: 4096, n: 10240, k: 8192", 2 + 2 * 4096 * 10240 * 8192 / 5e8)
row("precision: fp16, layout: TN, out: fp16, batch: 16, m: 1024, n: 1024, k: 64", 2 + 2 * 16 * 1024 * 1024 * 64 / 5e8)
row("precision: bf16, pass: backward, causal: true, qkv: strided, batch: 1, seq: 4096, heads: 64, kv_heads: 8, "
    "qk_dim: 128, v_dim: 128", 5 + 2 * 4096 ** 2 * 64 * 256 * 2.5 * 0.5 / 4e8)
row("op: layernorm, precision: bf16, pass: backward, elements: 67108864", 2 + 67108864 * 8 / 2e6)
PY

# 3. Byte for byte the same on a second run, into another folder and over the first table.
measure "$tmp/b" "$sample"
check "a second run writes the same bytes" cmp -s "$(table "$tmp/a")" "$(table "$tmp/b")"
cp "$(table "$tmp/a")" "$tmp/first.yaml"
measure "$tmp/a" "$sample"
check "a run over an existing table writes the same bytes, and leaves only the table" \
  bash -c "cmp -s '$tmp/first.yaml' '$(table "$tmp/a")' && test \"\$(ls -A '$tmp/a/platforms/kernels')\" = '$gpu.yaml'"

# 4. --only-missing: the shapes whose source is table are left out, the others kept.
measure "$tmp/m" "$sample" --only-missing
check "--only-missing exits 0" test "$(cat "$tmp/m.rc")" = 0
check "--only-missing drops the sample's table rows and keeps the rest" \
  python3 "$tmp/rows.py" "$(table "$tmp/m")" 1 "$sample"
check "--only-missing says how many it skipped" grep -q "4 of 13 shapes come from a table" "$tmp/m.err"
check "--only-missing rows are the full run's rows" \
  bash -c "grep -F -x -f '$(table "$tmp/m")' '$(table "$tmp/a")' | grep -c '^  - ' | grep -qx 9"

# 5. Several files (a sweep's jobs) merged: a shape in both once; a shape `table` in one file and
# `fallback` in another is still measured with --only-missing.
python3 - "$sample" "$tmp/second.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
k = doc["kernels"]
again = dict(k["gemm"][0]); again["source"] = "table"           # in the sample as fallback
table_there = dict(k["gemm"][1]); table_there["source"] = "table"  # table in both
new = dict(k["gemm"][0]); new["m"] = 8192; new["source"] = "fallback"
json.dump({"gpu": doc["gpu"], "table": "", "kernels": {"gemm": [again, table_there, new], "memory": []}},
          open(sys.argv[2], "w"))
PY
measure "$tmp/two" "$sample" "$tmp/second.json"
check "two files merged: the union of their shapes, each once" \
  python3 "$tmp/rows.py" "$(table "$tmp/two")" 0 "$sample" "$tmp/second.json"
measure "$tmp/two_missing" "$sample" "$tmp/second.json" --only-missing
check "two files with --only-missing: a shape left out only where every file has it from a table" \
  python3 "$tmp/rows.py" "$(table "$tmp/two_missing")" 1 "$sample" "$tmp/second.json"

# 6. Bad input: exit status 2, one line on stderr naming the file (and the key), no traceback, no table.
bad() { # name, expected text in the line, arguments...
  local name="$1" expect="$2"
  shift 2
  measure "$tmp/bad_$name" "$@"
  local rc lines
  rc=$(cat "$tmp/bad_$name.rc")
  lines=$(wc -l < "$tmp/bad_$name.err")
  check "bad input '$name' exits 2 (got $rc)" test "$rc" = 2
  check "bad input '$name' prints one line on stderr (got $lines: $(head -c 300 "$tmp/bad_$name.err"))" test "$lines" = 1
  check "bad input '$name' names '$expect' ($(head -c 300 "$tmp/bad_$name.err"))" grep -qF -- "$expect" "$tmp/bad_$name.err"
  check "bad input '$name' writes no table" test ! -e "$(table "$tmp/bad_$name")"
}
printf '{"gpu": "H100-SXM-80GB", "kernels": {"gemm": [\n' > "$tmp/broken.json"
sed 's/"layout": "NN"/"layout": "XY"/' "$sample" > "$tmp/layout.json"
sed 's/"precision": "fp8"/"precision": "int4"/' "$sample" > "$tmp/precision.json"
sed 's/"gpu": "H100-SXM-80GB",//' "$sample" > "$tmp/nogpu.json"
sed 's/"gpu": "H100-SXM-80GB"/"gpu": "H200-SXM-141GB"/' "$sample" > "$tmp/othergpu.json"
sed 's/"gpu": "H100-SXM-80GB"/"gpu": "..\/..\/evil"/' "$sample" > "$tmp/pathgpu.json"
sed 's/"m": 1232,/"m": 1232.5,/' "$sample" > "$tmp/fraction.json"
sed 's/"elements": 33554432,/"elements": 33554432, "hidden": 8192,/' "$sample" > "$tmp/unknown_key.json"
sed 's/"elements": 33554432,/"elements": 33554432, "width": 5000,/' "$sample" > "$tmp/width_divides.json"
sed 's/"m": 1232,/"m": 1232, "width": 8,/' "$sample" > "$tmp/width_gemm.json"
sed 's/"elements": 33554432,/"elements": 33554432, "width": 4096,/' "$sample" > "$tmp/width.json"
sed 's/"heads": 64, "kv_heads": 8,/"heads": 64,/' "$sample" > "$tmp/missing_key.json"
sed 's/"causal": true/"causal": "yes"/' "$sample" > "$tmp/causal.json"
sed 's/"grouped_gemm":/"grouped_gem":/' "$sample" > "$tmp/kind.json"
echo '[1, 2]' > "$tmp/list.json"
bad missing_file "$tmp/nosuch.json" "$tmp/nosuch.json"
bad invalid_json "$tmp/broken.json" "$tmp/broken.json"
bad unknown_layout "$tmp/layout.json: kernels.gemm[1].layout" "$tmp/layout.json"
bad unknown_precision "$tmp/precision.json: kernels.gemm[3].precision" "$tmp/precision.json"
bad no_gpu "$tmp/nogpu.json: gpu" "$tmp/nogpu.json"
bad two_gpus "$tmp/othergpu.json: gpu" "$sample" "$tmp/othergpu.json"
bad gpu_path "$tmp/pathgpu.json: gpu" "$tmp/pathgpu.json"
bad fractional_dimension "$tmp/fraction.json: kernels.grouped_gemm[0].m" "$tmp/fraction.json"
bad unknown_key "$tmp/unknown_key.json: kernels.memory[0]: unknown key \"hidden\"" "$tmp/unknown_key.json"
bad width_divides "$tmp/width_divides.json: kernels.memory[0].width: 5000 does not divide" "$tmp/width_divides.json"
bad width_not_a_norm "$tmp/width_gemm.json: kernels.grouped_gemm[0].width" "$tmp/width_gemm.json"
bad missing_key "$tmp/missing_key.json: kernels.attention[0].kv_heads" "$tmp/missing_key.json"
bad causal_word "$tmp/causal.json: kernels.attention[0].causal" "$tmp/causal.json"
bad unknown_kind "$tmp/kind.json: kernels.grouped_gem" "$tmp/kind.json"
bad not_an_object "$tmp/list.json" "$tmp/list.json"
bad good_then_missing "$tmp/nosuch.json" "$sample" "$tmp/nosuch.json"
bad zero_reps "--reps" "$sample" --reps 0
bad timing_word "--timing" "$sample" --timing sustained

# A norm's `width` (simgpt kernels gives its hidden size) lays out its measurement and is not part
# of its shape: the table is the sample's.
measure "$tmp/w" "$tmp/width.json"
check "a memory row's width is accepted" test "$(cat "$tmp/w.rc")" = 0
check "a memory row's width leaves the table's rows as they are" cmp -s "$(table "$tmp/a")" "$(table "$tmp/w")"

# --timing back_to_back: GEMMs and grouped GEMMs timed back to back, the table says so by kind.
measure "$tmp/btb" "$sample" --timing back_to_back
check "--timing back_to_back exits 0" test "$(cat "$tmp/btb.rc")" = 0
check "--timing back_to_back: timing by kind" grep -qx \
  "timing: {gemm: back_to_back, grouped_gemm: back_to_back, attention: isolated, memory: isolated}" "$(table "$tmp/btb")"
check "--timing back_to_back: the same shapes" bash -c "diff <(grep '^  - ' '$(table "$tmp/a")') <(grep '^  - ' '$(table "$tmp/btb")')"
check "no bad input printed a traceback" bash -c "! grep -l Traceback '$tmp'/bad_*.err"

exit $fail

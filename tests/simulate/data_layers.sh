#!/usr/bin/env bash
# --data folders (and $SIMGPT_DATA's) layered on the built-in data: a folder holding one GPU, one
# profile or one table adds or replaces just that, in simgpt and in the processes validate, sweep
# and plan start; a folder that holds no data files is refused with exit status 2.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"
unset SIMGPT_DATA # the built-in folder: the checkout above the build folder

step_time() { sed -n 's/^  "step_time_s": \(.*\),$/\1/p'; }
same() { [ -n "$1" ] && [ "$1" = "$2" ]; }     # same A B: A is B, and not empty
differ() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" != "$2" ]; }
refused() { # refused STATUS PATTERN: exit status 2 and one line on stderr matching PATTERN
  [ "$1" -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q -- "$2" "$tmp/err"
}
# GPT-3 XL cut to 8 layers, which fit two 16 GB V100s.
small=(--workload workloads/gpt3xl.yaml --set model.layers=8 --set training.global_batch=8)
W=("${small[@]}" --set parallelism.pp=2 --format json)

# A folder holding only platforms/gpus.yaml with one new GPU: the V100 of p3.2xlarge, renamed.
mkdir -p "$tmp/gpu/platforms"
awk '/^V100-SXM2-16GB:/ {on = 1; print "V100-LAYERED:"; next} on && /^[^ ]/ {exit} on' platforms/gpus.yaml \
  > "$tmp/gpu/platforms/gpus.yaml"
check "the new GPU's entry was copied" [ "$(wc -l < "$tmp/gpu/platforms/gpus.yaml")" -gt 5 ]
sed 's/V100-SXM2-16GB/V100-LAYERED/g' platforms/p3_2xlarge_x2.xml > "$tmp/layered.xml"
builtin=$("$simgpt" --platform platforms/p3_2xlarge_x2.xml "${W[@]}" | step_time)
layered=$("$simgpt" --platform "$tmp/layered.xml" "${W[@]}" --data "$tmp/gpu" 2> "$tmp/err" | step_time)
check "a platform of the new GPU simulates with --data ($(cat "$tmp/err"))" [ -n "$layered" ]
check "the renamed copy is the same GPU ($layered s, $builtin s)" same "$layered" "$builtin"
check "and with SIMGPT_DATA" \
  same "$(SIMGPT_DATA="$tmp/gpu" "$simgpt" --platform "$tmp/layered.xml" "${W[@]}" | step_time)" "$builtin"
"$simgpt" --platform "$tmp/layered.xml" "${W[@]}" > /dev/null 2> "$tmp/err"
check "without it the GPU is unknown, the built-in ones listed ($(cat "$tmp/err"))" \
  grep -q "unknown GPU 'V100-LAYERED' (the catalog has: A100-SXM4-40GB" "$tmp/err"
# Every catalog file is an input a trace may not replace.
for catalog in "$tmp/gpu/platforms/gpus.yaml" platforms/gpus.yaml; do
  "$simgpt" --platform "$tmp/layered.xml" "${W[@]}" --data "$tmp/gpu" --trace "$catalog" > /dev/null 2> "$tmp/err"
  check "--trace $catalog is refused as an input ($(cat "$tmp/err"))" grep -q "also an input" "$tmp/err"
done

# A folder holding only a changed profiles/megatron.yaml: its result, not the built-in one's; of
# two such folders, the first given wins.
megatron=(--platform platforms/p3_2xlarge_x2.xml --workload workloads/gpt3xl_megatron.yaml --set parallelism.dp=1
          --set training.global_batch=4)
M=("${megatron[@]}" --set parallelism.tp=2 --format json)
for overhead in 1ms 2ms; do
  mkdir -p "$tmp/m$overhead/profiles"
  sed 's/^  op_overhead: .*/  op_overhead: '$overhead'/' profiles/megatron.yaml \
    > "$tmp/m$overhead/profiles/megatron.yaml"
done
check "the profile was changed" grep -q '^  op_overhead: 1ms$' "$tmp/m1ms/profiles/megatron.yaml"
plain=$("$simgpt" "${M[@]}" | step_time)
one=$("$simgpt" "${M[@]}" --data "$tmp/m1ms" | step_time)
two=$("$simgpt" "${M[@]}" --data "$tmp/m2ms" | step_time)
check "a changed profile changes the step time ($plain s, $one s)" differ "$one" "$plain"
check "another change, another step time ($one s, $two s)" differ "$two" "$one"
check "the first --data wins" same "$("$simgpt" "${M[@]}" --data "$tmp/m1ms" --data "$tmp/m2ms" | step_time)" "$one"
check "the first --data wins, reversed" \
  same "$("$simgpt" "${M[@]}" --data "$tmp/m2ms" --data "$tmp/m1ms" | step_time)" "$two"
check "SIMGPT_DATA's folders in order" \
  same "$(SIMGPT_DATA="$tmp/m2ms:$tmp/m1ms" "$simgpt" "${M[@]}" | step_time)" "$two"
check "--data given, SIMGPT_DATA is not read" \
  same "$(SIMGPT_DATA="$tmp/m2ms" "$simgpt" "${M[@]}" --data "$tmp/m1ms" | step_time)" "$one"

# The processes sweep and plan start get the same folders, in order: the new GPU is known to them.
"$simgpt" sweep --platform "$tmp/layered.xml" "${small[@]}" --grid parallelism.pp=2 --data "$tmp/gpu" --jobs 1 \
  -o "$tmp/sweep.csv" > "$tmp/out" 2>&1
check "a sweep's simulation knows the new GPU ($(cat "$tmp/out"))" \
  grep -q "1 configurations, 0 already in .*, 1 ok" "$tmp/out"
check "the sweep's step time is the built-in GPU's" grep -q ",ok,$builtin," "$tmp/sweep.csv"
"$simgpt" sweep "${megatron[@]}" --grid parallelism.tp=2 --data "$tmp/m2ms" --data "$tmp/m1ms" --jobs 1 \
  -o "$tmp/order.csv" > "$tmp/out" 2>&1
check "a sweep's simulation takes the folders in order ($(cat "$tmp/out"))" grep -q ",ok,$two," "$tmp/order.csv"
"$simgpt" plan --platform "$tmp/layered.xml" "${small[@]}" --search parallelism.tp=1 --search parallelism.pp=2 \
  --search training.micro_batch=1 --data "$tmp/gpu" --jobs 1 > "$tmp/out" 2>&1
check "a plan's simulations know the new GPU ($(head -c 600 "$tmp/out"))" \
  grep -q " simulated ([1-9] ok, 0 oom, 0 failed)" "$tmp/out"
# validate's row processes: a table of the user's, on a platform of the user's, with the new GPU.
mkdir -p "$tmp/gpu/validation/tables"
cp "$tmp/layered.xml" "$tmp/gpu/platforms/layered_x2.xml"
cat > "$tmp/gpu/validation/tables/layered.yaml" << 'TABLE'
table: layered
kind: transfer
platform: layered_x2.xml
rows:
- {id: gloo-64mb, bytes: 64MiB, profile: gloo, set: {}, measured: {transfer_s: 0.107}}
TABLE
"$simgpt" validate --data "$tmp/gpu" --filter layered/ --format json --jobs 1 > "$tmp/out" 2> "$tmp/err"
check "validate simulates a row of the user's table ($(head -c 600 "$tmp/err"))" \
  grep -q '"layered/gloo-64mb"' "$tmp/out"
check "the row was compared" grep -q '"status": "compared"' "$tmp/out"

# The user's presets join the built-in ones.
awk '/^p3.2xlarge:/ {on = 1; print "layered-node:"; next} on && /^[^ ]/ {exit} on' platforms/presets.yaml |
  sed 's/V100-SXM2-16GB/V100-LAYERED/' > "$tmp/gpu/platforms/presets.yaml"
"$simgpt" platform --data "$tmp/gpu" --preset layered-node --nodes 1 -o "$tmp/node.xml" > "$tmp/out" 2>&1
check "a preset of the user's is written ($(cat "$tmp/out"))" grep -q 'V100-LAYERED' "$tmp/node.xml"
"$simgpt" platform --data "$tmp/gpu" --preset p3.2xlarge --nodes 2 -o "$tmp/p3.xml" > "$tmp/out" 2>&1
check "a built-in preset still is ($(cat "$tmp/out"))" cmp -s "$tmp/p3.xml" platforms/p3_2xlarge_x2.xml

# calibrate --write rewrites the profile file it reads: the user's.
if [ "$(id -u)" -ne 0 ]; then # root writes read-only files
  mkdir -p "$tmp/gloo/profiles"
  cp profiles/gloo.yaml "$tmp/gloo/profiles/"
  chmod 444 "$tmp/gloo/profiles/gloo.yaml"
  "$simgpt" calibrate --profile gloo --write --data "$tmp/gloo" > "$tmp/out" 2> "$tmp/err"
  check "calibrate --write names the user's profile ($(cat "$tmp/err"))" \
    grep -q "$tmp/gloo/profiles/gloo.yaml.*read-only" "$tmp/err"
  chmod 644 "$tmp/gloo/profiles/gloo.yaml"
fi

# A folder that is missing, empty or holds no data files is refused, named, with exit status 2.
mkdir -p "$tmp/empty" "$tmp/other/notes"
for dir in "$tmp/empty" "$tmp/other" "$tmp/none"; do
  for how in "--data $dir" "--data $tmp/gpu --data $dir"; do
    # shellcheck disable=SC2086 # $how is two or four words
    "$simgpt" --platform "$tmp/layered.xml" "${W[@]}" $how > /dev/null 2> "$tmp/err"
    status=$?
    check "$how is refused with status 2 ($status: $(cat "$tmp/err"))" \
      refused "$status" "--data $dir: is not a simgpt data folder"
  done
  SIMGPT_DATA="$tmp/gpu:$dir" "$simgpt" --platform "$tmp/layered.xml" "${W[@]}" > /dev/null 2> "$tmp/err"
  status=$?
  check "SIMGPT_DATA naming $dir is refused ($status: $(cat "$tmp/err"))" \
    refused "$status" "SIMGPT_DATA $dir: is not a simgpt data folder"
done
exit $fail

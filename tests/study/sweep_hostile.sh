#!/usr/bin/env bash
# simgpt sweep and sweep merge under hostile input (issue 24): a resumed file of another sweep, an
# edited line, an unrelated -o, a second writer, a failed write, parts missing, foreign or with
# gaps, a bad --shard, bad fixed inputs, values that are not text, a huge grid. Each is refused
# with one line on stderr and exit status 2 (3 past a limit), quickly, never truncating a file
# that is not the sweep's, never a crash or a hang.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"
slowdown=${SIMGPT_TEST_SLOWDOWN:-1}

# A refusal: status, one line on stderr matching the pattern, within 2 s (5 s at most for any run).
refused() { # refused DESCRIPTION STATUS PATTERN ARGS...
  local what="$1" status="$2" pattern="$3"
  shift 3
  local start=$(date +%s%N)
  timeout $((5 * slowdown)) "$simgpt" "$@" > "$tmp/out" 2> "$tmp/err"
  local got=$? ms=$(( ($(date +%s%N) - start) / 1000000 ))
  check "$what -> status $got (want $status) in $ms ms, one line matching '$pattern': $(head -c 600 "$tmp/err")" \
    refusal_was "$got" "$status" "$ms" "$pattern"
}
refusal_was() { # refusal_was GOT WANT MS PATTERN: of the run whose stderr is $tmp/err
  [ "$1" -eq "$2" ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && [ "$3" -le $((2000 * slowdown)) ] &&
    grep -q -- "$4" "$tmp/err"
}
# The same file, byte for byte, as a copy taken before.
unchanged() { # unchanged DESCRIPTION FILE COPY
  check "$1: $2 left as it was" cmp -s "$2" "$3"
}

# GPT-3 XL under GPipe on 12 one-GPU nodes: a simulation takes a fraction of a second.
P=platforms/p3_2xlarge_x12.xml
W=workloads/gpt3xl_gpipe.yaml
grid=(--grid network.delay=default,1ms --grid training.micro_batch=1,3)
sweep=(sweep --platform $P --workload $W "${grid[@]}")
"$simgpt" "${sweep[@]}" --jobs 2 -o "$tmp/whole.csv" > /dev/null 2>&1
check "a sweep of 4 configurations (a comment and a header before them)" [ "$(wc -l < "$tmp/whole.csv")" -eq 6 ]
"$simgpt" "${sweep[@]}" --jobs 2 --format jsonl -o "$tmp/whole.jsonl" > /dev/null 2>&1
check "JSON lines of 4 configurations" [ "$(wc -l < "$tmp/whole.jsonl")" -eq 4 ]

# 1. Resume keeps its promise: lines of another --set, workload or platform are refused, and so
# is a line that does not parse whole or is not its configuration's.
head -n 4 "$tmp/whole.csv" > "$tmp/part.csv"
cp "$tmp/part.csv" "$tmp/part.orig"
refused "a resume with another --set" 2 "part.csv:3: is a line of another sweep" \
  "${sweep[@]}" --set network.bandwidth=1Gbps -o "$tmp/part.csv"
unchanged "a resume with another --set" "$tmp/part.csv" "$tmp/part.orig"
{ cat $W; echo "# edited"; } > "$tmp/workload.yaml"
refused "a resume with another workload's content" 2 "part.csv:3: is a line of another sweep" \
  sweep --platform $P --workload "$tmp/workload.yaml" "${grid[@]}" -o "$tmp/part.csv"
head -n 2 "$tmp/whole.jsonl" > "$tmp/part.jsonl"
refused "JSON lines resumed with another --set" 2 "part.jsonl:1: is a line of another sweep" \
  "${sweep[@]}" --format jsonl --set network.bandwidth=1Gbps -o "$tmp/part.jsonl"
edited() { # edited DESCRIPTION PATTERN SED-SCRIPT: line 3 of part.csv (its first configuration) edited, then resumed
  sed "3$3" "$tmp/part.orig" > "$tmp/edited.csv"
  cp "$tmp/edited.csv" "$tmp/edited.orig"
  refused "a kept line with $1" 2 "edited.csv:3: .*$2" "${sweep[@]}" -o "$tmp/edited.csv"
  unchanged "a kept line with $1" "$tmp/edited.csv" "$tmp/edited.orig"
}
edited "an unknown status" "status 'done' is not one of" 's/,ok,/,done,/'
edited "a step time that is not a number" "is not a finite number" 's/,ok,[^,]*,/,ok,fast,/'
edited "an infinite step time" "is not a finite number" 's/,ok,[^,]*,/,ok,inf,/'
edited "a field too few" "fields; a line of this sweep has 25" 's/,false,/,/'
edited "a field too many" "fields; a line of this sweep has 25" 's/$/,extra/'
edited "another configuration's inputs" "its inputs are not configuration 0's" 's/^0,default,,1,/0,default,,3,/'
edited "an SI value that is not its input's" "not a line as simgpt sweep writes it" 's/^0,default,,/0,default,0.001,/'
edited "a digest cut short" "sweep_digest '[0-9a-f]*' is not 16" 's/.$//'

# 2. An output that is not the sweep's is refused, never truncated.
printf 'notes without a newline' > "$tmp/notes.txt"
cp "$tmp/notes.txt" "$tmp/notes.orig"
refused "-o a text without a complete line (CSV)" 2 "notes.txt:1: is a last line" "${sweep[@]}" -o "$tmp/notes.txt"
unchanged "-o a text without a complete line" "$tmp/notes.txt" "$tmp/notes.orig"
refused "-o a text without a complete line (JSON lines)" 2 "notes.txt:1: is a last line" \
  "${sweep[@]}" --format jsonl -o "$tmp/notes.txt"
unchanged "-o a text without a complete line (JSON lines)" "$tmp/notes.txt" "$tmp/notes.orig"
printf 'config,a,status\nkept\n' > "$tmp/table.csv"
cp "$tmp/table.csv" "$tmp/table.orig"
refused "-o a CSV of something else" 2 "table.csv:1: is not a sweep's CSV header" "${sweep[@]}" -o "$tmp/table.csv"
unchanged "-o a CSV of something else" "$tmp/table.csv" "$tmp/table.orig"
refused "-o the workload" 2 "is also an input of this command" "${sweep[@]}" -o $W
refused "-o the platform" 2 "is also an input of this command" "${sweep[@]}" --format jsonl -o $P
refused "-o /dev/full" 2 "not a regular file" "${sweep[@]}" -o /dev/full
mkfifo "$tmp/fifo"
refused "-o a FIFO" 2 "not a regular file" "${sweep[@]}" -o "$tmp/fifo"
truncate -s 300M "$tmp/huge.csv" # sparse: no disk used
refused "-o a 300 MiB file" 3 "a sweep file to resume may be at most 256 MiB" "${sweep[@]}" -o "$tmp/huge.csv"
check "-o a 300 MiB file: left as it was" [ "$(stat -c %s "$tmp/huge.csv")" -eq 314572800 ]
rm -f "$tmp/huge.csv"

# A second sweep writing the same file (two shards given one -o) is refused while the first runs.
long=(sweep --platform $P --workload $W --grid network.delay=$(seq -s, 1 200 | sed 's/\([0-9]*\)/\1ms/g'))
"$simgpt" "${long[@]}" --jobs 1 -o "$tmp/locked.csv" > /dev/null 2>&1 &
first=$!
lines_at_least() { [ -f "$1" ] && [ "$(wc -l < "$1")" -ge "$2" ]; }
check "the first sweep started" wait_for 20 lines_at_least "$tmp/locked.csv" 1
refused "a second writer of one -o" 2 "is being written by another simgpt sweep" \
  "${long[@]}" --shard 2/2 -o "$tmp/locked.csv"
kill -KILL "$first"
wait "$first" 2> /dev/null

# A failed write (here the file size limit, as a full disk would) stops the sweep at once: no
# simulation starts after it, and the file is cut back to whole lines, from which a rerun resumes.
start=$(date +%s%N)
( trap '' XFSZ; ulimit -f 2; exec timeout $((60 * slowdown)) "$simgpt" "${long[@]}" --jobs 1 -o "$tmp/full.csv" ) \
  > "$tmp/out" 2> "$tmp/err"
status=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "a failed write -> status $status (want 2): $(cat "$tmp/err")" [ "$status" -eq 2 ]
check "a failed write: one line naming the file" grep -q "full.csv: cannot be written" "$tmp/err"
# 200 simulations take over 15 s; those before the failure (about 12 lines fill 2 KiB), about 2 s.
check "a failed write stops the sweep at once ($ms ms)" [ "$ms" -le $((6000 * slowdown)) ]
check "a failed write: the file ends with a whole line" [ "$(tail -c 1 "$tmp/full.csv" | od -An -c | tr -d ' ')" = '\n' ]
# The rerun takes the file as it is and goes on: it appends a line (then it is stopped).
lines=$(wc -l < "$tmp/full.csv")
"$simgpt" "${long[@]}" --jobs 1 -o "$tmp/full.csv" > "$tmp/out" 2>&1 &
rerun=$!
check "a failed write: the rerun resumes from the lines kept" wait_for 20 lines_at_least "$tmp/full.csv" $((lines + 1))
kill -KILL "$rerun"
wait "$rerun" 2> /dev/null
check "a failed write: the rerun kept the lines ($(cat "$tmp/out"))" [ ! -s "$tmp/out" ]

# 3. sweep merge: every part a part of this sweep, together all of it.
for i in 1 2 3; do "$simgpt" "${sweep[@]}" --shard "$i/3" -o "$tmp/s$i.csv" > /dev/null 2>&1; done
"$simgpt" sweep merge "$tmp/s1.csv" "$tmp/s2.csv" "$tmp/s3.csv" -o "$tmp/merged.csv" > /dev/null 2>&1
check "merged shards = the whole sweep" cmp -s "$tmp/whole.csv" "$tmp/merged.csv"
refused "a missing part" 2 "nope.csv: cannot read the sweep part file" \
  sweep merge "$tmp/s1.csv" "$tmp/nope.csv" "$tmp/s2.csv" "$tmp/s3.csv" -o "$tmp/m.csv"
refused "a part that is not a sweep file" 2 "table.csv:1: is not a sweep's header" \
  sweep merge "$tmp/table.csv" "$tmp/s1.csv" "$tmp/s2.csv" "$tmp/s3.csv" -o "$tmp/m.csv"
"$simgpt" "${sweep[@]}" --set network.bandwidth=1Gbps --shard 2/3 -o "$tmp/other2.csv" > /dev/null 2>&1
refused "a part of another sweep" 2 "other2.csv:3: is a line of another sweep" \
  sweep merge "$tmp/s1.csv" "$tmp/other2.csv" "$tmp/s3.csv" -o "$tmp/m.csv"
refused "a merge with a gap (shard 2 of 3 missing)" 2 "configuration 1 is in no part" \
  sweep merge "$tmp/s1.csv" "$tmp/s3.csv" -o "$tmp/m.csv"
head -n 3 "$tmp/s1.csv" > "$tmp/s1_cut.csv" # shard 1 of 3 holds configurations 0 and 3
refused "a merge whose last configuration is missing" 2 "the sweep has 4 configurations" \
  sweep merge "$tmp/s1_cut.csv" "$tmp/s2.csv" "$tmp/s3.csv" -o "$tmp/m.csv"
sed 's/,ok,[0-9.]*,/,ok,99,/' "$tmp/s1.csv" > "$tmp/s1_other.csv"
refused "overlapping parts that differ" 2 "also in .* with another result\|not a line as simgpt" \
  sweep merge "$tmp/s1.csv" "$tmp/s2.csv" "$tmp/s3.csv" "$tmp/s1_other.csv" -o "$tmp/m.csv"
refused "a part /dev/zero" 2 "not a regular file" sweep merge "$tmp/s1.csv" /dev/zero -o "$tmp/m.csv"
truncate -s 300M "$tmp/huge.csv"
refused "a 300 MiB part" 3 "may be at most 256 MiB" sweep merge "$tmp/s1.csv" "$tmp/huge.csv" -o "$tmp/m.csv"
rm -f "$tmp/huge.csv"
cp "$tmp/s1.csv" "$tmp/s1.orig"
refused "a merge written over one of its parts" 2 "is also an input of this command" \
  sweep merge "$tmp/s1.csv" "$tmp/s2.csv" "$tmp/s3.csv" -o "$tmp/s1.csv"
unchanged "a merge written over one of its parts" "$tmp/s1.csv" "$tmp/s1.orig"

# 4. --shard: digits, within range.
for shard in 1/4294967297 4294967297/1 ' 1/2' 1/2x +1/2 1/-2 0/3 1/0 / 1/513; do
  refused "--shard '$shard'" 2 "expected I/N with 1 <= I <= N" "${sweep[@]}" --shard "$shard" -o "$tmp/shard.csv"
done
# A merge of more parts than a process may hold open: refused before any is opened.
refused "a merge of 513 parts" 3 "at most 512 are merged at once" sweep merge $(for i in $(seq 513); do echo "$tmp/s1.csv"; done) -o "$tmp/many.csv"

# 5. Fixed inputs that make every configuration invalid are refused before any simulation; a swept
# value that makes one invalid is a result.
refused "a missing platform file" 2 "nope.xml: cannot read the platform file" \
  sweep --platform "$tmp/nope.xml" --workload $W "${grid[@]}" -o "$tmp/fixed.csv"
check "a missing platform file: no output written" [ ! -e "$tmp/fixed.csv" ]
refused "--set model.layers=abc" 2 "model.layers: 'abc' is not an integer" \
  "${sweep[@]}" --set model.layers=abc -o "$tmp/fixed.csv"
printf 'model: [1, 2\n' > "$tmp/malformed.yaml"
refused "a workload that does not load" 2 "malformed.yaml" \
  sweep --platform $P --workload "$tmp/malformed.yaml" "${grid[@]}" -o "$tmp/fixed.csv"
"$simgpt" sweep --platform $P --workload $W --set model.layers=abc --grid model.layers=24,abc -o "$tmp/swept.csv" \
  > "$tmp/out" 2>&1
check "a --set the grid overrides is not a fixed input ($(cat "$tmp/out"))" grep -q "2 configurations, 0 already in" "$tmp/out"
check "a swept value that is invalid is a result" grep -q "^1,abc,invalid,.*is not an integer" "$tmp/swept.csv"

# 6. Values that are not text are refused; a huge grid is built in linear time. A key named as
# another's SI column could not be told from it in the file.
refused "a key named as another's SI column" 2 "framework_options.x_s: is framework_options.x with the suffix" \
  "${sweep[@]}" --grid framework_options.x=1ms --grid framework_options.x_s=1 -o "$tmp/v.csv"
refused "a value that is not UTF-8" 2 "is not UTF-8 text" "${sweep[@]}" --grid model.layers=$'\xff' -o "$tmp/v.csv"
refused "a value with a newline" 2 "is not UTF-8 text" "${sweep[@]}" --grid model.layers=$'2\n4' -o "$tmp/v.csv"
refused "a key that is not UTF-8" 2 "is not UTF-8 text" "${sweep[@]}" --grid framework_options.$'\xff'=1 -o "$tmp/v.csv"
refused "a --set that is not UTF-8" 2 "is not UTF-8 text" "${sweep[@]}" --set framework_options.a=$'\xff' -o "$tmp/v.csv"
zips=()
for i in $(seq 30000); do zips+=(--zip "framework_options.k$i=1"); done
refused "30,000 zipped keys, the last swept twice" 2 "framework_options.k1: is swept twice" \
  sweep --platform $P --workload $W --grid network.delay=1ms "${zips[@]}" --zip framework_options.k1=1 -o "$tmp/z.csv"
# 7. A copy of simgpt under another name sweeps as simgpt does: its simulations run this executable
# ("this process is not simgpt" refused it), its data found through SIMGPT_DATA.
cp "$simgpt" "$tmp/renamed"
SIMGPT_DATA="$PWD" "$tmp/renamed" "${sweep[@]}" --jobs 2 -o "$tmp/renamed.csv" > "$tmp/out" 2>&1
check "a renamed simgpt sweeps ($(head -c 300 "$tmp/out"))" grep -q "^4 configurations, 0 already in" "$tmp/out"
check "... to the same results" cmp -s <(grep -v '^#' "$tmp/whole.csv") <(grep -v '^#' "$tmp/renamed.csv")
exit $fail

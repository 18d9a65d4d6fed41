#!/usr/bin/env bash
# simgpt plan: on a small case simulated exhaustively, the static memory filter rejects only plans
# the simulation says do not fit, the step-time lower bound is below every simulated step (so the
# pruned search finds the exhaustive search's best), symmetric placements simulate the same step;
# the output does not depend on --jobs; bad input is one line and exit status 2.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"

# GPT-3 XL cut to 12 layers, fp32 SGD on 4 of a p3.16xlarge's 16 GB V100s: near the memory
# limit, so that some plans do not fit. Its framework (torch-pipe) is given tensor parallelism and
# every schedule, so that the whole space is searched.
whole_space=(--set framework_options.supports.tensor_parallel=true
             --set "framework_options.supports.schedules=[gpipe, 1f1b, interleaved]")
base=(plan --platform platforms/p3_16xlarge.xml --workload workloads/gpt3xl.yaml --gpus 4 "${whole_space[@]}"
      --set training.global_batch=4 --set model.layers=12)
small=("${base[@]}" --search training.micro_batch=1,2)
"$simgpt" "${small[@]}" --exhaustive --jobs 2 -o "$tmp/all.csv" > "$tmp/all.txt" 2>&1; status=$?
check "the exhaustive plan exits 0 ($(head -c 300 "$tmp/all.txt"))" [ "$status" -eq 0 ]
# Over 64 GPUs the whole space has thousands of valid plans: --exhaustive is refused before any
# is simulated, with the count.
"$simgpt" plan --platform platforms/p3_16xlarge_x8.xml --workload workloads/gpt3xl.yaml "${whole_space[@]}" \
  --exhaustive -o "$tmp/refused.csv" > "$tmp/refused.txt" 2>&1; status=$?
check "an exhaustive search of thousands of valid plans is refused with their count ($(head -c 300 "$tmp/refused.txt"))" \
  [ "$status" -eq 3 ] && grep -Eq -- '^simgpt: --exhaustive: [0-9]+ of the [0-9]+ candidate plans are valid' "$tmp/refused.txt" \
  && [ ! -e "$tmp/refused.csv" ]
"$simgpt" "${small[@]}" --jobs 2 -o "$tmp/pruned.csv" > "$tmp/pruned.txt" 2>&1; status=$?
check "the pruned plan exits 0 ($(head -c 300 "$tmp/pruned.txt"))" [ "$status" -eq 0 ]

# Columns: 1 candidate, 3-14 the plan's keys, 15 status, 16 lower_bound_step_time_s,
# 17 static_peak_memory_gib, 18 step_time_s, 21 peak_memory_gib, 25 estimate_step_time_s,
# 26 estimate_contended.
simulated=$(awk -F, 'NR > 1 && $18 != ""' "$tmp/all.csv" | wc -l)
oom=$(awk -F, 'NR > 1 && $15 == "oom"' "$tmp/all.csv" | wc -l)
check "the exhaustive case simulates hundreds of plans, some out of memory ($simulated, $oom oom)" \
  [ "$simulated" -ge 200 ] && [ "$oom" -ge 10 ] && [ "$oom" -lt "$simulated" ]
check "the static peak is at most the simulated peak, the lower bound at most the step time" \
  awk -F, 'NR > 1 && $18 != "" && ($17 > $21 * (1 + 1e-7) || $16 > $18 * (1 + 1e-7)) { print; bad = 1 } END { exit bad }' \
  "$tmp/all.csv"
# The pruned search's verdicts, joined with the exhaustive search's results by candidate.
joined() { awk -F, 'NR == FNR { status[$1] = $15; step[$1] = $18; next } FNR > 1 { print $0 "|" status[$1] "|" step[$1] }' \
  "$tmp/all.csv" "$tmp/pruned.csv"; }
memory_pruned=$(joined | grep -c ',pruned_memory,')
check "the static filter prunes some plans ($memory_pruned)" [ "$memory_pruned" -gt 0 ]
fitting_pruned=$(joined | grep ',pruned_memory,' | grep -vc '|oom|')
check "every plan the static filter prunes is out of memory when simulated ($fitting_pruned fit)" \
  [ "$fitting_pruned" -eq 0 ]
best_all=$(awk -F, 'NR > 1 && $15 == "ok" { print $18 }' "$tmp/all.csv" | sort -g | head -1)
best_pruned=$(awk -F, 'NR > 1 && $15 == "ok" { print $18 }' "$tmp/pruned.csv" | sort -g | head -1)
bound_pruned=$(grep -c ',pruned_bound,' "$tmp/pruned.csv")
check "the bound prunes some plans ($bound_pruned)" [ "$bound_pruned" -gt 0 ]
check "the pruned search finds the exhaustive best ($best_pruned s, $best_all s)" [ "$best_pruned" = "$best_all" ]
check "the winner printed first is the best" grep -q "^   1  .* ${best_all:0:5}" "$tmp/pruned.txt"
# The estimate (column 25) the search ranks by: within 1% of the replay on the median simulated
# plan; with no margin, only plans estimated no slower than the best simulated are simulated.
estimate_median_within() { # estimate_median_within CSV FRACTION: |estimate / step - 1| of the median simulated plan
  awk -F, 'NR > 1 && $18 != "" { e = $25 / $18 - 1; print (e < 0 ? -e : e) }' "$1" | sort -g |
    awk -v limit="$2" '{ v[NR] = $1 } END { exit !(NR > 0 && v[int((NR + 1) / 2)] <= limit) }'
}
check "the estimate is within 1% of the replay on the median plan" estimate_median_within "$tmp/all.csv" 0.01
refuted() { ! "$@"; }
check "(the median check refuses a bound below zero)" refuted estimate_median_within "$tmp/all.csv" -1
# An estimate that contends no link is not above the replay: what lets the search prune it by 1%.
uncontended=$(awk -F, 'NR > 1 && $18 != "" && $26 == "false"' "$tmp/all.csv" | wc -l)
check "every simulated plan whose estimate contends no link ($uncontended) is estimated no slower than replayed" \
  awk -F, 'NR > 1 && $18 != "" && $26 == "false" { n++; if ($25 > $18 * (1 + 1e-6)) { print; bad = 1 } }
           END { exit bad || n < 100 }' "$tmp/all.csv"
"$simgpt" "${small[@]}" --jobs 2 --margin 0 -o "$tmp/margin0.csv" > /dev/null 2>&1
estimate_pruned=$(grep -c ',pruned_estimate,' "$tmp/margin0.csv")
best_margin0=$(awk -F, 'NR > 1 && $15 == "ok" { print $18 }' "$tmp/margin0.csv" | sort -g | head -1)
check "with no margin the estimate prunes plans ($estimate_pruned) and the best is still found ($best_margin0 s)" \
  [ "$estimate_pruned" -gt 0 ] && [ "$best_margin0" = "$best_all" ]
# --fidelity estimate answers every candidate in closed form: each answer is the estimate the
# search ranked it by, and there is no critical path to share the step out by.
"$simgpt" "${small[@]}" --jobs 2 --fidelity estimate -o "$tmp/estimated.csv" > "$tmp/estimated.txt" 2>&1
answered=$(awk -F, 'NR > 1 && $18 != ""' "$tmp/estimated.csv" | wc -l)
check "an estimated plan answers some candidates ($answered)" [ "$answered" -gt 0 ]
check "each answer is the estimate it was ranked by" \
  awk -F, 'NR > 1 && $18 != "" && ($18 != $25 || $23 != "" || $24 != "") { print; bad = 1 } END { exit bad }' "$tmp/estimated.csv"
check "an estimated plan prints no communication or bubble share" grep -q "^   1  .* -       -$" "$tmp/estimated.txt"
# Symmetric: the reason names the candidate whose ranks sit on the same GPUs; both simulate the
# same step (the four placements of one micro-batch size and recompute mode, simulated exhaustively).
orders=(--search training.micro_batch=1 --search training.recompute=none --search parallelism.zero=0 --search parallelism.schedule=1f1b
        --search placement.order=tp-dp-pp,tp-pp-dp,dp-tp-pp,pp-tp-dp)
"$simgpt" "${base[@]}" "${orders[@]}" --exhaustive --jobs 2 -o "$tmp/orders_all.csv" > /dev/null 2>&1
"$simgpt" "${base[@]}" "${orders[@]}" --jobs 2 -o "$tmp/orders.csv" > /dev/null 2>&1
symmetric=$(grep -c ',pruned_symmetric,' "$tmp/orders.csv")
check "some placements are symmetric ($symmetric)" [ "$symmetric" -gt 0 ]
same_step_as_twin() { # same_step_as_twin EXHAUSTIVE.csv PRUNED.csv
  awk -F, 'NR == FNR { step[$1] = $18; next }
           $15 == "pruned_symmetric" { match($0, /as candidate [0-9]+/); twin = substr($0, RSTART + 13, RLENGTH - 13)
                                       if (step[$1] == "" || step[$1] != step[twin]) { print; bad = 1 } }
           END { exit bad }' "$1" "$2"
}
check "a plan on the same GPUs simulates the step of the candidate it is symmetric to" \
  same_step_as_twin "$tmp/orders_all.csv" "$tmp/orders.csv"
# 1F1B over one micro-batch runs GPipe's passes in GPipe's order: the same step.
same_order=$(grep -c 'in the same order as candidate' "$tmp/pruned.csv")
check "some 1F1B plans run GPipe's order ($same_order)" [ "$same_order" -gt 0 ]
check "a plan running the same passes in the same order simulates the same step" \
  same_step_as_twin "$tmp/all.csv" "$tmp/pruned.csv"
check "the CSV lists every candidate" [ "$(wc -l < "$tmp/pruned.csv")" -eq "$(wc -l < "$tmp/all.csv")" ]
check "the ranking says what each key is worth" grep -q "training.recompute .* next best" "$tmp/pruned.txt"

# The same inputs give the same bytes, whatever --jobs.
"$simgpt" "${small[@]}" --jobs 1 -o "$tmp/one.csv" > "$tmp/one.txt" 2>&1
check "--jobs 1 writes the same CSV as --jobs 2" cmp -s "$tmp/one.csv" "$tmp/pruned.csv"
check "--jobs 1 prints the same ranking as --jobs 2" cmp -s "$tmp/one.txt" "$tmp/pruned.txt"

# --memory-limit: a simulation whose heap would pass it fails with that reason, and the plan says
# which candidate it leaves out; with room enough, the plan is the one without a limit. (The full
# replay of GPT-3 175B on 1,024 GPUs holds some 700 MB; its symmetric one now fits in 32 MiB.)
"$simgpt" platform --preset dgx-a100 --nodes 128 -o "$tmp/dgx128.xml" > /dev/null
one_175b=(plan --platform "$tmp/dgx128.xml" --workload workloads/gpt3_175b.yaml --search parallelism.tp=8
          --search parallelism.pp=16 --search training.micro_batch=1 --search training.recompute=full
          --search parallelism.zero=0 --search parallelism.sequence_parallel=false --search parallelism.schedule=1f1b)
# (Not under AddressSanitizer, whose allocator exits when a mapping fails instead of failing the
# allocation: scripts/sanitize.sh sets ASAN_OPTIONS.)
if [ -z "${ASAN_OPTIONS:-}" ]; then
  "$simgpt" "${one_175b[@]}" --fidelity full --memory-limit 32MiB -o "$tmp/limited.csv" > "$tmp/limited.txt" 2>&1; status=$?
  check "a plan under a small memory limit exits 0 ($(head -c 300 "$tmp/limited.txt"))" [ "$status" -eq 0 ]
  check "... its simulation fails, saying the limit" \
    grep -q ',failed,.*the simulation needed more than its memory limit of 0.0312 GiB (--memory-limit)$' "$tmp/limited.csv"
  check "... and the text names the one left out" grep -q '^not ranked: 1 failed simulations, the best estimated' "$tmp/limited.txt"
fi
"$simgpt" "${small[@]}" --jobs 2 --memory-limit 4GiB -o "$tmp/roomy.csv" > "$tmp/roomy.txt" 2>&1
check "a plan with memory to spare is the plan without a limit" cmp -s "$tmp/roomy.csv" "$tmp/pruned.csv"

# Unsearched, a key takes only what the framework runs (torch-pipe: no tensor parallelism, GPipe's
# schedule when pipelined); a searched value it does not run is listed invalid, with the reason.
framework=(plan --platform platforms/p3_16xlarge.xml --workload workloads/gpt3xl.yaml --gpus 4
           --set training.global_batch=4 --set model.layers=12 --search training.micro_batch=1
           --search training.recompute=none --jobs 2)
"$simgpt" "${framework[@]}" -o "$tmp/framework.csv" > /dev/null 2>&1
check "the framework's space has whole-layer splits and GPipe pipelines only" \
  awk -F, 'NR > 1 && ($4 != 1 || ($5 > 1 && $8 != "gpipe")) { print; bad = 1 } END { exit bad || NR < 5 }' \
  "$tmp/framework.csv"
"$simgpt" "${framework[@]}" --search parallelism.tp=1,2 -o "$tmp/framework_tp.csv" > /dev/null 2>&1
check "a searched tensor-parallel degree torch-pipe does not run is invalid, with its reason" \
  grep -q ',invalid,.*parallelism.tp: the torch-pipe profile runs no tensor parallelism' "$tmp/framework_tp.csv"

# Several job sizes: per GPU, a smaller job may win; the CSV holds every size's candidates.
"$simgpt" plan --platform platforms/p3_16xlarge.xml --workload workloads/gpt3xl.yaml --gpus 1,2 \
  --set training.global_batch=4 --set model.layers=12 --search training.micro_batch=1 --search training.recompute=none \
  --objective tokens_per_s_per_gpu --jobs 2 -o "$tmp/sizes.csv" > "$tmp/sizes.txt" 2>&1
check "--gpus 1,2 plans jobs of 1 and 2 GPUs" \
  [ "$(awk -F, 'NR > 1 { print $2 }' "$tmp/sizes.csv" | sort -u | tr '\n' ' ')" = "1 2 " ]
best_per_gpu=$(awk -F, 'NR > 1 && $15 == "ok" { print $20 }' "$tmp/sizes.csv" | sort -g | tail -1)
check "the winner has the most tokens per second per GPU ($best_per_gpu)" \
  grep -q "^   1  .* ${best_per_gpu:0:4}" "$tmp/sizes.txt"

# Bad input: one line on stderr and exit status 2.
bad() { # bad DESCRIPTION ARGS...: simgpt plan ARGS must refuse with exit 2 and one line
  local what="$1"
  shift
  "$simgpt" plan --platform platforms/p3_16xlarge.xml --workload workloads/gpt3xl.yaml "$@" > "$tmp/out" 2> "$tmp/err"
  local status=$?
  check "$what: exit 2 (got $status: $(cat "$tmp/err"))" [ "$status" -eq 2 ]
  check "$what: one line on stderr" [ "$(wc -l < "$tmp/err")" -eq 1 ]
}
bad "an unknown key" --search parallelism.bogus=1,2
bad "a key the planner does not search" --search training.precision=fp16
bad "an empty list" --search parallelism.tp=
bad "an empty value" --search parallelism.tp=1,,2
bad "a value the key does not take" --search training.recompute=some
bad "a key given twice" --search parallelism.tp=1 --search parallelism.tp=2
bad "more GPUs than the platform" --gpus 9
bad "no GPU" --gpus 0
bad "not a number of GPUs" --gpus eight
bad "an unknown objective" --objective fastest
bad "a searched key in --set" --set parallelism.tp=2
bad "a search with no candidate" --gpus 1 --search parallelism.tp=2
bad "an output that cannot be written" -o "$tmp/no/such/dir.csv"
bad "a negative margin" --margin -5
bad "a margin that is not a number" --margin wide
bad "a memory limit that is not a size" --memory-limit 2XB
bad "a memory limit below what simgpt needs to start" --memory-limit 1MiB
# An expert-parallel degree no candidate can take made every candidate invalid: "no plan fits".
bad "ep on a dense model" --search parallelism.ep=3
check "... naming ep and why" grep -q "^simgpt: --search parallelism.ep: 3 needs a mixture-of-experts model" "$tmp/err"
bad "ep that does not divide the experts" --set model.experts=8 --search parallelism.ep=1,3
check "... naming ep and why" grep -q "^simgpt: --search parallelism.ep: 3 does not divide the model's 8 experts" "$tmp/err"
bad "ep that divides no dp" --set model.experts=16 --search parallelism.ep=16
check "... naming ep and why" grep -q "^simgpt: --search parallelism.ep: 16 divides no data-parallel size of a job of 8 GPUs" "$tmp/err"
# A mixture of experts: the planner searches ep (each divisor of dp that divides the experts) and,
# asked to, cp; both reach the simulation (every candidate simulated: --exhaustive).
"$simgpt" platform --preset dgx-h100 --nodes 1 -o "$tmp/h100.xml" > /dev/null
moe=(plan --platform "$tmp/h100.xml" --workload workloads/mixtral_8x7b.yaml --set model.layers=4
     --set model.seq_len=8192 --set training.global_batch=16 --set parallelism.cp_comm_type=a2a
     --search parallelism.pp=1 --search training.micro_batch=1 --search training.recompute=none
     --search parallelism.zero=1 --search parallelism.cp=1,2)
"$simgpt" "${moe[@]}" --exhaustive -o "$tmp/moe.csv" > "$tmp/moe.txt" 2>&1; status=$?
check "the MoE plan exits 0 ($(head -c 300 "$tmp/moe.txt"))" [ "$status" -eq 0 ]
check "... simulating ep 1, 2, 4 and 8 at dp 8" [ "$(awk -F, 'NR > 1 && $3 == 8 && $15 == "ok" { print $13 }' "$tmp/moe.csv" | sort -u | tr '\n' ' ')" = "1 2 4 8 " ]
check "... and cp 2 plans" awk -F, 'NR > 1 && $14 == 2 && $15 == "ok" { found = 1 } END { exit !found }' "$tmp/moe.csv"
# On one DGX H100 the estimates contend no link (each GPU's NVSwitch ports carry its own
# collectives' flows): the search prunes them 1% above the best simulated and still finds the
# exhaustive search's best.
"$simgpt" "${moe[@]}" -o "$tmp/moe_pruned.csv" > /dev/null 2>&1
best_of() { awk -F, 'NR > 1 && $15 == "ok" { print $18 }' "$1" | sort -g | head -1; }
check "an uncontended search prunes at 1% ($(grep -c 'more than 1% above' "$tmp/moe_pruned.csv") plans) and finds the best" \
  grep -q 'more than 1% above' "$tmp/moe_pruned.csv" && [ "$(best_of "$tmp/moe_pruned.csv")" = "$(best_of "$tmp/moe.csv")" ]

# Plans that predict the same step and memory are ranked once: Llama 3 8B (FlashAttention) on a
# DGX H100, where selective recompute has no attention scores to drop and so runs as none does.
"$simgpt" platform --preset dgx-h100 --nodes 1 -o "$tmp/h100.yaml" > /dev/null
"$simgpt" plan --platform "$tmp/h100.yaml" --workload workloads/llama3_8b.yaml --set model.layers=8 \
  --search parallelism.cp=1 -o "$tmp/same.csv" > "$tmp/same.txt" 2>&1
python3 - "$tmp/same.csv" "$tmp/same.txt" <<'PY' || fail=1
import csv, re, sys
rows = {r["candidate"]: r for r in csv.DictReader(open(sys.argv[1]))}
same = [r for r in rows.values() if r["status"] == "equivalent"]
ok = bool(same)
for r in same:
    first = rows[re.search(r"as candidate (\d+)", r["reason"]).group(1)]
    ok &= first["status"] == "ok" and first["step_time_s"] == r["step_time_s"] and first["peak_memory_gib"] == r["peak_memory_gib"]
ranked = [l.split() for l in open(sys.argv[2]) if re.match(r"\s+\d+\s+dp", l)]
ok &= len({(l[-8], l[-4]) for l in ranked}) == len(ranked)  # step s, peak GiB: distinct
if not ok:
    print("FAIL: equivalent plans name an earlier one with the same step and memory, and the ranking lists each once")
sys.exit(0 if ok else 1)
PY
exit $fail

#!/usr/bin/env bash
# Every file simgpt writes is written whole or not at all, never over one of the command's inputs:
# --trace, simgpt platform -o, simgpt plan -o and calibrate --write refuse an input, a directory,
# a FIFO, a device or a read-only file before any work; a write that fails (files limited to
# 1 KiB, as a full disk cuts them) exits 2 and leaves the earlier file as it was; a result that
# cannot reach stdout exits non-zero. Options of the simulation given before a subcommand, and
# bad --jobs, --timeout and --top values, are refused with one short line.
set -u
simgpt="$1"
. "$(dirname "$0")/support/checks.sh"
slowdown=${SIMGPT_TEST_SLOWDOWN:-1}

full_disk() { # full_disk ARGS...: simgpt with files limited to 1 KiB; its status
  (trap '' XFSZ; ulimit -f 1; "$simgpt" "$@" > "$tmp/out" 2> "$tmp/err")
}

cp workloads/gpt3xl.yaml "$tmp/w.yaml"
cp platforms/p3_16xlarge.xml "$tmp/p.xml"
cp "$tmp/w.yaml" "$tmp/w.before"
cp "$tmp/p.xml" "$tmp/p.before"
job=(--platform "$tmp/p.xml" --workload "$tmp/w.yaml" --set parallelism.pp=4 --set parallelism.dp=2
     --set training.global_batch=16)

# --trace
expect_status 2 "--trace naming the workload" "also an input" "${job[@]}" --trace "$tmp/w.yaml"
expect_status 2 "--trace naming the platform" "also an input" "${job[@]}" --trace "$tmp/p.xml"
check "the workload is untouched" cmp -s "$tmp/w.yaml" "$tmp/w.before"
check "the platform is untouched" cmp -s "$tmp/p.xml" "$tmp/p.before"
mkfifo "$tmp/fifo"
expect_status 2 "--trace naming nothing" "names no file" "${job[@]}" --trace ""
expect_status 2 "--trace naming a FIFO" "not a regular file" "${job[@]}" --trace "$tmp/fifo"
expect_status 2 "--trace naming a directory" "is a directory" "${job[@]}" --trace "$tmp"
"$simgpt" "${job[@]}" --trace "$tmp/trace.json" > /dev/null 2>&1
check "a trace is written" [ -s "$tmp/trace.json" ]
cp "$tmp/trace.json" "$tmp/trace.before"
full_disk "${job[@]}" --trace "$tmp/trace.json"
got=$?
check "a trace on a full disk exits 2 (got $got: $(head -c 300 "$tmp/err"))" [ "$got" -eq 2 ]
check "a trace on a full disk leaves the earlier trace whole" cmp -s "$tmp/trace.json" "$tmp/trace.before"

# simgpt platform -o (on copies of the data files: a simgpt that fails this test must not damage
# the checkout's)
mkdir -p "$tmp/data"
cp -r platforms profiles validation "$tmp/data/"
cp "$tmp/data/platforms/presets.yaml" "$tmp/presets.before"
platform=(platform --data "$tmp/data" --preset p3.2xlarge --nodes 2)
expect_status 2 "platform -o the presets" "also an input" "${platform[@]}" -o "$tmp/data/platforms/presets.yaml"
check "the presets are untouched" cmp -s "$tmp/data/platforms/presets.yaml" "$tmp/presets.before"
cp "$tmp/presets.before" "$tmp/data/platforms/presets.yaml"
expect_status 2 "platform -o a FIFO" "not a regular file" "${platform[@]}" -o "$tmp/fifo"
"$simgpt" "${platform[@]}" -o "$tmp/gen.xml" > /dev/null 2>&1
cp "$tmp/gen.xml" "$tmp/gen.before"
full_disk platform --preset p3.16xlarge --nodes 8 -o "$tmp/gen.xml"
got=$?
check "platform on a full disk exits 2 (got $got: $(head -c 300 "$tmp/err"))" [ "$got" -eq 2 ]
check "platform on a full disk leaves the earlier file whole" cmp -s "$tmp/gen.xml" "$tmp/gen.before"

# simgpt plan -o
plan=(plan --platform "$tmp/p.xml" --workload "$tmp/w.yaml" --search parallelism.tp=1 --search parallelism.pp=1
      --search training.micro_batch=1 --search training.recompute=full)
expect_status 2 "plan -o the workload" "also an input" "${plan[@]}" -o "$tmp/w.yaml"
check "the workload is untouched by plan" cmp -s "$tmp/w.yaml" "$tmp/w.before"
expect_status 2 "plan -o a directory" "is a directory" "${plan[@]}" -o "$tmp"

# The data files a simulation reads (its profile, the GPU catalog), and a validation table that
# plot --measured reads by its id, are inputs too.
cp "$tmp/data/profiles/torch-pipe.yaml" "$tmp/profile.before"
cp "$tmp/data/platforms/gpus.yaml" "$tmp/gpus.before"
export SIMGPT_DATA="$tmp/data"
expect_status 2 "--trace naming the profile" "also an input" "${job[@]}" --trace "$tmp/data/profiles/torch-pipe.yaml"
expect_status 2 "--trace naming the GPU catalog" "also an input" "${job[@]}" --trace "$tmp/data/platforms/gpus.yaml"
expect_status 2 "plan -o the profile" "also an input" "${plan[@]}" -o "$tmp/data/profiles/torch-pipe.yaml"
expect_status 2 "plan -o the GPU catalog" "also an input" "${plan[@]}" -o "$tmp/data/platforms/gpus.yaml"
check "the profile is untouched" cmp -s "$tmp/data/profiles/torch-pipe.yaml" "$tmp/profile.before"
check "the GPU catalog is untouched" cmp -s "$tmp/data/platforms/gpus.yaml" "$tmp/gpus.before"
cp "$tmp/data/validation/tables/seed001-gpipe.yaml" "$tmp/table.before"
printf 'config,network.delay,status,step_time_s,reason\n0,1ms,ok,1,\n1,5ms,ok,2,\n' > "$tmp/sweep.csv"
expect_status 2 "plot -o a table --measured reads by id" "also an input" plot "$tmp/sweep.csv" --x network.delay \
  --y step_time_s --measured seed001-gpipe -o "$tmp/data/validation/tables/seed001-gpipe.yaml"
check "the table is untouched" cmp -s "$tmp/data/validation/tables/seed001-gpipe.yaml" "$tmp/table.before"
export SIMGPT_DATA="$PWD"

# calibrate --write on a read-only profile: refused before the fit.
chmod 444 "$tmp/data/profiles/gloo.yaml"
if [ "$(id -u)" -ne 0 ]; then # root writes read-only files
  expect_status 2 "calibrate --write a read-only profile" "read-only" calibrate --profile gloo --write --data "$tmp/data"
fi
chmod 644 "$tmp/data/profiles/gloo.yaml"

# stdout that cannot be written
"$simgpt" "${job[@]}" > /dev/full 2> "$tmp/err"
got=$?
check "a report to /dev/full exits 2 (got $got)" [ "$got" -eq 2 ]
check "a report to /dev/full says stdout" grep -q "stdout" "$tmp/err"

# The simulation's options before a subcommand
expect_status 2 "--set before sweep" "give it after the subcommand" --set model.layers=4 sweep -o "$tmp/s.csv"
expect_status 2 "--trace before plan" "not an option of simgpt plan" --trace "$tmp/t.json" plan
expect_status 2 "--format before validate" "give it after the subcommand" --format json validate

# Numbers
expect_status 2 "--timeout 0" "expected seconds above 0 and at most 1e+06" validate --timeout 0
expect_status 2 "--timeout nan" "expected seconds" validate --timeout nan
expect_status 2 "--timeout inf" "expected seconds" sweep --timeout inf
expect_status 2 "--jobs 0" "expected a whole number from 1 to 1000000" validate --jobs 0
expect_status 2 "--jobs -1" "expected a whole number" validate --jobs -1
expect_status 2 "--jobs 1e9" "expected a whole number" plan --jobs 1e9
expect_status 2 "--jobs 99999999999999999999" "expected a whole number" sweep --jobs 99999999999999999999
expect_status 2 "--top 0" "expected a whole number from 1" plan --top 0
expect_status 2 "calibrate --jobs 0" "expected a whole number from 1" calibrate --profile deepspeed --jobs 0
expect_status 3 "calibrate past its --timeout" "ran past --timeout 0.01 s" calibrate --profile deepspeed --timeout 0.01
# plan's screening of its candidates past --timeout was an internal error: a limit, naming it.
for fidelity in estimate symmetric; do
  expect_status 3 "plan --fidelity $fidelity past its --timeout" \
    "^simgpt: --timeout: the screening of [0-9]* candidate plans ran past --timeout 1e-09 s (give it more)" \
    plan --platform platforms/p3_16xlarge.xml --workload workloads/gpt3xl.yaml --fidelity $fidelity --timeout 1e-9
done
"$simgpt" validate --filter no-such-row --jobs 1000000 > "$tmp/out" 2> "$tmp/err"
check "--jobs 1000000 runs, lowered to the cores, with a line saying so" grep -q "one per core" "$tmp/err"
# --version: the project's version from CMakeLists.txt, on stdout, exit 0.
version=$(sed -n 's/^project(simgpt VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
check "--version prints simgpt $version" [ "$("$simgpt" --version 2> /dev/null)" = "simgpt $version" ]
exit $fail

#!/usr/bin/env bash
# Fuzzes simgpt's input parsers with libFuzzer (tests/fuzz/*.cpp, one target each): builds them
# with clang++ and ASan/UBSan in build-sanitize/ (scripts/sanitized_build.sh), replays every saved regression input
# (tests/fuzz/regressions/<target>-<n>) once, then runs each target for a bounded time on a copy
# of its seed corpus (tests/fuzz/corpus/<target>/), with its dictionary (tests/fuzz/<target>.dict)
# if it has one. Exits non-zero on any finding and prints the path of the input that caused it.
# CI (.ci/run) runs it with the default time.
#   FUZZ_TIME=SECONDS   time per target (default 60)
#   FUZZ_JOBS=N         targets fuzzed at once (default: one per core)
# Installs clang and libFuzzer (Debian 12: clang-14, libclang-rt-14-dev) if missing; needs what
# scripts/setup.sh installs for the library itself.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
fuzz_time=${FUZZ_TIME:-60}
fuzz_jobs=${FUZZ_JOBS:-$(nproc)}

targets=()
for src in tests/fuzz/*.cpp; do
  t=$(basename "$src" .cpp)
  targets+=("$t")
done
scripts/sanitized_build.sh --target "${targets[@]/#/fuzz_}"

export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:halt_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
fuzz_options=(-timeout=5 -rss_limit_mb=2048 -print_final_stats=1)
out=build-sanitize/fuzz-out
rm -rf "$out"
mkdir -p "$out"
status=0

# Every saved finding, once (they must pass once the bug is fixed).
shopt -s nullglob
for t in "${targets[@]}"; do
  for r in tests/fuzz/regressions/"$t"-*; do
    if ! build-sanitize/fuzz_"$t" "${fuzz_options[@]}" "$r" >"$out/regression-$(basename "$r").log" 2>&1; then
      echo "fuzz: $t fails on regression input $root/$r (log: $root/$out/regression-$(basename "$r").log)" >&2
      tail -n 40 "$out/regression-$(basename "$r").log" >&2
      status=1
    fi
  done
done

# One target's fuzzing run; its outcome on stdout/stderr, 1 when it found a problem.
fuzz_target() {
  local t=$1 corpus="$out/$1/corpus" artifacts="$out/$1/artifacts/"
  mkdir -p "$corpus" "$artifacts"
  cp tests/fuzz/corpus/"$t"/* "$corpus"/
  # A target's dictionary (tests/fuzz/<target>.dict: the tokens of its input language), if any.
  local dict=()
  [ ! -f tests/fuzz/"$t".dict ] || dict=(-dict=tests/fuzz/"$t".dict)
  if ! build-sanitize/fuzz_"$t" "${fuzz_options[@]}" "${dict[@]}" -max_total_time="$fuzz_time" -artifact_prefix="$artifacts" \
       "$corpus" >"$out/$t.log" 2>&1; then
    {
      echo "fuzz: $t found a problem (log: $root/$out/$t.log)"
      grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|.*terminate called)' "$out/$t.log" || true
      for a in "$artifacts"*; do
        echo "fuzz: crashing input: $root/$a"
      done
    } >&2
    return 1
  fi
  echo "fuzz: $t: $(grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$out/$t.log" | tr '\n' ' ')"
}

# FUZZ_JOBS targets at once (default: one per core), each single-threaded for FUZZ_TIME seconds.
echo "fuzz: ${#targets[@]} targets for ${fuzz_time}s each, $fuzz_jobs at once"
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$fuzz_jobs" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  fuzz_target "$t" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
exit $status

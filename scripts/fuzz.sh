#!/usr/bin/env bash
# Fuzzes simgpt's input parsers with libFuzzer (tests/fuzz/*.cpp, one target each): builds them
# with clang++ and ASan/UBSan in build-fuzz/, replays every saved regression input
# (tests/fuzz/regressions/<target>-<n>) once, then runs each target for a bounded time on a copy
# of its seed corpus (tests/fuzz/corpus/<target>/), with its dictionary (tests/fuzz/<target>.dict)
# if it has one. Exits non-zero on any finding and prints the path of the input that caused it.
# CI (.ci/run) runs it with the default time.
#   FUZZ_TIME=SECONDS   time per target (default 60)
# Installs clang and libFuzzer (Debian 12: clang-14, libclang-rt-14-dev) if missing; needs what
# scripts/setup.sh installs for the library itself.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
fuzz_time=${FUZZ_TIME:-60}

scripts/install_packages.sh clang libclang-rt-14-dev

# The library is instrumented too (fuzzer-no-link: coverage without libFuzzer's main); the
# fuzz executables add -fsanitize=fuzzer (CMakeLists.txt, SIMGPT_FUZZ). The system libraries
# (yaml-cpp, fmt, SimGrid) are not instrumented.
flags="-fsanitize=address,undefined,fuzzer-no-link -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
      -DCMAKE_CXX_FLAGS="$flags" -DBUILD_TESTING=OFF -DSIMGPT_FUZZ=ON
targets=()
for src in tests/fuzz/*.cpp; do
  t=$(basename "$src" .cpp)
  targets+=("$t")
done
cmake --build build-fuzz --target "${targets[@]/#/fuzz_}"

export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:halt_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
fuzz_options=(-timeout=5 -rss_limit_mb=2048 -print_final_stats=1)
out=build-fuzz/fuzz-out
rm -rf "$out"
mkdir -p "$out"
status=0

# Every saved finding, once (they must pass once the bug is fixed).
shopt -s nullglob
for t in "${targets[@]}"; do
  for r in tests/fuzz/regressions/"$t"-*; do
    if ! build-fuzz/fuzz_"$t" "${fuzz_options[@]}" "$r" >"$out/regression-$(basename "$r").log" 2>&1; then
      echo "fuzz: $t fails on regression input $root/$r (log: $root/$out/regression-$(basename "$r").log)" >&2
      tail -n 40 "$out/regression-$(basename "$r").log" >&2
      status=1
    fi
  done
done

for t in "${targets[@]}"; do
  corpus="$out/$t/corpus"
  artifacts="$out/$t/artifacts/"
  mkdir -p "$corpus" "$artifacts"
  cp tests/fuzz/corpus/"$t"/* "$corpus"/
  # A target's dictionary (tests/fuzz/<target>.dict: the tokens of its input language), if any.
  dict=()
  [ ! -f tests/fuzz/"$t".dict ] || dict=(-dict=tests/fuzz/"$t".dict)
  echo "fuzz: $t for ${fuzz_time}s"
  if ! build-fuzz/fuzz_"$t" "${fuzz_options[@]}" "${dict[@]}" -max_total_time="$fuzz_time" -artifact_prefix="$artifacts" \
       "$corpus" >"$out/$t.log" 2>&1; then
    echo "fuzz: $t found a problem (log: $root/$out/$t.log)" >&2
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|.*terminate called)' "$out/$t.log" >&2 || true
    for a in "$artifacts"*; do
      echo "fuzz: crashing input: $root/$a" >&2
    done
    status=1
  else
    grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$out/$t.log" | tr '\n' ' '
    echo
  fi
done
exit $status

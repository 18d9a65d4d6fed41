#!/usr/bin/env bash
# Builds simgpt instrumented in build-sanitize/: clang++ with AddressSanitizer, UndefinedBehavior-
# Sanitizer (not recovering) and libFuzzer's coverage (fuzzer-no-link) on every target, so one
# build serves both the sanitized tests (scripts/sanitize.sh) and the libFuzzer targets
# (scripts/fuzz.sh). Arguments go to `cmake --build` (e.g. --target fuzz_units). Installs clang and
# libFuzzer (Debian 12: clang-14, libclang-rt-14-dev) if missing; needs what scripts/setup.sh installs.
# -O1 -gline-tables-only: the sanitizers' reports keep file and line, and the build takes about
# half the time of -O2 -g.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_packages.sh clang libclang-rt-14-dev
flags="-fsanitize=address,undefined,fuzzer-no-link -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
# The benchmark is left out: it is timed from the release build, never from this one.
cmake -S . -B build-sanitize -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" -DCMAKE_CXX_FLAGS="$flags" \
      -DSIMGPT_FUZZ=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON >/dev/null
cmake --build build-sanitize "$@"

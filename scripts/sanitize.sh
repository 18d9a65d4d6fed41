#!/usr/bin/env bash
# Builds simgpt with AddressSanitizer and UndefinedBehaviorSanitizer in build-asan/ and runs the
# test suite (ctest) under them. Any sanitizer report fails the run (UBSan does not recover).
# Needs what scripts/setup.sh installs (run it first on a fresh machine).
#   --quick   leaves out the tests that replay the whole validation set (validation_gate,
#             readme_accuracy: about 6 minutes each under the sanitizers, the rest about 3);
#             scripts/test.sh runs them. CI (.ci/run) runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
excluded='example_package'
case "${1:-}" in
  --quick) excluded+='|validation_gate|readme_accuracy' ;;
  '') ;;
  *) echo "usage: scripts/sanitize.sh [--quick]" >&2; exit 2 ;;
esac
flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
      -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined"
cmake --build build-asan
# detect_leaks=0: SimGrid keeps its engine (and what it allocated) until the process exits on
# purpose, so LeakSanitizer would report those blocks at exit in every test that simulates.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:halt_on_error=1:detect_stack_use_after_return=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# Tests that time a command (tests/cli_errors.sh) allow for the sanitizers' slowdown.
export SIMGPT_TEST_SLOWDOWN=10
# example_package builds an outside project (examples/embed) against the installed library
# without the sanitizer flags: it cannot link against an instrumented libsimgpt.a.
ctest --test-dir build-asan --output-on-failure -j2 -E "^($excluded)\$"

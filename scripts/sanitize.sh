#!/usr/bin/env bash
# Builds simgpt with AddressSanitizer and UndefinedBehaviorSanitizer in build-sanitize/
# (scripts/sanitized_build.sh, clang) and runs the test suite (ctest) under them. Any sanitizer
# report fails the run (UBSan does not recover).
# Needs what scripts/setup.sh installs (run it first on a fresh machine).
#   --quick   the unit tests and the command-line tests of bad and hostile input, under the
#             sanitizers; leaves out the tests that check predictions and outputs end to end
#             (the validation replay, the planner's and the calibrations' searches, the shipped
#             workloads, sweeps, the docs' studies: 410 of the 770 test-seconds of all but the
#             validation replay under the sanitizers), which scripts/test.sh runs on the release
#             build. The library code they run is under the sanitizers in the unit tests. CI
#             (.ci/run) runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
excluded='example_package'
case "${1:-}" in
  --quick)
    excluded+='|validation_gate|readme_accuracy|plan|planner_comparison|deepseek_workloads|llama_workloads'
    excluded+='|calibrate_table|calibration_support|measure_kernels_standin|sweep|compact_platform'
    excluded+='|docs_network_study|kernel_table_round_trip' ;;
  '') ;;
  *) echo "usage: scripts/sanitize.sh [--quick]" >&2; exit 2 ;;
esac
scripts/sanitized_build.sh
# detect_leaks=0: SimGrid keeps its engine (and what it allocated) until the process exits on
# purpose, so LeakSanitizer would report those blocks at exit in every test that simulates.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:halt_on_error=1:detect_stack_use_after_return=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# Tests that time a command (tests/cli_errors.sh) allow for the sanitizers' slowdown.
export SIMGPT_TEST_SLOWDOWN=10
# example_package builds an outside project (examples/embed) against the installed library
# without the sanitizer flags: it cannot link against an instrumented libsimgpt.a.
ctest --test-dir build-sanitize --output-on-failure -j2 -E "^($excluded)\$"

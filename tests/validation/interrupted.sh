#!/usr/bin/env bash
# An interrupted validate (SIGINT from a terminal's Ctrl-C, SIGTERM from a job scheduler) removes
# its scratch, the planner comparison's simgpt-validate-XXXXXX directory in $TMPDIR (it was left
# there), and ends by the signal (status 128 + its number), -o's file left as it was.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"

for signal in INT TERM; do
  scratch="$tmp/scratch-$signal"
  mkdir -p "$scratch"
  echo "before" > "$tmp/report-$signal.json"
  # A shell starts a background job with SIGINT ignored, which simgpt leaves ignored: python
  # restores the default a terminal's process has.
  TMPDIR="$scratch" python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' \
    "$simgpt" validate --filter seed002-autodist-tensor --jobs 1 --format json -o "$tmp/report-$signal.json" \
    > /dev/null 2>&1 &
  pid=$!
  check "SIG$signal: the planner comparison's scratch directory is made" \
    wait_for 60 sh -c "ls '$scratch' | grep -q '^simgpt-validate-'"
  kill -"$signal" "$pid"
  wait "$pid"
  status=$?
  check "SIG$signal: validate ends by the signal (status $status)" [ "$status" -eq $((128 + $(kill -l "$signal"))) ]
  check "SIG$signal: no scratch directory is left ($(ls "$scratch"))" [ -z "$(ls -A "$scratch")" ]
  check "SIG$signal: no scratch file is left beside -o" sh -c "! ls -a '$tmp' | grep -q '^\.report-$signal'"
  check "SIG$signal: -o's file is left as it was" grep -qx before "$tmp/report-$signal.json"
done
exit $fail

#!/usr/bin/env bash
# validate runs each row in its own simgpt process: a row whose process times out or is killed
# fails the gate with the reason, and the row processes die with validate.
set -u
simgpt="$1"
. "$(dirname "$0")/../support/checks.sh"
# A row whose simulation takes seconds (killed long before it ends), and one that takes a moment.
slow=seed002-alpa-details-tensor/6.7B-b2
quick=seed002-alpa-details-tensor/350M-b4

children() { pgrep -P "$1" > "$tmp/children"; }
gone() { for pid in "$@"; do [ ! -e "/proc/$pid" ] || return 1; done; }

# (a) A row past its timeout is killed, not simulated, and fails the gate.
"$simgpt" validate --gate --filter "$quick" --timeout 0.01 > "$tmp/out" 2>&1
status=$?
if [ "$status" -ne 1 ] || ! grep -q "$quick: not simulated: the simulation process timed out after 0.01 s" "$tmp/out"; then
  echo "FAIL: a timed-out row -> status $status (want 1), output:"; cat "$tmp/out"; fail=1
fi

# (b) A row whose process is killed fails the gate, naming the signal.
"$simgpt" validate --gate --jobs 1 --filter "$slow" > "$tmp/out" 2>&1 &
validate=$!
if wait_for 10 children "$validate"; then
  kill -KILL $(cat "$tmp/children")
  wait "$validate"
  status=$?
  if [ "$status" -ne 1 ] || ! grep -q "$slow: not simulated: the simulation process was killed by signal 9" "$tmp/out"; then
    echo "FAIL: a killed row -> status $status (want 1), output:"; cat "$tmp/out"; fail=1
  fi
else
  echo "FAIL: validate started no row process"; kill -KILL "$validate"; fail=1
fi

# (c) Row processes die with validate.
"$simgpt" validate --jobs 2 --filter "$slow" > /dev/null 2>&1 &
validate=$!
if wait_for 10 children "$validate"; then
  pids=$(cat "$tmp/children")
  kill -TERM "$validate"
  wait "$validate"
  if ! wait_for 5 gone $pids; then
    echo "FAIL: row processes $pids outlived validate"; kill -KILL $pids 2> /dev/null; fail=1
  fi
else
  echo "FAIL: validate started no row process"; kill -KILL "$validate"; fail=1
fi
exit $fail

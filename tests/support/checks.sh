# Shared by the command-line tests (source it): a scratch directory `tmp` removed on exit, `fail`
# set when a check fails, and the helpers below.
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # check DESCRIPTION COMMAND...: fails the test, with the description, unless COMMAND succeeds
  local what="$1"
  shift
  "$@" || { echo "FAIL: $what"; fail=1; }
}

wait_for() { # wait_for SECONDS COMMAND...: polls COMMAND every 20 ms until it succeeds; false on timeout
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.02
  done
}

# expect_status STATUS DESCRIPTION PATTERN ARGS...: runs "$simgpt" ARGS (at most $expect_seconds
# seconds, 10 unless set, times $slowdown) and checks its exit status; a refusal (status 2 or more)
# is one line of at most 300 characters; its stderr holds PATTERN when one is given.
expect_status() {
  local status="$1" what="$2" pattern="$3"
  shift 3
  timeout $((${expect_seconds:-10} * ${slowdown:-1})) "$simgpt" "$@" > "$tmp/out" 2> "$tmp/err"
  local got=$?
  check "$what: exit $status (got $got: $(head -c 300 "$tmp/err"))" [ "$got" -eq "$status" ]
  if [ "$status" -ge 2 ]; then
    check "$what: one line" [ "$(wc -l < "$tmp/err")" -eq 1 ]
    check "$what: at most 300 characters" [ "$(wc -c < "$tmp/err")" -le 301 ]
  fi
  [ -z "$pattern" ] || check "$what: says '$pattern'" grep -q -- "$pattern" "$tmp/err"
}

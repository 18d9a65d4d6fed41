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

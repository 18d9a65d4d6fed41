#!/usr/bin/env bash
# docs/trace is what its command makes: rerunning docs/trace/make.sh gives the committed trace
# and report byte for byte.
set -u
simgpt="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
docs/trace/make.sh "$simgpt" "$tmp" || { echo "FAIL: docs/trace/make.sh"; exit 1; }
fail=0
for f in 1f1b.json 1f1b.txt; do
  cmp -s "docs/trace/$f" "$tmp/$f" || { echo "FAIL: docs/trace/$f differs from what make.sh writes now"; fail=1; }
done
exit $fail
